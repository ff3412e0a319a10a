#!/usr/bin/env bash
# Dumps: `nfcbridge dump --format mfd` next to libnfc's `nfc-mfultralight r` (Type 2) and
# `nfc-mfclassic r a u` (Classic 1K, default keys) on the same emulated tag, paired runs; checks
# that both wrote the same image; then the frames of one session of each, the line-rate floor
# (frames.py) and the rig floor: the same frames replayed with no host work (replay.py).
# Classic 4K: nfcbridge only (nfc-mfclassic's magic-card probe halts the card).
#   bench/dump.sh            RUNS=N CONFIGURATION=release BAUD=N KINDS="ntag213 …"
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/scenarios.sh"
bench_header "dumps: nfcbridge dump --format mfd vs nfc-mfultralight r / nfc-mfclassic r a u"
for kind in ${KINDS:-ntag213 ntag215 ntag216 ultralight_ev1_21 classic_1k classic_4k}; do
    write_scenario "$kind" "$work/$kind.yaml"
    start_sim "$kind" "$work/$kind.yaml"
    dev="pn532_uart:$work/$kind.tty"
    ours=("$bin/nfcbridge" dump --device "$dev" --format mfd --output "$work/ours.mfd" --timeout 10)
    case "$kind" in
        classic_1k) peer=(env LIBNFC_DEFAULT_DEVICE="$dev" nfc-mfclassic r a u "$work/peer.mfd"); name="nfc-mfclassic r a u" ;;
        classic_4k) peer=(); name="" ;;
        *) peer=(env LIBNFC_DEFAULT_DEVICE="$dev" nfc-mfultralight r "$work/peer.mfd"); name="nfc-mfultralight r" ;;
    esac
    echo "$kind${name:+ (vs $name)}"
    if [ ${#peer[@]} -gt 0 ]; then
        paired "nfcbridge dump" "$name" -- "${ours[@]}" -- "${peer[@]}"
        if cmp -s "$work/ours.mfd" "$work/peer.mfd"; then echo "  images: identical"; else echo "  images: DIFFERENT"; fi
        logged "$work/peer.log" -- "${peer[@]}"
    else
        paired "nfcbridge dump" "nfcbridge dump (again)" -- "${ours[@]}" -- "${ours[@]}"
    fi
    logged "$work/ours.log" -- "${ours[@]}"
    echo "  frames nfcbridge: $(frames "$work/ours.log")"
    echo "  rig floor nfcbridge (its frames replayed, bench/replay.py): $(replay "$work/ours.log" "$work/$kind.tty")"
    if [ ${#peer[@]} -gt 0 ]; then
        echo "  frames $name: $(frames "$work/peer.log")"
        echo "  rig floor $name: $(replay "$work/peer.log" "$work/$kind.tty")"
    fi
    kill "${bench_pids[-1]}" 2>/dev/null || true
done
