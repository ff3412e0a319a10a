#!/usr/bin/env bash
# A fleet: AGENTS agents (default 10; up to 100), each with its own nfcbridge-sim, against one
# loopback mosquitto; TAPS rounds (default 20) of a tag placed on every reader at once, then
# removed. Prints broker CPU and bytes per scan, agent CPU per scan, latency, lost and late events.
# Then (CLUSTER=0 skips it) the same fleet spread over a two-node RabbitMQ 3.10 cluster
# (bench/cluster.py: half the agents on each node, every agent listing both, the subscriber on node
# B; CLUSTER_TAPS rounds, default TAPS), and node A killed: the failover time.
source "$(dirname "$0")/lib.sh"
bench_header "fleet"
python3 "$bench_root/bench/agent.py" "$bin" fleet --agents "${AGENTS:-10}" --taps "${TAPS:-20}"
if [ "${CLUSTER:-1}" != 0 ]; then
    python3 "$bench_root/bench/cluster.py" "$bin" --agents "${AGENTS:-10}" --taps "${CLUSTER_TAPS:-${TAPS:-20}}"
fi
