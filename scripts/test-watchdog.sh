#!/usr/bin/env bash
# scripts/test-watchdog.sh PID BOUND_SECONDS IDLE_SECONDS LOG: watches the test run PID (scripts/test-swift.sh)
# until it ends, and stops it early with the evidence when it hangs.
#
# - Hung: the CPU time of PID's whole process tree (every live descendant's user + system time, with
#   that of the children they reaped) grew by less than 1% of one core over IDLE_SECONDS, and LOG did
#   not grow meanwhile. A hung test sits in a wait that nothing will end: no thread of the test process
#   runs and no child works for it. A slow run that progresses (a RabbitMQ node booting, an agent
#   polling, a test printing its result) moves one or the other, so it never counts as hung.
# - Bounded: still going after BOUND_SECONDS (a hang with something still spinning in it).
# Either way it prints the tests that started but never ended (from LOG: Swift Testing's
# "◇ Test NAME started." without its "passed"/"failed"), the process tree, a gdb backtrace of every
# thread of each process of the tree that runs a program of this package (.build: the test binary,
# agents, simulators), the test names again, then kills the tree (SIGKILL) and exits 125 (hung) or
# 124 (bounded). It exits 0 once PID ended by itself (its status is the caller's `wait`).
# Processes that left the tree (a daemon that double-forked) are neither counted nor stopped.
# For the script's own test (EndToEndTests/TestWatchdogScriptTests): TEST_WATCHDOG_SAMPLE, the seconds
# between samples (default 5); TEST_WATCHDOG_GDB, the programs to backtrace (a glob, default */.build/*).
set -uo pipefail
pid="$1" bound="$2" idle="$3" log="$4"
sample=${TEST_WATCHDOG_SAMPLE:-5}
gdb_glob=${TEST_WATCHDOG_GDB:-*/.build/*}
ticks_per_second=$(getconf CLK_TCK 2> /dev/null || echo 100)
# 1% of one core over the window, at least one tick.
threshold=$((idle * ticks_per_second / 100))
[ "$threshold" -ge 1 ] || threshold=1

# "PID PPID TICKS" for every process, TICKS = utime + stime + cutime + cstime (proc(5): the fields
# after the command name, which may hold spaces and parentheses, so it is cut at the last ')').
processes() {
	cat /proc/[0-9]*/stat 2> /dev/null | awk '{
		line = $0; p = substr(line, 1, index(line, " ") - 1)
		sub(/^.*\) /, "", line); split(line, f, " ")
		print p, f[2], f[12] + f[13] + f[14] + f[15] }'
}

# The tree under $pid (itself first) with each process's ticks: "PID TICKS", depth-first.
tree() {
	processes | awk -v root="$pid" '
		{ parent[$1] = $2; ticks[$1] = $3; kids[$2] = kids[$2] " " $1 }
		function walk(p, depth,   n, k, i) {
			if (!(p in ticks)) return
			print p, ticks[p], depth
			n = split(kids[p], k, " ")
			for (i = 1; i <= n; i++) walk(k[i], depth + 1)
		}
		END { walk(root, 0) }'
}

tree_ticks() { tree | awk '{ s += $2 } END { print s + 0 }'; }

log_size() { stat -c %s "$log" 2> /dev/null || echo 0; }

# Tests that started but never ended, from Swift Testing's lines in LOG.
unfinished() {
	awk '/^[^ ]+ Test .* started\.$/ && !/ Test case / && !/ Test run / {
	       t = $0; sub(/^[^ ]+ Test /, "", t); sub(/ started\.$/, "", t); open[t] = 1 }
	     /^[^ ]+ Test .* (passed|failed|skipped)/ { for (k in open) if (index($0, "Test " k " ") > 0) delete open[k] }
	     END { for (k in open) print "  " k }' "$log" 2> /dev/null
}

report_and_kill() {
	local why=$1 pids p depth cmd
	echo
	echo "=== $why; tests started but never ended: ==="
	unfinished
	echo "=== the process tree (pid, CPU seconds, state, command) ==="
	tree > "${TMPDIR:-/tmp}/test-watchdog.$$"
	pids=$(awk '{ print $1 }' "${TMPDIR:-/tmp}/test-watchdog.$$")
	while read -r p ticks depth; do
		cmd=$(tr '\0' ' ' < "/proc/$p/cmdline" 2> /dev/null | cut -c 1-200)
		printf '%*s%s %d.%02d s %s %s\n' $((depth * 2)) '' "$p" $((ticks / ticks_per_second)) \
			$((ticks % ticks_per_second * 100 / ticks_per_second)) \
			"$(awk '{ sub(/^.*\) /, ""); print $1 }' "/proc/$p/stat" 2> /dev/null)" "$cmd"
	done < "${TMPDIR:-/tmp}/test-watchdog.$$"
	rm -f "${TMPDIR:-/tmp}/test-watchdog.$$"
	for p in $pids; do
		# shellcheck disable=SC2254
		case "$(readlink "/proc/$p/exe" 2> /dev/null)" in
		$gdb_glob)
			echo "=== gdb: every thread of $p ($(readlink "/proc/$p/exe")) ==="
			if command -v gdb > /dev/null; then
				timeout 180 gdb -p "$p" -batch -nx -ex 'set pagination off' -ex 'thread apply all bt' 2>&1 |
					grep -v '^\[New LWP\|^warning: .*separate debug\|^Reading symbols\|^Downloading' | head -n 6000
			else
				echo "gdb is not installed (make deps installs it)"
			fi
			;;
		esac
	done
	echo "=== $why; tests started but never ended (again): ==="
	unfinished
	# shellcheck disable=SC2086
	kill -KILL $pids 2> /dev/null
}

started=$(date +%s)
last_ticks=$(tree_ticks)
last_size=$(log_size)
quiet_since=$started
while kill -0 "$pid" 2> /dev/null; do
	sleep "$sample"
	now=$(date +%s)
	kill -0 "$pid" 2> /dev/null || break
	ticks=$(tree_ticks)
	size=$(log_size)
	# Progress: the tree used CPU (or shrank: a child that ended and was reaped outside it), or the log grew.
	if [ "$ticks" -ge $((last_ticks + threshold)) ] || [ "$ticks" -lt "$last_ticks" ] || [ "$size" -ne "$last_size" ]; then
		last_ticks=$ticks last_size=$size quiet_since=$now
	elif [ $((now - quiet_since)) -ge "$idle" ]; then
		report_and_kill "the test run used $(((ticks - last_ticks) * 1000 / ticks_per_second)) ms of CPU and printed nothing in $((now - quiet_since)) s: hung, stopped"
		exit 125
	fi
	if [ $((now - started)) -ge "$bound" ]; then
		report_and_kill "the test run was still going after ${bound} s and was stopped"
		exit 124
	fi
done
exit 0
