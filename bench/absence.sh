#!/usr/bin/env bash
# The shortest absence the agent resolves (removed + scanned again in each of TRIALS tries,
# default 3), for each interval_ms in INTERVALS (default 100,250,500), with removal_grace_ms GRACE
# (default 600, the shipped value; GRACE=0 for the raw resolution). A virtual tag taken out of the
# field loses power, as a real one does: it comes back IDLE and misses the next presence check.
source "$(dirname "$0")/lib.sh"
bench_header "shortest absence resolved"
python3 "$bench_root/bench/agent.py" "$bin" absence --intervals "${INTERVALS:-100,250,500}" --grace "${GRACE:-600}" --trials "${TRIALS:-3}"
