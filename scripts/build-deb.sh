#!/usr/bin/env bash
# make deb: nfcbridge_<version>_<arch>.deb (the agent) and nfcbridge-sim_<version>_<arch>.deb (the
# PN532 emulator, its man page) with dpkg-deb, from `make install` into a staging root (PREFIX=/usr,
# the unit and udev rules under /lib as Debian places them) and deploy/debian/ (control-sim for the
# simulator's package): the agent's package holds the agent only.
# Usage: scripts/build-deb.sh VERSION ARCH OUT_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
version=$1 arch=$2 out=$3
stage="$out/nfcbridge_${version}_${arch}"
rm -rf "$stage"
mkdir -p "$stage/DEBIAN"
make --no-print-directory install DESTDIR="$PWD/$stage" PREFIX=/usr UNITDIR=/lib/systemd/system \
    UDEVDIR=/lib/udev/rules.d > "$out/install.log"

doc="$stage/usr/share/doc/nfcbridge"
strip --strip-unneeded "$stage/usr/bin/nfcbridge" "$stage/usr/bin/nfcbridge-sim"
gzip -9n "$stage"/usr/share/man/man1/*.1 "$stage"/usr/share/man/man5/*.5
# The simulator goes to its own package.
sim="$out/nfcbridge-sim_${version}_${arch}"
rm -rf "$sim"
mkdir -p "$sim/DEBIAN" "$sim/usr/bin" "$sim/usr/share/man/man1" "$sim/usr/share/doc/nfcbridge-sim"
mv "$stage/usr/bin/nfcbridge-sim" "$sim/usr/bin/"
mv "$stage/usr/share/man/man1/nfcbridge-sim.1.gz" "$sim/usr/share/man/man1/"
install -m 0644 docs/simulator.md "$sim/usr/share/doc/nfcbridge-sim/"
cat > "$doc/copyright" <<COPYRIGHT
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: nfcbridge
Comment: NFCBridge, built from its source tree by scripts/build-deb.sh. The Swift runtime
 (Swift project, Apache-2.0 with Runtime Library Exception) is linked in statically.

Files: *
Copyright: 2026 NFCBridge authors
License: NFCBridge
 See the project's repository.
COPYRIGHT
printf 'nfcbridge (%s) unstable; urgency=medium\n\n  * Built from the source tree (scripts/build-deb.sh).\n\n -- NFCBridge maintainers <maintainers@nfcbridge.example.org>  Tue, 01 Dec 2026 00:00:00 +0000\n' "$version" \
    | gzip -9n > "$doc/changelog.gz"

cp "$doc/copyright" "$sim/usr/share/doc/nfcbridge-sim/copyright"
sed 's/^nfcbridge (/nfcbridge-sim (/' < <(gzip -dc "$doc/changelog.gz") | gzip -9n > "$sim/usr/share/doc/nfcbridge-sim/changelog.gz"

install -D -m 0644 deploy/debian/lintian-overrides "$stage/usr/share/lintian/overrides/nfcbridge"
size=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
sed -e "s/@VERSION@/$version/" -e "s/@ARCH@/$arch/" -e "s/@SIZE@/$size/" deploy/debian/control > "$stage/DEBIAN/control"
install -m 0644 deploy/debian/conffiles "$stage/DEBIAN/conffiles"
install -m 0755 deploy/debian/postinst deploy/debian/prerm deploy/debian/postrm "$stage/DEBIAN/"
(cd "$stage" && find . -type f ! -path './DEBIAN/*' ! -path './etc/*' -printf '%P\0' | sort -z | xargs -0 md5sum) > "$stage/DEBIAN/md5sums"
# Files belong to root (--root-owner-group); the config's group is set by postinst.
dpkg-deb --root-owner-group -Zxz --build "$stage" "$out/nfcbridge_${version}_${arch}.deb"

size=$(du -sk --exclude=DEBIAN "$sim" | cut -f1)
sed -e "s/@VERSION@/$version/" -e "s/@ARCH@/$arch/" -e "s/@SIZE@/$size/" deploy/debian/control-sim > "$sim/DEBIAN/control"
(cd "$sim" && find . -type f ! -path './DEBIAN/*' -printf '%P\0' | sort -z | xargs -0 md5sum) > "$sim/DEBIAN/md5sums"
dpkg-deb --root-owner-group -Zxz --build "$sim" "$out/nfcbridge-sim_${version}_${arch}.deb"
