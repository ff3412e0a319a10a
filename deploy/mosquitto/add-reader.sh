#!/bin/sh
# Per-reader credentials: adds (or changes) reader ID's password in the broker's password file and
# its block in the ACL, then tells a running mosquitto to reload. Run on the broker host:
#   sudo deploy/mosquitto/add-reader.sh reader-hall            # asks for the password
#   NFCBRIDGE_READER_PASSWORD=… sudo deploy/mosquitto/add-reader.sh reader-hall
# Files (override with the environment): NFCBRIDGE_PASSWD=/etc/mosquitto/nfcbridge.passwd,
# NFCBRIDGE_ACL=/etc/mosquitto/conf.d/nfcbridge.acl; NFCBRIDGE_NO_RELOAD=1 leaves mosquitto alone. The agent's config: id and mqtt.username = ID,
# mqtt.password_file = a file holding the password (mode 0600).
set -eu
id=${1:?usage: add-reader.sh READER_ID}
case "$id" in *[!a-z0-9_-]* | "") echo "add-reader.sh: '$id' is not an agent id (a-z, 0-9, _ and -)" >&2; exit 2 ;; esac
passwd_file=${NFCBRIDGE_PASSWD:-/etc/mosquitto/nfcbridge.passwd}
acl_file=${NFCBRIDGE_ACL:-/etc/mosquitto/conf.d/nfcbridge.acl}
[ -e "$passwd_file" ] || { touch "$passwd_file"; chmod 0640 "$passwd_file"; }
if [ -n "${NFCBRIDGE_READER_PASSWORD:-}" ]; then
    mosquitto_passwd -b "$passwd_file" "$id" "$NFCBRIDGE_READER_PASSWORD"
else
    mosquitto_passwd "$passwd_file" "$id"
fi
if ! grep -qx "user $id" "$acl_file"; then
    printf '\nuser %s\ntopic read homeassistant/status\n' "$id" >> "$acl_file"
fi
if [ -z "${NFCBRIDGE_NO_RELOAD:-}" ] && command -v systemctl >/dev/null && systemctl is-active --quiet mosquitto 2>/dev/null; then
    systemctl reload mosquitto || systemctl restart mosquitto
fi
echo "reader $id: password set in $passwd_file, ACL block in $acl_file"
