#!/usr/bin/env bash
# scripts/test-swift.sh SWIFT BOUND_SECONDS LOG [IDLE_SECONDS]: every test, one at a time (`make test-swift`).
#
# - Line-buffered (stdbuf): the log and CI's view of it end at the last line the tests printed, not at a
#   4 KB pipe-buffer boundary.
# - Watched (scripts/test-watchdog.sh): a run whose whole process tree used no CPU and printed nothing
#   for IDLE_SECONDS (default 300) is hung: the tests that started but never ended are named, the
#   process tree and a gdb backtrace of every thread of the test binary (and of the agents and
#   simulators it started) are printed, and the tree is killed, so CI fails within minutes with the
#   evidence instead of running into its limit. A slow run that progresses never counts as hung.
# - Bounded: the whole suite takes about 11 min on 2 cores; a run still going after BOUND_SECONDS is
#   stopped the same way (swift-test runs the test binary in a process group of its own, so the tree
#   is walked through /proc).
# - The ten slowest tests are printed at the end (where the time goes).
# - On failure, the failing tests and their issues are printed again at the end (and kept in
#   LOG's .summary beside it, which scripts/test-all.sh prints last), so a log's tail (all a CI summary
#   shows) names them.
set -uo pipefail
swift="$1" bound="$2" log="$3" idle="${4:-300}"

mkdir -p "$(dirname "$log")"
stdbuf -oL -eL "$swift" test --skip-build --no-parallel > >(tee "$log") 2>&1 &
runner=$!
summary="${log%.log}.summary"
: > "$summary"
"$(dirname "$0")/test-watchdog.sh" "$runner" "$bound" "$idle" "$log" > "$log.watchdog"
watched=$?
wait "$runner"
rc=$?
sleep 1 # let tee write the last lines

# Where the time went: the ten slowest tests.
echo "=== the slowest tests (from $log) ==="
sed -nE 's/^[^ ]+ Test (.*) (passed|failed) after ([0-9.]+) seconds( with [0-9]+ issues?)?\.$/\3 \1/p' "$log" |
	grep -v '^[0-9.]* run with ' | sort -rn | head -n 10 | awk '{ t = $1; sub(/^[^ ]+ /, ""); printf "%8.1f s  %s\n", t, $0 }'

if [ "$watched" -ne 0 ]; then
	# The watchdog's report: the backtraces in full here, the test names again in the summary.
	rc=$watched
	cat "$log.watchdog"
	sed -n '/never ended (again): ===$/,$p' "$log.watchdog" | head -n 40 >> "$summary"
fi
if [ "$rc" -ne 0 ]; then
	{
		echo "=== failed tests (from $log) ==="
		awk '/^✘ (Test|Suite) / && !/^✘ Test run with/ { print substr($0, 1, 400); follow = 1; next }
		     /^↳/ { if (follow) print substr($0, 1, 400); next } { follow = 0 }' "$log" | tail -n 60
	} | tee -a "$summary"
fi
exit "$rc"
