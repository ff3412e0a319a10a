#!/usr/bin/env bash
# scripts/test-swift.sh SWIFT BOUND_SECONDS LOG: every test, one at a time (`make test-swift`).
#
# - Line-buffered (stdbuf): the log and CI's view of it end at the last line the tests printed, not at a
#   4 KB pipe-buffer boundary.
# - Bounded: the whole suite takes about 11 min on 2 cores; a run still going after BOUND_SECONDS is
#   stopped with everything it started (swift-test runs the test binary in a process group of its own,
#   so the tree is walked through /proc), and the tests that started but never ended are named. A hung
#   test then fails the run with its name instead of running into CI's limit silently.
# - The ten slowest tests are printed at the end (where the time goes).
# - On failure, the failing tests and their issues are printed again at the end (and kept in
#   LOG's .summary beside it, which scripts/test-all.sh prints last), so a log's tail (all a CI summary
#   shows) names them.
set -uo pipefail
swift="$1" bound="$2" log="$3"

descendants() {
	local pid child
	for pid in "$@"; do
		for child in $(cat /proc/[0-9]*/stat 2>/dev/null | awk -v p="$pid" '$4 == p { print $1 }'); do
			echo "$child"
			descendants "$child"
		done
	done
}

mkdir -p "$(dirname "$log")"
stdbuf -oL -eL "$swift" test --skip-build --no-parallel > >(tee "$log") 2>&1 &
runner=$!
waited=0
while kill -0 "$runner" 2>/dev/null && [ "$waited" -lt "$bound" ]; do
	sleep 1
	waited=$((waited + 1))
done
timed_out=0
if kill -0 "$runner" 2>/dev/null; then
	timed_out=1
	tree="$runner $(descendants "$runner")"
	# shellcheck disable=SC2086
	kill -KILL $tree 2>/dev/null
fi
wait "$runner"
rc=$?
sleep 1 # let tee write the last lines

# Where the time went: the ten slowest tests.
echo "=== the slowest tests (from $log) ==="
sed -nE 's/^[^ ]+ Test (.*) (passed|failed) after ([0-9.]+) seconds( with [0-9]+ issues?)?\.$/\3 \1/p' "$log" |
	grep -v '^[0-9.]* run with ' | sort -rn | head -n 10 | awk '{ t = $1; sub(/^[^ ]+ /, ""); printf "%8.1f s  %s\n", t, $0 }'

summary="${log%.log}.summary"
: > "$summary"
if [ "$timed_out" -eq 1 ]; then
	rc=124
	{
	echo "=== the test run was still going after ${bound} s and was stopped; tests started but never ended: ==="
	awk '/^[^ ]+ Test .* started\.$/ && !/ Test case / && !/ Test run / {
	       t = $0; sub(/^[^ ]+ Test /, "", t); sub(/ started\.$/, "", t); open[t] = 1 }
	     /^[^ ]+ Test .* (passed|failed|skipped)/ { for (k in open) if (index($0, "Test " k " ") > 0) delete open[k] }
	     END { for (k in open) print "  " k }' "$log"
	} | tee -a "$summary"
fi
if [ "$rc" -ne 0 ]; then
	{
		echo "=== failed tests (from $log) ==="
		awk '/^✘ (Test|Suite) / && !/^✘ Test run with/ { print substr($0, 1, 400); follow = 1; next }
		     /^↳/ { if (follow) print substr($0, 1, 400); next } { follow = 0 }' "$log" | tail -n 60
	} | tee -a "$summary"
fi
exit "$rc"
