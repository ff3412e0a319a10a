#!/usr/bin/env bash
# Start-up: `nfcbridge version` next to `nfc-list -h` (paired runs), the shared libraries each
# loads, and the peak RSS of each (GNU time's maximum resident set size, when /usr/bin/time is
# installed).
source "$(dirname "$0")/lib.sh"
bench_header "start-up"
paired "nfcbridge version" "nfc-list -h" -- "$bin/nfcbridge" version -- sh -c 'nfc-list -h >/dev/null 2>&1; exit 0'
echo "  shared libraries: nfcbridge $(ldd "$bin/nfcbridge" | wc -l), nfc-list $(ldd "$(command -v nfc-list)" | wc -l)"
if [ -x /usr/bin/time ]; then
    for c in "$bin/nfcbridge version" "nfc-list -h"; do
        /usr/bin/time -f "  peak RSS %M kB: $c" $c >/dev/null 2>"$work/time.err" || true
        tail -1 "$work/time.err"
    done
fi
