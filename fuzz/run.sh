#!/usr/bin/env bash
# Runs the libFuzzer harnesses built by `make fuzz-build` (fuzz/README.md).
#   fuzz/run.sh runs N [HARNESS...]      each harness for N executions (make fuzz: 1,000,000)
#   fuzz/run.sh seconds S [HARNESS...]   each harness for S seconds (make fuzz-smoke, in make test)
# Seeds come from fuzz/corpus/<harness>/ (read only); what libFuzzer finds goes to
# .build-fuzz/corpus/<harness>/, crashes to .build-fuzz/artifacts/. One harness after another, at
# nice 15. Exit status 1 when any harness crashed, leaked, timed out or ran out of memory.
set -u
cd "$(dirname "$0")/.."
mode=${1:?usage: fuzz/run.sh runs N | seconds S [HARNESS...]}
amount=${2:?usage: fuzz/run.sh runs N | seconds S [HARNESS...]}
shift 2
harnesses=("$@")
if [ ${#harnesses[@]} -eq 0 ]; then harnesses=($(ls fuzz/harnesses)); fi
bin=${FUZZ_BIN:-.build-fuzz/release}
case $mode in
  runs) limit=(-runs="$amount") ;;
  seconds) limit=(-max_total_time="$amount") ;;
  *) echo "fuzz/run.sh: unknown mode '$mode'" >&2; exit 2 ;;
esac
mkdir -p .build-fuzz/artifacts .build-fuzz/logs
failed=0
printf '%-16s %12s %8s %9s %s\n' harness executions seconds 'exec/s' result
for harness in "${harnesses[@]}"; do
  [ -x "$bin/fuzz-$harness" ] || { echo "$bin/fuzz-$harness is missing: run 'make fuzz-build'" >&2; exit 2; }
  mkdir -p ".build-fuzz/corpus/$harness"
  log=".build-fuzz/logs/$harness.log"
  # -max_len 8192: the largest seed is a 4 KiB Classic 4K image; -timeout 10 s per input;
  # -rss_limit_mb 2048: an input that makes the code allocate gigabytes is a finding.
  start=$(date +%s)
  nice -n 15 "$bin/fuzz-$harness" "${limit[@]}" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix=".build-fuzz/artifacts/$harness-" \
    ".build-fuzz/corpus/$harness" "fuzz/corpus/$harness" >"$log" 2>&1
  status=$?
  executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  seconds=$(( $(date +%s) - start ))
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  result=ok
  if [ $status -ne 0 ]; then
    result="FAILED (exit $status, see $log)"
    failed=1
  fi
  printf '%-16s %12s %8s %9s %s\n' "$harness" "${executions:-?}" "$seconds" "${rate:-?}" "$result"
done
exit $failed
