#!/bin/sh
# Per-reader credentials: adds (or changes) reader ID's password in the broker's password file and
# its block in the ACL, then tells a running mosquitto to reload. Run on the broker host:
#   sudo deploy/mosquitto/add-reader.sh reader-hall            # asks for the password
#   NFCBRIDGE_READER_PASSWORD=… sudo deploy/mosquitto/add-reader.sh reader-hall
# Files (override with the environment): NFCBRIDGE_PASSWD=/etc/mosquitto/nfcbridge.passwd,
# NFCBRIDGE_ACL=/etc/mosquitto/conf.d/nfcbridge.acl; NFCBRIDGE_NO_RELOAD=1 leaves mosquitto alone. The agent's config: id and mqtt.username = ID,
# mqtt.password_file = a file holding the password (mode 0600).
#
# A client certificate instead of a password (mTLS; the listener has require_certificate true and
# use_identity_as_username true, see nfcbridge.conf): NFCBRIDGE_CLIENT_CERT=1 makes ID.key and ID.crt
# (EC P-256, CN = ID, extendedKeyUsage clientAuth) signed by the broker's CA, sets no password, and
# appends the same ACL block: the broker takes the certificate's CN as the user name, so the ACL's %u
# patterns give the reader its own topics only.
#   sudo NFCBRIDGE_CLIENT_CERT=1 deploy/mosquitto/add-reader.sh reader-hall
# NFCBRIDGE_CA_CERT=/etc/mosquitto/certs/ca.crt, NFCBRIDGE_CA_KEY=/etc/mosquitto/certs/ca.key (keep the
# CA key off the network; any host holding it can run this), NFCBRIDGE_CERT_DIR=/etc/mosquitto/certs/readers,
# NFCBRIDGE_CERT_DAYS=825. Copy ID.crt and ID.key (mode 0600) to the reader's board: its config has
# mqtt.url mqtts://…, mqtt.ca_file (the CA), mqtt.cert_file and mqtt.key_file, no username or password.
set -eu
id=${1:?usage: add-reader.sh READER_ID}
case "$id" in *[!a-z0-9_-]* | "") echo "add-reader.sh: '$id' is not an agent id (a-z, 0-9, _ and -)" >&2; exit 2 ;; esac
passwd_file=${NFCBRIDGE_PASSWD:-/etc/mosquitto/nfcbridge.passwd}
acl_file=${NFCBRIDGE_ACL:-/etc/mosquitto/conf.d/nfcbridge.acl}
if [ -n "${NFCBRIDGE_CLIENT_CERT:-}" ]; then
    ca_cert=${NFCBRIDGE_CA_CERT:-/etc/mosquitto/certs/ca.crt}
    ca_key=${NFCBRIDGE_CA_KEY:-/etc/mosquitto/certs/ca.key}
    cert_dir=${NFCBRIDGE_CERT_DIR:-/etc/mosquitto/certs/readers}
    for file in "$ca_cert" "$ca_key"; do
        [ -r "$file" ] || { echo "add-reader.sh: cannot read $file (set NFCBRIDGE_CA_CERT / NFCBRIDGE_CA_KEY to the broker's CA)" >&2; exit 2; }
    done
    mkdir -p "$cert_dir"
    umask 077
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$cert_dir/$id.key" \
        -out "$cert_dir/$id.csr" -subj "/CN=$id" 2>/dev/null
    printf 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth\n' > "$cert_dir/$id.ext"
    openssl x509 -req -in "$cert_dir/$id.csr" -CA "$ca_cert" -CAkey "$ca_key" -CAcreateserial \
        -CAserial "$cert_dir/ca.srl" -out "$cert_dir/$id.crt" -days "${NFCBRIDGE_CERT_DAYS:-825}" \
        -extfile "$cert_dir/$id.ext" 2>/dev/null
    rm -f "$cert_dir/$id.csr" "$cert_dir/$id.ext"
    chmod 0644 "$cert_dir/$id.crt"
    credential="client certificate $cert_dir/$id.crt (key $cert_dir/$id.key, CN $id)"
else
    [ -e "$passwd_file" ] || { touch "$passwd_file"; chmod 0640 "$passwd_file"; }
    if [ -n "${NFCBRIDGE_READER_PASSWORD:-}" ]; then
        mosquitto_passwd -b "$passwd_file" "$id" "$NFCBRIDGE_READER_PASSWORD"
    else
        mosquitto_passwd "$passwd_file" "$id"
    fi
    credential="password set in $passwd_file"
fi
if ! grep -qx "user $id" "$acl_file"; then
    printf '\nuser %s\ntopic read homeassistant/status\n' "$id" >> "$acl_file"
fi
if [ -z "${NFCBRIDGE_NO_RELOAD:-}" ] && command -v systemctl >/dev/null && systemctl is-active --quiet mosquitto 2>/dev/null; then
    systemctl reload mosquitto || systemctl restart mosquitto
fi
echo "reader $id: $credential, ACL block in $acl_file"
