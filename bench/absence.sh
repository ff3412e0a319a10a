#!/usr/bin/env bash
# The shortest absence the agent resolves (removed + scanned again, 5 tries of each length),
# for each interval_ms in INTERVALS (default 100,250,500), with removal_grace_ms GRACE (default 0).
source "$(dirname "$0")/lib.sh"
bench_header "shortest absence resolved"
python3 "$bench_root/bench/agent.py" "$bin" absence --intervals "${INTERVALS:-100,250,500}" --grace "${GRACE:-0}"
