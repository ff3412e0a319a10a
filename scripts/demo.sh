#!/usr/bin/env bash
# make demo: a loopback mosquitto, the emulated PN532 with demo tags, the agent, and the MQTT traffic.
# Everything it starts is stopped on Ctrl-C (or after DEMO_SECONDS seconds, when set): the agent
# first, so its goodbye (tag cleared, status offline) is shown, then the rest. The logs stay in the
# folder the script names at the end. Needs only what `make demo-deps` installs (the build's
# libraries, mosquitto, mosquitto-clients, socat) and the built binaries.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=$(swift build --show-bin-path)
work=$(mktemp -d /tmp/nfcbridge-demo.XXXXXX)
pids=()
agent_pid=""

# Each child runs in its own session (setsid): Ctrl-C reaches this script only, which then stops
# the children in order instead of the terminal interrupting them all at once.
start() { setsid "$@" & pids+=($!); }

cleanup() {
    trap - EXIT INT TERM
    echo
    if [ -n "$agent_pid" ] && kill -0 "$agent_pid" 2>/dev/null; then
        echo "stopping the agent (it publishes tag {\"present\":false} and status offline) ..."
        kill -TERM "$agent_pid" 2>/dev/null || true
        wait "$agent_pid" 2>/dev/null || true
        # Let the subscriber print the goodbye before it is stopped.
        for _ in $(seq 50); do grep -q '^nfc/demo/status offline' "$work/traffic.log" 2>/dev/null && break; sleep 0.1; done
    fi
    for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
        kill -TERM "${pids[i]}" 2>/dev/null || true
        wait "${pids[i]}" 2>/dev/null || true
    done
    rm -f "$work/pn532.sock" "$work/pn532.tty"
    echo "demo stopped. Logs: agent $work/agent.log, MQTT traffic $work/traffic.log, Home Assistant"
    echo "discovery $work/discovery.log, simulator $work/sim.log, broker $work/mosquitto.log (remove with: rm -r $work)"
}
trap cleanup EXIT
trap 'exit 0' INT TERM

# 1. mosquitto on 127.0.0.1 only, on a free port (bash's /dev/tcp: a port nobody answers on).
broker_up=false
for _ in $(seq 20); do
    port=$((20000 + RANDOM % 40000))
    (exec 3<> "/dev/tcp/127.0.0.1/$port") 2>/dev/null && continue
    printf 'listener %s 127.0.0.1\nallow_anonymous true\npersistence false\n' "$port" > "$work/mosquitto.conf"
    start /usr/sbin/mosquitto -c "$work/mosquitto.conf" > "$work/mosquitto.log" 2>&1
    for _ in $(seq 100); do
        mosquitto_pub -h 127.0.0.1 -p "$port" -t demo/ping -m x -q 0 2>/dev/null && { broker_up=true; break; }
        kill -0 "${pids[-1]}" 2>/dev/null || break
        sleep 0.1
    done
    [ "$broker_up" = true ] && break
    unset 'pids[-1]'
done
if [ "$broker_up" != true ]; then
    echo "mosquitto did not start:" >&2
    cat "$work/mosquitto.log" >&2
    exit 1
fi

# 2. The PN532 emulator with the demo scenario (config/scenarios/demo.yaml).
start "$BIN/nfcbridge-sim" --link "$work/pn532.tty" --control "$work/pn532.sock" \
    --scenario config/scenarios/demo.yaml > "$work/sim.out" 2> "$work/sim.log"
for _ in $(seq 100); do grep -q '^ready' "$work/sim.out" 2>/dev/null && break; sleep 0.1; done
if ! grep -q '^ready' "$work/sim.out" 2>/dev/null; then
    echo "nfcbridge-sim did not start:" >&2
    cat "$work/sim.log" >&2
    exit 1
fi

# 3. Show the agent's traffic (also kept in traffic.log). The Home Assistant discovery documents (one
# retained JSON document per entity, re-sent at every connection) would bury the first events: they
# go to discovery.log, not on screen.
echo "broker 127.0.0.1:$port · reader pn532_uart:$work/pn532.tty · Ctrl-C stops everything"
echo "Home Assistant discovery documents (not shown): $work/discovery.log"
echo "------------------------------------------------------------------------------"
start mosquitto_sub -h 127.0.0.1 -p "$port" -v -t 'nfc/#' > "$work/traffic.log"
start mosquitto_sub -h 127.0.0.1 -p "$port" -v -t 'homeassistant/#' > "$work/discovery.log"
start tail -n +1 -f "$work/traffic.log"

# 4. The agent; its log goes to agent.log. No dump on scan: a full dump is thousands of characters
# per tag and would bury the scan events (`nfcbridge dump` or the MQTT dump command show one).
cat > "$work/config.yaml" <<CONF
id: demo
reader:
  device: pn532_uart:$work/pn532.tty
mqtt:
  url: mqtt://127.0.0.1:$port
dump:
  on_scan: false
log:
  level: info
health_interval_s: 30
CONF
start "$BIN/nfcbridge" run --config "$work/config.yaml" --state-dir "$work/state" 2> "$work/agent.log"
agent_pid=${pids[-1]}

# 5. A guest tag placed by hand through the control socket, as docs/simulator.md step 5 shows.
for _ in $(seq 100); do grep -q '^nfc/demo/status online' "$work/traffic.log" 2>/dev/null && break; sleep 0.1; done
sleep 3
echo '{"cmd":"place","tag":{"id":"guest","type":"ntag213","ndef":[{"uri":"https://example.com/guest"}]}}' \
    | socat - "UNIX-CONNECT:$work/pn532.sock" > "$work/control.log"
sleep 2
echo '{"cmd":"remove","id":"guest"}' | socat - "UNIX-CONNECT:$work/pn532.sock" >> "$work/control.log"

if [ -n "${DEMO_SECONDS:-}" ]; then sleep "$DEMO_SECONDS"; else wait "$agent_pid"; fi
