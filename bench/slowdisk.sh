#!/usr/bin/env bash
# Slow disk: TAPS taps (default 50) of 400 ms on / 400 ms off while strace delays every fsync the
# agent makes by each of DELAYS (default 100ms,1s); prints taps lost (expected: 0, issue 20).
source "$(dirname "$0")/lib.sh"
bench_header "agent on a slow disk"
python3 "$bench_root/bench/agent.py" "$bin" slowdisk --taps "${TAPS:-50}" --on "${ON_MS:-400}" --off "${OFF_MS:-400}" \
  --interval "${INTERVAL_MS:-100}" --delays "${DELAYS:-100ms,1s}"
