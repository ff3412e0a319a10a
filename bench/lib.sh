# Shared by the bench/ scripts (sourced, not run). Everything runs on loopback against
# nfcbridge-sim with the serial line modelled at $BAUD (default 115200); nothing asserts a time.
#   CONFIGURATION=release  bench a release build (default: debug)
#   RUNS=N                 paired runs per comparison (default 9)
#   BIN=DIR                bench the nfcbridge and nfcbridge-sim in DIR instead (e.g. an older build)
set -euo pipefail

bench_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
configuration=${CONFIGURATION:-debug}
runs=${RUNS:-9}
baud=${BAUD:-115200}
export LIBNFC_AUTO_SCAN=false

if [ -z "${BENCH_BUILT:-}" ] && [ -z "${BIN:-}" ]; then
    (cd "$bench_root" && swift build -c "$configuration" --product nfcbridge >/dev/null &&
        swift build -c "$configuration" --product nfcbridge-sim >/dev/null)
fi
bin=${BIN:-$(cd "$bench_root" && swift build -c "$configuration" --show-bin-path)}

work=$(mktemp -d "${TMPDIR:-/tmp}/nfcbench-XXXXXX")
bench_pids=()
bench_cleanup() {
    local pid
    for pid in "${bench_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${bench_pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap bench_cleanup EXIT

# The machine and its load, for the record.
bench_header() {
    echo "# $1"
    echo "machine: $(nproc) cores, $(uname -srm); load: $(uptime | sed 's/.*load average: //')"
    echo "build: ${BIN:-$configuration}; line: $baud baud (nfcbridge-sim); runs: $runs paired, alternating"
}

# start_sim NAME SCENARIO_FILE [ARGS...]: starts nfcbridge-sim with its link at $work/NAME.tty,
# its control socket at $work/NAME.sock and its trace in $work/NAME.trace; waits for "ready".
start_sim() {
    local name=$1 scenario=$2
    shift 2
    "$bin/nfcbridge-sim" --link "$work/$name.tty" --control "$work/$name.sock" --scenario "$scenario" \
        --baud "$baud" --trace "$@" >"$work/$name.out" 2>"$work/$name.trace" &
    bench_pids+=($!)
    local pid=$!
    for _ in $(seq 1 600); do
        grep -q "ready link=" "$work/$name.out" 2>/dev/null && return 0
        kill -0 "$pid" 2>/dev/null || { cat "$work/$name.trace" >&2; return 1; }
        sleep 0.05
    done
    echo "nfcbridge-sim $name did not start" >&2
    return 1
}

# control NAME JSON: one request on the simulator's control socket; prints the reply.
control() {
    python3 - "$work/$1.sock" "$2" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(sys.argv[2].encode() + b"\n")
print(s.makefile().readline().strip())
PY
}

# paired LABEL_A LABEL_B -- A... -- B...: runs A and B in turn ($runs times each, one warm-up
# pair first), wall time of each whole process; prints medians, min–max and the ratio A/B pair by pair.
# The commands must exit 0. "@N" in an argument becomes the run number.
paired() {
    local label_a=$1 label_b=$2
    shift 3
    local a=() b=()
    while [ "$1" != "--" ]; do a+=("$1"); shift; done
    shift
    b=("$@")
    local times="$work/paired.$$"
    : >"$times"
    local i start end ta tb
    for i in $(seq 0 "$runs"); do
        start=$(date +%s%N); "${a[@]}" >/dev/null 2>"$work/last.err" || { cat "$work/last.err" >&2; return 1; }
        end=$(date +%s%N); ta=$((end - start))
        start=$(date +%s%N); "${b[@]}" >/dev/null 2>"$work/last.err" || { cat "$work/last.err" >&2; return 1; }
        end=$(date +%s%N); tb=$((end - start))
        [ "$i" -gt 0 ] && echo "$ta $tb" >>"$times"
    done
    python3 "$bench_root/bench/stats.py" paired "$label_a" "$label_b" <"$times"
}

# frames LOG: PN532 commands, tag frames, bytes on the line, and the line-rate floor of one
# libnfc session from its LIBNFC_LOG_LEVEL=3 log.
frames() {
    python3 "$bench_root/bench/frames.py" "$1"
}

# replay LOG TTY: the rig floor of LOG's session (its frames sent again with no host work; replay.py).
replay() {
    python3 "$bench_root/bench/replay.py" "$1" "$2" "$runs"
}

# logged OUT -- COMMAND...: runs COMMAND once with libnfc's frame log on, into OUT.
logged() {
    local out=$1
    shift 2
    LIBNFC_LOG_LEVEL=3 "$@" >/dev/null 2>"$out" || { tail -5 "$out" >&2; return 1; }
}
