#!/usr/bin/env bash
# Every bench, in order, once (what `make bench` runs). Short ones first; the long agent benches
# (churn, idle, fleet) last. Counts and durations: see each script (TAPS, SECONDS_IDLE, AGENTS …).
set -euo pipefail
here=$(dirname "$0")
root=$(cd "$here/.." && pwd)
(cd "$root" && swift build -c "${CONFIGURATION:-debug}" --product nfcbridge >/dev/null &&
    swift build -c "${CONFIGURATION:-debug}" --product nfcbridge-sim >/dev/null)
export BENCH_BUILT=1
for b in startup identify dump auth latency absence churn slowdisk idle fleet; do
    "$here/$b.sh"
    echo
done
