#!/usr/bin/env bash
# Scan-to-publish and removal latency of `nfcbridge run` with the shipped defaults
# (interval_ms 250, removal_grace_ms 600): TAPS taps (default 200), each placed after a random
# 0–500 ms pause (so taps fall at any phase of the poll cycle) until its `scanned` arrives at an
# MQTT subscriber, held 300 ms, then removed until its `removed` arrives.
source "$(dirname "$0")/lib.sh"
bench_header "agent latency"
python3 "$bench_root/bench/agent.py" "$bin" latency --taps "${TAPS:-200}" --interval "${INTERVAL:-250}"
