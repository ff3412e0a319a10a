#!/bin/bash
# make test-ha: the agent against a real Home Assistant Core (not part of `make test` / CI).
#
# Installs Home Assistant Core $HA_VERSION from PyPI into a venv (.build/test-ha/venv, kept between
# runs) on Debian's python3, then runs scripts/test-ha.py with it: a loopback mosquitto, the
# agent on nfcbridge-sim, Home Assistant with the MQTT integration, and checks through Home
# Assistant's REST and websocket APIs (see test-ha.py). Needs the debug build (make build) and
# network access to PyPI for the first install (a few minutes and ~400 MB).
#
# HA_VERSION: the newest release whose Requires-Python accepts Debian 12's Python 3.11 is 2024.3.3
# (2024.4.0 and later require Python >= 3.12).
set -euo pipefail
cd "$(dirname "$0")/.."
HA_VERSION=${HA_VERSION:-2024.3.3}
PYTHON=${PYTHON:-/usr/bin/python3}
VENV=${VENV:-.build/test-ha/venv}
BIN=${BIN:-$(swift build --show-bin-path)}

for b in nfcbridge nfcbridge-sim; do
  [ -x "$BIN/$b" ] || { echo "$BIN/$b is missing: run 'make build' first" >&2; exit 1; }
done
command -v mosquitto >/dev/null || { echo "mosquitto is missing: run 'make deps'" >&2; exit 1; }

if [ ! -x "$VENV/bin/hass" ] || [ "$("$VENV/bin/python" -c 'import homeassistant.const as c; print(c.__version__)' 2>/dev/null)" != "$HA_VERSION" ]; then
  echo "Installing Home Assistant Core $HA_VERSION into $VENV (slow the first time)"
  "$PYTHON" -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --upgrade pip
  # paho-mqtt: the MQTT integration's requirement (components/mqtt/manifest.json of this release),
  # installed now so Home Assistant does not install it at its first start. josepy<2: the acme
  # release this HA pulls in uses josepy.ComparableX509, which josepy 2 removed (every HTTP
  # request then fails in hass_nabucasa's import).
  "$VENV/bin/pip" install --quiet "homeassistant==$HA_VERSION" "paho-mqtt==1.6.1" "josepy<2"
fi

exec "$VENV/bin/python" scripts/test-ha.py --bin "$BIN" "$@"
