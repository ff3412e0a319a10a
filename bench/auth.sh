#!/usr/bin/env bash
# DESFire authentication + a 32-byte enciphered read (issue 21): `nfcbridge dump --keys` next to
# `nfcbridge dump` without keys on the same emulated card, paired runs, for each MODEL:CIPHER (default
# desfire_ev1:aes = AuthenticateAES AAh + EV1 secure messaging, desfire_ev2:aes = AuthenticateEV2First
# 71h + EV2 secure messaging, desfire_ev2:2k3des and desfire_ev2:3k3des = AuthenticateISO 1Ah + EV1
# secure messaging over 3DES), desfire_d40:2k3des = the legacy Authenticate 0Ah + D40 secure
# messaging. The card has one application 123456h: a free 4-byte file and a 32-byte
# fully enciphered file behind key 1. Then the frames of one session of each, and the line-rate
# floor of the minimal sequence the key adds: 2 authentication exchanges + 1 ReadData, each one
# InDataExchange (host frame + ACK + answer frame) at $BAUD.
#   bench/auth.sh            RUNS=N CONFIGURATION=release BAUD=N MODELS="desfire_ev2:aes desfire_ev1:2k3des"
source "$(dirname "$0")/lib.sh"
bench_header "DESFire auth + 32-byte enciphered read: dump --keys vs dump"
declare -A keys=([aes]=4A1B9C0D2E3F405162738495A6B7C8D9 [2k3des]=00102031405060708090A0B0B0A09080
                 [3k3des]=00102031405060708090A0B0B0A090807060504030201000)
for row in ${MODELS:-desfire_ev1:aes desfire_ev2:aes desfire_ev2:2k3des desfire_ev2:3k3des desfire_d40:2k3des}; do
    model=${row%%:*}; cipher=${row##*:}; key=${keys[$cipher]}
    cat >"$work/keys.yaml" <<YAML
keys:
  bench:
    kind: desfire
    application: "123456"   # AID 123456h as NXP writes it (card order 56 34 12)
    key_number: 1
    cipher: $cipher
    key: $key
YAML
    chmod 600 "$work/keys.yaml"
    cat >"$work/$model-$cipher.yaml" <<YAML
tags:
  - id: tag
    type: $model
    uid: 04D1D2D3D4D5D6
    applications:
      - aid: 56 34 12
        keys: [{number: 1, $cipher: $key}]
        files:
          - {id: 1, type: standard, read: free, data: 46524545}
          - {id: 2, type: standard, comm: full, read: 1, read_write: 1, data: 000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F}
timeline: [{at: 0, place: tag}]
YAML
    start_sim "$model-$cipher" "$work/$model-$cipher.yaml"
    dev="pn532_uart:$work/$model-$cipher.tty"
    echo "$model $cipher"
    paired "dump --keys" "dump (no keys)" -- \
        "$bin/nfcbridge" dump --device "$dev" --keys "$work/keys.yaml" --timeout 10 -- \
        "$bin/nfcbridge" dump --device "$dev" --timeout 10
    "$bin/nfcbridge" dump --device "$dev" --keys "$work/keys.yaml" --compact --timeout 10 >"$work/with.json"
    # Compact JSON escapes the slash: "563412\/02".
    grep -qE '"name":"563412\\?/02"' "$work/with.json" && echo "  the enciphered file: read" || echo "  the enciphered file: NOT READ"
    logged "$work/with.log" -- "$bin/nfcbridge" dump --device "$dev" --keys "$work/keys.yaml" --timeout 10
    logged "$work/without.log" -- "$bin/nfcbridge" dump --device "$dev" --timeout 10
    echo "  frames with keys   : $(frames "$work/with.log")"
    echo "  frames without keys: $(frames "$work/without.log")"
    kill "${bench_pids[-1]}" 2>/dev/null || true
done
# The minimal sequence the key adds (ISO-wrapped APDUs; EV1 native frames are 5 bytes shorter a
# command): each exchange is InDataExchange D4 40 01 + APDU in a 7-byte PN532 frame, the reader's
# 6-byte ACK, and D5 41 00 + answer in a 7-byte frame.
python3 - "$baud" <<'PY'
import sys
baud = int(sys.argv[1]); byte_ms = 10 / baud * 1000
def exchange(apdu, answer): return (7 + 3 + apdu) + 6 + (7 + 3 + answer)
ev2 = [exchange(8, 16 + 2), exchange(5 + 32 + 1, 32 + 2), exchange(5 + 7 + 8 + 1, 48 + 8 + 2)]
ev1 = [exchange(2, 1 + 16), exchange(1 + 32, 1 + 16), exchange(8, 1 + 48)]
# AuthenticateISO: 8-byte (2K3DES) or 16-byte (3K3DES) random numbers; 32 data + CRC32 padded to 40.
iso2 = [exchange(5 + 1 + 1, 8 + 2), exchange(5 + 16 + 1, 8 + 2), exchange(5 + 7 + 1, 40 + 2)]
iso3 = [exchange(5 + 1 + 1, 16 + 2), exchange(5 + 32 + 1, 16 + 2), exchange(5 + 7 + 1, 40 + 2)]
for name, seq in (("EV2First + EV2 full ReadData", ev2), ("AuthenticateAES + EV1 full ReadData", ev1),
                  ("AuthenticateISO 2K3DES + full ReadData", iso2), ("AuthenticateISO 3K3DES + full ReadData", iso3)):
    total = sum(seq)
    print(f"floor {name}: 3 exchanges, {total} bytes on the line, {total * byte_ms:.1f} ms at {baud} baud")
PY
