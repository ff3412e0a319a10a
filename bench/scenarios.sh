# Scenario files for the bench scripts (sourced after lib.sh): write_scenario KIND FILE puts one
# tag of KIND in the field from the start. Kinds: nfcbridge-sim scenario types (docs/simulator.md).
write_scenario() {
    local kind=$1 file=$2 extra=""
    case "$kind" in
        ntag*|ultralight*) extra="    uid: 04A1B2C3D4E5F6
    ndef:
      - uri: https://example.com/nfcbridge
      - text: Benchmark tag" ;;
        classic_1k|classic_4k) extra="    uid: DEADBEEF
    blocks:
      4: 00112233445566778899AABBCCDDEEFF" ;;
        type4) extra="    uid: 04C1C2C3C4C5C6
    ndef: [{uri: https://example.org/type4}]" ;;
        type4_b) extra="    uid: 1A2B3C4D
    ndef: [{uri: https://example.org/type4b}]" ;;
        felica*) extra="    idm: 012E4CD1A1B2C3D4
    ndef: [{text: FeliCa bench}]" ;;
        desfire*|ntag424*) extra="    uid: 04D1D2D3D4D5D6
    ndef: [{uri: https://example.org/desfire}]" ;;
    esac
    cat >"$file" <<YAML
tags:
  - id: tag
    type: $kind
$extra
timeline: [{at: 0, place: tag}]
YAML
}
