#!/usr/bin/env bash
# How long `nfcbridge dump` takes next to libnfc's own `nfc-mfultralight r`, on the same emulated
# NTAG215 (nfcbridge-sim, serial line modelled at 115200 baud). Run by hand; nothing asserts a time.
#
#   bench/dump-vs-nfc-mfultralight.sh [RUNS]          (default 5 runs of each tool)
#   CONFIGURATION=release bench/dump-vs-nfc-mfultralight.sh
#
# Prints the mean wall time of each tool (process start to exit, libnfc's open included) and the
# ratio nfcbridge / nfc-mfultralight, and checks that both wrote the same MFD image.
# nfcbridge does more per run than nfc-mfultralight: it identifies the tag fully (GET_VERSION table)
# and also reads the originality signature and the counters; it reads the pages with FAST_READ.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-5}
configuration=${CONFIGURATION:-debug}
baud=${BAUD:-115200}

command -v nfc-mfultralight >/dev/null || { echo "nfc-mfultralight not found (Debian: libnfc-bin)" >&2; exit 2; }
(cd "$root" && swift build -c "$configuration" --product nfcbridge >/dev/null && \
    swift build -c "$configuration" --product nfcbridge-sim >/dev/null)
bin=$(cd "$root" && swift build -c "$configuration" --show-bin-path)

work=$(mktemp -d "${TMPDIR:-/tmp}/nfcbench-XXXXXX")
sim_pid=""
cleanup() {
    if [ -n "$sim_pid" ]; then kill "$sim_pid" 2>/dev/null || true; wait "$sim_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

cat > "$work/scenario.yaml" <<'YAML'
tags:
  - id: sticker
    type: ntag215
    uid: 04A1B2C3D4E5F6
    ndef:
      - uri: https://example.com/nfcbridge
      - text: Benchmark tag
timeline: [{at: 0, place: sticker}]
YAML

"$bin/nfcbridge-sim" --link "$work/pn532.tty" --control "$work/control.sock" \
    --scenario "$work/scenario.yaml" --baud "$baud" >"$work/sim.out" 2>"$work/sim.err" &
sim_pid=$!
for _ in $(seq 1 300); do
    grep -q "ready link=" "$work/sim.out" 2>/dev/null && break
    kill -0 "$sim_pid" 2>/dev/null || { cat "$work/sim.err" >&2; exit 1; }
    sleep 0.1
done
grep -q "ready link=" "$work/sim.out" || { echo "nfcbridge-sim did not start" >&2; exit 1; }

connstring="pn532_uart:$work/pn532.tty"
export LIBNFC_AUTO_SCAN=false

# Runs "$@" $runs times; prints the mean wall time in seconds.
mean_time() {
    local total=0 start end
    for _ in $(seq 1 "$runs"); do
        start=$(date +%s%N)
        "$@" >/dev/null 2>"$work/last.err" || { cat "$work/last.err" >&2; exit 1; }
        end=$(date +%s%N)
        total=$((total + end - start))
    done
    awk -v ns="$total" -v n="$runs" 'BEGIN { printf "%.3f", ns / n / 1e9 }'
}

ours=$(mean_time "$bin/nfcbridge" dump --device "$connstring" --format mfd --output "$work/ours.mfd" --timeout 10)
theirs=$(mean_time env LIBNFC_DEFAULT_DEVICE="$connstring" nfc-mfultralight r "$work/theirs.mfd")

if cmp -s "$work/ours.mfd" "$work/theirs.mfd"; then same="identical"; else same="DIFFERENT"; fi
echo "NTAG215 on nfcbridge-sim at $baud baud, $runs runs each ($configuration build)"
echo "  nfcbridge dump --format mfd : ${ours} s"
echo "  nfc-mfultralight r          : ${theirs} s"
awk -v a="$ours" -v b="$theirs" 'BEGIN { printf "  ratio nfcbridge / nfc-mfultralight: %.2f\n", a / b }'
echo "  MFD images: $same"
