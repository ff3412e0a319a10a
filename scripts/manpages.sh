#!/usr/bin/env bash
# Generates the man pages from the texts the programs print, so they cannot drift apart:
#   nfcbridge.1       nfcbridge --help, then `nfcbridge help <command>` for every command
#   nfcbridge-sim.1   nfcbridge-sim --help
#   nfcbridge.yaml.5  config/nfcbridge.example.yaml (every key, its default and its meaning)
# Usage: scripts/manpages.sh BIN_DIR OUT_DIR   (make man; scripts/test-deploy.sh checks the copies)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$1 out=$2
mkdir -p "$out"
version=$("$bin/nfcbridge" --version)

# Text as a roff no-fill block: backslashes escaped, lines starting with . or ' protected.
verbatim() {
    echo ".nf"
    sed -e 's/\\/\\e/g' -e "s/^\([.']\)/\\\\\&\1/"
    echo ".fi"
}

{
    echo ".TH NFCBRIDGE 1 \"\" \"nfcbridge $version\" \"NFCBridge\""
    echo ".SH NAME"
    echo "nfcbridge \\- NFC reader agent and tools: libnfc tags to MQTT events"
    echo ".SH SYNOPSIS"
    "$bin/nfcbridge" --help | verbatim
    echo ".SH COMMANDS"
    for command in $("$bin/nfcbridge" --help | sed -n 's/^  \([a-z-]\+\)  .*/\1/p'); do
        echo ".SS $command"
        "$bin/nfcbridge" help "$command" | verbatim
    done
    cat <<'ROFF'
.SH ERRORS
A failure prints one line of JSON on standard error,
.B {"error":{"code":...,"message":...}},
with a stable snake_case code, and exits 1 (input, tag or reader failed), 2 (usage, configuration,
or a reader that cannot be opened) or 3 (no tag before \-\-timeout).
.SH ENVIRONMENT
.TP
.B NFCBRIDGE_MQTT_PASSWORD
replaces the password read from mqtt.password_file.
.TP
.B STATE_DIRECTORY
the state directory when neither \-\-state\-dir nor state_dir is given (systemd sets it).
.TP
.B LIBNFC_LOG_LEVEL
libnfc's own logging; off (0) unless set.
.TP
.B LIBNFC_DEVICE, LIBNFC_DEFAULT_DEVICE, LIBNFC_AUTO_SCAN
libnfc's device selection when no connstring is given.
.SH FILES
.TP
.I /etc/nfcbridge/config.yaml
the agent's configuration, see
.BR nfcbridge.yaml (5).
.TP
.I /var/lib/nfcbridge
the offline spool and the event sequence number.
.SH SEE ALSO
.BR nfcbridge.yaml (5),
.BR nfcbridge-sim (1),
.BR nfc-list (1),
.BR mosquitto (8);
/usr/share/doc/nfcbridge/ (getting-started.md, cli.md, mqtt.md, home-assistant.md, fleet.md).
ROFF
} > "$out/nfcbridge.1"

{
    echo ".TH NFCBRIDGE-SIM 1 \"\" \"nfcbridge $version\" \"NFCBridge\""
    echo ".SH NAME"
    echo "nfcbridge-sim \\- an emulated PN532 with virtual tags on a pseudo-terminal, for libnfc; or their PC/SC card for vsmartcard's vpcd"
    echo ".SH SYNOPSIS"
    "$bin/nfcbridge-sim" --help | verbatim
    cat <<'ROFF'
.SH SEE ALSO
.BR nfcbridge (1);
/usr/share/doc/nfcbridge/simulator.md (scenarios, the control channel).
ROFF
} > "$out/nfcbridge-sim.1"

{
    echo ".TH NFCBRIDGE.YAML 5 \"\" \"nfcbridge $version\" \"NFCBridge\""
    echo ".SH NAME"
    echo "nfcbridge.yaml \\- configuration of the nfcbridge agent (/etc/nfcbridge/config.yaml)"
    echo ".SH DESCRIPTION"
    echo "YAML read by"
    echo ".BR \"nfcbridge run\" ."
    echo "The annotated example below lists every key with its default; it is installed as"
    echo ".I /usr/share/doc/nfcbridge/nfcbridge.example.yaml"
    echo "and as the first /etc/nfcbridge/config.yaml."
    echo ".SH EXAMPLE"
    verbatim < config/nfcbridge.example.yaml
    cat <<'ROFF'
.SH SEE ALSO
.BR nfcbridge (1)
ROFF
} > "$out/nfcbridge.yaml.5"
echo "man pages for nfcbridge $version in $out"
