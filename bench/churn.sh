#!/usr/bin/env bash
# Churn: TAPS taps (default 1000) of 300 ms on / 100 ms off, 4 UIDs in turn, shipped defaults;
# counts `scanned` and `removed` (expected: TAPS each) and the agent's RSS after tap 100 and at the
# end. RSS growth over 2500 taps: TAPS=2500 bench/churn.sh.
source "$(dirname "$0")/lib.sh"
bench_header "agent churn"
python3 "$bench_root/bench/agent.py" "$bin" churn --taps "${TAPS:-1000}" --on "${ON_MS:-300}" --off "${OFF_MS:-100}"
