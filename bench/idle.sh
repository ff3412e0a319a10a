#!/usr/bin/env bash
# Idle agent with the shipped defaults over SECONDS (default 60): CPU, RSS, open FDs and PN532
# commands per second (the simulator's count), with an empty field and with a tag resting on it.
source "$(dirname "$0")/lib.sh"
bench_header "agent idle"
python3 "$bench_root/bench/agent.py" "$bin" idle --seconds "${SECONDS_IDLE:-60}"
