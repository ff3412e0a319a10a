#!/usr/bin/env bash
# Encode jobs (issue 22): tags per minute for an NTAG213 with a 40-byte URL, write + verify and
# write + verify + lock, through `nfcbridge encode` (one 1-serial job per tag, policy overwrite),
# next to `nfc-mfultralight w` per tag, and against the line-rate floor of the minimal command
# sequence (WRITEs of the TLV's pages, READs of them back; + the three lock WRITEs). Per tag = the
# time on the tag (`ms` of the result line: tag in hand → verified), tag change excluded.
#   bench/encode.sh          RUNS=N CONFIGURATION=release BAUD=N
source "$(dirname "$0")/lib.sh"
bench_header "encode: nfcbridge encode (NTAG213, 40-byte URL) vs nfc-mfultralight w, and the floor"
url='https://example.com/tag/{serial:016d}'   # 40 characters once filled
cat >"$work/tags.yaml" <<YAML
tags:
  - {id: tag, type: ntag213, uid: 04A1B2C3D4E5F6}
timeline: [{at: 0, place: tag}]
YAML
start_sim enc "$work/tags.yaml"
dev="pn532_uart:$work/enc.tty"
encode() {  # encode JOB SERIAL [--lock]: one 1-serial job; prints the result line
    "$bin/nfcbridge" encode --device "$dev" --state-dir "$work/state" --job "$1" --uri "$url" --serials "$2:1" \
        --policy overwrite --timeout 10 "${@:3}" | grep '"result"'
}
field() { python3 -c 'import json,sys; print(json.loads(sys.stdin.read())[sys.argv[1]])' "$1"; }

# One write, then a dump of it for nfc-mfultralight w (the same content each time).
encode warm 1000 >/dev/null
env LIBNFC_DEFAULT_DEVICE="$dev" nfc-mfultralight r "$work/image.mfd" >/dev/null
: >"$work/ours.ms"; : >"$work/lock.ms"; : >"$work/times"
for i in $(seq 1 "$runs"); do
    line=$(encode "w$i" $((2000 + i)))
    [ "$(echo "$line" | field result)" = ok ] || { echo "write failed: $line" >&2; exit 1; }
    echo "$line" | field ms >>"$work/ours.ms"
    start=$(date +%s%N)
    printf 'n\nn\nn\nn\n' | env LIBNFC_DEFAULT_DEVICE="$dev" nfc-mfultralight w "$work/image.mfd" >/dev/null 2>&1
    end=$(date +%s%N)
    echo $(((end - start) / 1000000)) >>"$work/times"
    # A fresh tag for the lock (a locked tag stays locked).
    control enc '{"cmd":"remove","all":true}' >/dev/null
    control enc "{\"cmd\":\"place\",\"tag\":{\"id\":\"l$i\",\"type\":\"ntag213\",\"uid\":\"04B1B2C3D4E5$(printf %02X "$i")\"}}" >/dev/null
    line=$(encode "l$i" $((3000 + i)) --lock)
    [ "$(echo "$line" | field result)" = ok ] || { echo "write+lock failed: $line" >&2; exit 1; }
    echo "$line" | field ms >>"$work/lock.ms"
    control enc '{"cmd":"remove","all":true}' >/dev/null
    control enc '{"cmd":"place","id":"tag"}' >/dev/null
done
# Frames of one encode session (open + poll + the tag) and of one nfc-mfultralight w.
LIBNFC_LOG_LEVEL=3 "$bin/nfcbridge" encode --device "$dev" --state-dir "$work/state" --job frames --uri "$url" \
    --serials 9000:1 --policy overwrite --timeout 10 >/dev/null 2>"$work/ours.log"
(printf 'n\nn\nn\nn\n' | LIBNFC_LOG_LEVEL=3 LIBNFC_DEFAULT_DEVICE="$dev" nfc-mfultralight w "$work/image.mfd") >/dev/null 2>"$work/peer.log"
echo "  frames nfcbridge encode (whole session): $(frames "$work/ours.log")"
echo "  frames nfc-mfultralight w (whole session): $(frames "$work/peer.log")"
python3 - "$work" "$baud" <<'PY'
import statistics, sys
work, baud = sys.argv[1], int(sys.argv[2])
byte_ms = 10 / baud * 1000
ms = lambda name: [float(x) for x in open(f"{work}/{name}").read().split()]
# The message: URI record, https:// abbreviated (01h… 04h), 32 characters after it.
payload = 1 + len("example.com/tag/") + 16
record = 4 + payload                      # header, type length, payload length, 'U'
tlv = 2 + record + 1                      # 03 L … FE
pages = -(-tlv // 4)
write_bytes = 16 + 6 + 10                 # InDataExchange(A2 pp 4 bytes) + ACK + status answer
read_bytes = 12 + 6 + 26                  # InDataExchange(30 pp) + ACK + 16 bytes answer
floor = pages * write_bytes * byte_ms + -(-pages // 4) * read_bytes * byte_ms
floor_lock = floor + 3 * write_bytes * byte_ms   # static lock bytes, dynamic lock page, CC read-only
ours, lock, peer = ms("ours.ms"), ms("lock.ms"), ms("times")
def row(label, values, base):
    m = statistics.median(values)
    print(f"  {label}: median {m:.1f} ms/tag (min {min(values):.0f}, max {max(values):.0f}) = {60000 / m:.0f} tags/min; {m / base:.2f}x the floor")
print(f"  message {record} bytes, TLV {tlv} bytes = {pages} pages; floor write+verify {floor:.1f} ms ({pages} WRITE + {-(-pages // 4)} READ at {baud} baud), + lock {floor_lock:.1f} ms")
row("nfcbridge encode, write+verify", ours, floor)
row("nfcbridge encode, write+verify+lock", lock, floor_lock)
m = statistics.median(peer)
print(f"  nfc-mfultralight w (whole process: open, select, all user pages): median {m:.0f} ms = {60000 / m:.0f} tags/min")
PY
