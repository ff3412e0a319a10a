#!/usr/bin/env bash
# A fleet: AGENTS agents (default 10; up to 100), each with its own nfcbridge-sim, against one
# loopback mosquitto; TAPS rounds (default 20) of a tag placed on every reader at once, then
# removed. Prints broker CPU and bytes per scan, agent CPU per scan, latency, lost and late events.
source "$(dirname "$0")/lib.sh"
bench_header "fleet"
python3 "$bench_root/bench/agent.py" "$bin" fleet --agents "${AGENTS:-10}" --taps "${TAPS:-20}"
