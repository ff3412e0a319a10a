#!/usr/bin/env bash
# make demo: a loopback mosquitto, the emulated PN532 with demo tags, the agent, and the MQTT traffic.
# Everything it starts is stopped on Ctrl-C (or after DEMO_SECONDS seconds, when set).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=$(swift build --show-bin-path)
work=$(mktemp -d /tmp/nfcbridge-demo.XXXXXX)
pids=()
agent_index=-1

cleanup() {
    trap - EXIT INT TERM
    # Newest first: the agent stops while broker and subscriber still run, so its goodbye (tag
    # cleared, status offline) is shown; then the subscriber, the emulator and the broker.
    for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
        kill "${pids[i]}" 2>/dev/null || true
        wait "${pids[i]}" 2>/dev/null || true
        # Let the subscriber print what the agent said last before it is stopped.
        [ "$i" = "$agent_index" ] && sleep 0.3
    done
    echo
    echo "demo stopped; logs were in $work (now removed)"
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 0' INT TERM

# A free loopback port for the broker.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

# 1. mosquitto on 127.0.0.1 only.
cat > "$work/mosquitto.conf" <<CONF
listener $port 127.0.0.1
allow_anonymous true
persistence false
CONF
/usr/sbin/mosquitto -c "$work/mosquitto.conf" > "$work/mosquitto.log" 2>&1 &
pids+=($!)
broker_up=false
for _ in $(seq 100); do
    mosquitto_pub -h 127.0.0.1 -p "$port" -t demo/ping -m x -q 0 2>/dev/null && { broker_up=true; break; }
    sleep 0.1
done
if [ "$broker_up" != true ]; then
    echo "mosquitto did not start:" >&2
    cat "$work/mosquitto.log" >&2
    exit 1
fi

# 2. The PN532 emulator with the demo scenario (config/scenarios/demo.yaml).
"$BIN/nfcbridge-sim" --link "$work/pn532.tty" --control "$work/pn532.sock" \
    --scenario config/scenarios/demo.yaml > "$work/sim.out" 2> "$work/sim.log" &
pids+=($!)
for _ in $(seq 100); do grep -q '^ready' "$work/sim.out" 2>/dev/null && break; sleep 0.1; done
if ! grep -q '^ready' "$work/sim.out" 2>/dev/null; then
    echo "nfcbridge-sim did not start:" >&2
    cat "$work/sim.log" >&2
    exit 1
fi

# 3. Show the traffic.
echo "broker 127.0.0.1:$port · reader pn532_uart:$work/pn532.tty · Ctrl-C stops everything"
echo "------------------------------------------------------------------------------"
mosquitto_sub -h 127.0.0.1 -p "$port" -v -t 'nfc/#' -t 'homeassistant/#' &
pids+=($!)

# 4. The agent.
cat > "$work/config.yaml" <<CONF
id: demo
reader:
  device: pn532_uart:$work/pn532.tty
mqtt:
  url: mqtt://127.0.0.1:$port
dump:
  on_scan: true
log:
  level: info
health_interval_s: 30
state_dir: $work/state
CONF
"$BIN/nfcbridge" run --config "$work/config.yaml" 2> "$work/agent.log" &
agent_index=${#pids[@]}
pids+=($!)

if [ -n "${DEMO_SECONDS:-}" ]; then sleep "$DEMO_SECONDS"; else wait "${pids[-1]}"; fi
