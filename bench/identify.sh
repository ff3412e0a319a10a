#!/usr/bin/env bash
# Identification: `nfcbridge scan --once` (product + NDEF) next to `nfc-list -t N` (anticollision
# only) on the same emulated tag, paired runs; then the frames of one session of each from libnfc's
# own frame log, with the line-rate floor and the rig floor (those frames replayed, bench/replay.py).
# DESFire EV2 (with an NDEF application) vs nfc-list -t 1; the ISO 14443-B Type 4 card (`type4_b`) vs nfc-list -t 8 (ISO14443B).
#   bench/identify.sh            RUNS=N CONFIGURATION=release BAUD=N KINDS="desfire_ev2 …" (only those rows)
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/scenarios.sh"
bench_header "identification: nfcbridge scan --once vs nfc-list -t N"
for row in "ntag215 1" "classic_1k 1" "type4 1" "felica_lite_s 2" "desfire_ev2 1" "type4_b 8"; do
    set -- $row
    kind=$1 mask=$2
    if [ -n "${KINDS:-}" ] && [[ " $KINDS " != *" $kind "* ]]; then continue; fi
    write_scenario "$kind" "$work/$kind.yaml"
    start_sim "$kind" "$work/$kind.yaml"
    dev="pn532_uart:$work/$kind.tty"
    echo "$kind (nfc-list -t $mask)"
    paired "nfcbridge scan --once" "nfc-list -t $mask" -- \
        "$bin/nfcbridge" scan --once --device "$dev" --timeout 10 -- \
        env LIBNFC_DEFAULT_DEVICE="$dev" nfc-list -t "$mask"
    logged "$work/ours.log" -- "$bin/nfcbridge" scan --once --device "$dev" --timeout 10
    logged "$work/peer.log" -- env LIBNFC_DEFAULT_DEVICE="$dev" nfc-list -t "$mask"
    echo "  frames nfcbridge: $(frames "$work/ours.log")"
    echo "  frames nfc-list : $(frames "$work/peer.log")"
    echo "  rig floor nfcbridge: $(replay "$work/ours.log" "$work/$kind.tty")"
    echo "  rig floor nfc-list : $(replay "$work/peer.log" "$work/$kind.tty")"
done
