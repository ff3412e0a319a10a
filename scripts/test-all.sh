#!/usr/bin/env bash
# make test, once the test build is done: every check, with the builds that only later steps need run
# beside the test run.
#
# The test run (scripts/test-swift.sh, about 11 min) mostly waits on child processes: simulators,
# brokers, pcscd, the agent under test. So the release build (for the packaging checks) and the
# fuzz harnesses' build run meanwhile, one after the other, at the lowest CPU priority (nice 19): a
# test that wants the CPU gets it first. The release build goes to its own scratch path
# (RELEASE_SCRATCH=.build-release) so it never waits for the test run's lock on .build, nor the test
# run for it. Then the fuzz smoke and the packaging checks run, and the test failures (if any) are
# printed last, where a CI summary's tail shows them.
#
# Usage: scripts/test-all.sh MAKE   (the Makefile's $(MAKE))
set -uo pipefail
cd "$(dirname "$0")/.."
make=${1:-make}
mkdir -p .build
side_log=.build/side-builds.log

started=$(date +%s)
(
	nice -n 19 "$make" --no-print-directory fuzz-build &&
		nice -n 19 "$make" --no-print-directory release RELEASE_SCRATCH=.build-release
) > "$side_log" 2>&1 &
side=$!

tests=0
"$make" --no-print-directory test-swift-run || tests=$?
tests_done=$(date +%s)

echo "=== waiting for the release and fuzz builds (log: $side_log) ==="
wait "$side"
side_rc=$?
builds_done=$(date +%s)
if [ "$side_rc" -ne 0 ]; then
	tail -n 40 "$side_log"
	echo "=== the release or fuzz build failed (whole log: $side_log) ==="
	exit 1
fi

fuzz=0
"$make" --no-print-directory fuzz-smoke-run || fuzz=$?
deploy=0
"$make" --no-print-directory test-deploy RELEASE_SCRATCH=.build-release || deploy=$?
ended=$(date +%s)

echo
echo "=== make test: tests $((tests_done - started)) s, release and fuzz builds beside them $((builds_done - started)) s," \
	"fuzz smoke and packaging checks $((ended - builds_done)) s ==="
[ "$fuzz" -eq 0 ] || echo "=== the fuzz smoke failed (above) ==="
[ "$deploy" -eq 0 ] || echo "=== the packaging checks failed (above) ==="
if [ "$tests" -ne 0 ]; then
	cat .build/test-swift.summary 2> /dev/null
	echo "=== tests failed ==="
fi
[ "$tests" -eq 0 ] && [ "$fuzz" -eq 0 ] && [ "$deploy" -eq 0 ]
