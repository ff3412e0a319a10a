#!/usr/bin/env bash
# make test, once the test build is done: every check, with everything but the test run itself run
# beside it.
#
# The test run (scripts/test-swift.sh, about 7 min) mostly waits on child processes: simulators,
# brokers, pcscd, the agent under test (the test process and the children it reaped used 30
# CPU-seconds in the first 540 s of a run at load 18). So the other steps run meanwhile, each into
# its own log under .build/side/, at nice 19; but SwiftPM's build system starts the compilers at
# nice 0 (ps shows them so), so the builds compete with the tests at equal priority, as they did
# when the release and fuzz builds first ran beside them:
#   1. the fuzz harnesses' build (.build-fuzz), then
#   2. the fuzz smoke (each harness for FUZZ_SMOKE_SECONDS), beside
#   3. the release build (RELEASE_SCRATCH=.build-release, so it never waits for the test run's lock
#      on .build, nor the test run for it), then
#   4. the packaging checks (make test-deploy).
# The smoke runs each harness for a fixed time, so running it beside a build costs it executions,
# not time. When the test run ends, the fuzz smoke's and the packaging checks' output is printed, then
# the time of each step, then what failed: the test failures last, where a CI summary's tail shows them.
# Each side step is bounded as the test run is (BOUND seconds): a step still going is stopped with what
# it started (timeout signals its process group) and counts as failed. timeout gives each step a process
# group of its own, which a Ctrl-C or a CI's cancel does not reach: so an INT or TERM to this script
# stops those groups too.
#
# Usage: scripts/test-all.sh MAKE [BOUND_SECONDS]   (the Makefile's $(MAKE) and $(TEST_BOUND))
set -uo pipefail
cd "$(dirname "$0")/.."
make=${1:-make}
bound=${2:-3600}
side=.build/side
mkdir -p "$side"
rm -f "$side"/*.status "$side"/*.log "$side/groups" "$side/tests-done"

# step NAME COMMAND...: COMMAND bounded, at nice 19 while the tests run (at 0 once they ended), its
# output in $side/NAME.log, then "EXIT_STATUS SECONDS" in $side/NAME.status.
step() {
	local name=$1 start rc niceness=19
	shift
	[ -f "$side/tests-done" ] && niceness=0
	start=$(date +%s)
	timeout -k 10 "$bound" nice -n "$niceness" "$@" > "$side/$name.log" 2>&1 &
	echo "$!" >> "$side/groups"
	[ -f "$side/tests-done" ] && renice -n 0 -g "$!" > /dev/null 2>&1
	wait "$!"
	rc=$?
	echo "$rc $(($(date +%s) - start))" > "$side/$name.status"
	return "$rc"
}

stop_steps() {
	local group
	for group in $(cat "$side/groups" 2> /dev/null); do kill -TERM -- "-$group" 2> /dev/null; done
	exit 130
}
trap stop_steps INT TERM

started=$(date +%s)
(
	if step fuzz-build "$make" --no-print-directory fuzz-build; then
		step fuzz-smoke "$make" --no-print-directory fuzz-smoke-run &
	fi
	step release "$make" --no-print-directory release RELEASE_SCRATCH=.build-release &&
		step packaging "$make" --no-print-directory test-deploy RELEASE_SCRATCH=.build-release
	wait
) &
side_pid=$!

tests=0
"$make" --no-print-directory test-swift-run || tests=$?
tests_done=$(date +%s)
# What still runs beside them needs not yield any more: on a shared machine, at nice 19 it would wait
# behind every other process. Lowering the niceness back to 0 needs privilege (CI runs as root); as a
# plain user the steps go on at 19.
touch "$side/tests-done"
for group in $(cat "$side/groups" 2> /dev/null); do renice -n 0 -g "$group" > /dev/null 2>&1; done

echo "=== waiting for the steps beside the tests (logs: $side/) ==="
wait "$side_pid"
ended=$(date +%s)

# The smoke's table and the packaging checks in full; a build's log only when it failed.
failed=()
times=""
for name in fuzz-build fuzz-smoke release packaging; do
	if [ ! -f "$side/$name.status" ]; then
		failed+=("=== $name did not run: a step before it failed (above) ===")
		continue
	fi
	read -r rc seconds < "$side/$name.status"
	times="$times, $name ${seconds} s"
	case $name in
	fuzz-smoke | packaging)
		echo
		echo "=== $name ($side/$name.log) ==="
		cat "$side/$name.log"
		;;
	*) [ "$rc" -eq 0 ] || { echo "=== $name, its log's end ($side/$name.log) ==="; tail -n 40 "$side/$name.log"; } ;;
	esac
	[ "$rc" -eq 0 ] || failed+=("=== $name failed (exit $rc$([ "$rc" -eq 124 ] && echo ": still going after $bound s, stopped"); above) ===")
done

echo
echo "=== make test: tests $((tests_done - started)) s; beside them$times; all done $((ended - started)) s ==="
for line in "${failed[@]}"; do echo "$line"; done
if [ "$tests" -ne 0 ]; then
	cat .build/test-swift.summary 2> /dev/null
	echo "=== tests failed ==="
fi
[ "$tests" -eq 0 ] && [ "${#failed[@]}" -eq 0 ]
