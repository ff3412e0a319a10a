#!/usr/bin/env bash
# The packaging checks `make test` runs after the Swift tests (make test-deploy):
#   1. the .deb: dpkg-deb --info / --contents, every expected file, conffiles, Depends covering
#      every shared library the binary loads, lintian (errors fail);
#   2. installed into a throw-away root with dpkg -x: the binary runs (--version, --help) without
#      the Swift toolchain (static Swift runtime; ldd names no libswift*);
#   3. postinst against stub commands: the user, its groups (only those that exist), the state
#      directory and the ownership of what is in it, and the configuration's owner;
#   4. systemd-analyze verify on the unit as installed (ExecStart points into the throw-away root);
#   5. the udev rules' syntax; 6. the man pages equal what scripts/manpages.sh makes from --help;
#   7. the mosquitto ACL loads without warnings; 8. hadolint on deploy/Dockerfile when installed;
#   9. the simulator's own package: nfcbridge-sim, its man page, Depends, lintian; the agent's lacks it;
#  10. make demo's package list (the demo's only) and its screen (no discovery documents).
# Usage: scripts/test-deploy.sh nfcbridge_V_A.deb [nfcbridge-sim_V_A.deb]
set -euo pipefail
cd "$(dirname "$0")/.."
deb=$(realpath "$1")
sim_deb=$(realpath "${2:-$(dirname "$1")/$(basename "$1" | sed 's/^nfcbridge_/nfcbridge-sim_/')}")
work=$(mktemp -d /tmp/nfcbridge-deploy-test.XXXXXX)
trap 'rm -rf "$work"' EXIT
failures=0
pass() { echo "ok   $*"; }
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
check() { local what=$1; shift; if "$@" > "$work/out" 2>&1; then pass "$what"; else fail "$what"; sed 's/^/     /' "$work/out"; fi; }

echo "== $deb ($(du -h "$deb" | cut -f1))"
# 1. The package.
dpkg-deb --info "$deb" > "$work/info"
dpkg-deb --contents "$deb" > "$work/contents"
name=$(basename "$deb")
[[ $name =~ ^nfcbridge_[0-9]+\.[0-9]+\.[0-9]+_[a-z0-9]+\.deb$ ]] && pass "file name $name" || fail "file name $name"
for field in "Package: nfcbridge" "Depends: .*libnfc6" "Depends: .*libmosquitto1" "Depends: .*libyaml-0-2" \
    "Depends: .*libssl3" "Depends: .*libpcsclite1"; do
    grep -Eq "^ $field" "$work/info" && pass "control $field" || fail "control $field"
done
for file in ./usr/bin/nfcbridge ./lib/systemd/system/nfcbridge.service ./lib/systemd/system/nfcbridge@.service \
    ./lib/udev/rules.d/60-nfcbridge.rules ./etc/modprobe.d/nfcbridge-blacklist.conf ./etc/nfcbridge/config.yaml \
    ./usr/share/man/man1/nfcbridge.1.gz ./usr/share/man/man5/nfcbridge.yaml.5.gz \
    ./usr/share/doc/nfcbridge/README.md ./usr/share/doc/nfcbridge/getting-started.md \
    ./usr/share/doc/nfcbridge/home-assistant.md ./usr/share/doc/nfcbridge/fleet.md ./usr/share/doc/nfcbridge/copyright \
    ./usr/share/doc/nfcbridge/mosquitto/nfcbridge.acl; do
    grep -q " $file\$" "$work/contents" && pass "contains $file" || fail "contains $file"
done
grep -q 'nfcbridge-sim' "$work/contents" && fail "the agent's package holds the simulator: $(grep nfcbridge-sim "$work/contents" | awk '{print $NF}' | tr '\n' ' ')" \
    || pass "the agent's package holds no simulator"
dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./conffiles > "$work/conffiles"
grep -qx /etc/nfcbridge/config.yaml "$work/conffiles" && pass "config.yaml is a conffile" || fail "config.yaml is a conffile"
if command -v lintian > /dev/null; then
    # Errors fail; warnings are shown (the package's own lintian-overrides say why it differs).
    if lintian --fail-on error --tag-display-limit 0 "$deb" > "$work/lintian" 2>&1; then
        pass "lintian (no errors)"
    else
        fail "lintian"
    fi
    sed 's/^/     /' "$work/lintian"
else
    fail "lintian is not installed (make deps installs it)"
fi

# 2. Installed into a throw-away root.
root="$work/root"
dpkg -x "$deb" "$root"
# The simulator's package beside it (its man page is checked in step 6 with the others).
dpkg -x "$sim_deb" "$root"
check "installed nfcbridge --version" "$root/usr/bin/nfcbridge" --version
grep -qx "$(dpkg-deb --field "$deb" Version)" "$work/out" && pass "--version is the package version" || fail "--version: $(cat "$work/out")"
check "installed nfcbridge --help" "$root/usr/bin/nfcbridge" --help
for binary in "$root/usr/bin/nfcbridge" "$root/usr/bin/nfcbridge-sim"; do
    if readelf -S "$binary" | grep -q '\.symtab'; then fail "$(basename "$binary") is not stripped (it has a .symtab)"
    else pass "$(basename "$binary") is stripped"; fi
done
check "installed nfcbridge-sim --help" "$root/usr/bin/nfcbridge-sim" --help
# The agent's release link (Package.swift): packed relative relocations and no exported symbols
# (issue 25: 1.1 MB of relocations and 880 kB of dynamic symbols were read at every start and stayed
# in its RSS). A build that lost the linker flags has RELACOUNT and thousands of dynamic symbols.
if readelf -d "$root/usr/bin/nfcbridge" | grep -q '(RELR)'; then pass "nfcbridge has packed relative relocations (DT_RELR)"
else fail "nfcbridge has no DT_RELR: Package.swift's release linker flags were not applied"; fi
exported=$(readelf -W --dyn-syms "$root/usr/bin/nfcbridge" | awk '$7 != "UND" && $5 == "GLOBAL"' | wc -l)
if [ "$exported" -lt 100 ]; then pass "nfcbridge exports $exported symbols"
else fail "nfcbridge exports $exported symbols (-export-dynamic of the static Swift runtime is back)"; fi
ldd "$root/usr/bin/nfcbridge" > "$work/ldd"
if grep -q 'libswift\|libFoundation\|libdispatch\|not found' "$work/ldd"; then fail "static Swift runtime: ldd shows"; sed 's/^/     /' "$work/ldd"; else pass "no Swift runtime in ldd"; fi
# libcrypto, libssl and libmosquitto are opened with dlopen when a command first needs them (issue 25:
# bound at start they were most of ld.so's work for every one-shot command); libsystemd is not used.
if readelf -d "$root/usr/bin/nfcbridge" | grep -E 'NEEDED.*(libcrypto|libssl|libmosquitto|libsystemd)'; then
    fail "nfcbridge links a library it should open when needed (above)"
else pass "nfcbridge does not load libcrypto, libssl, libmosquitto or libsystemd at start"; fi
# libstdc++ is linked in (Package.swift, scripts/static-libstdc++: ~1 MB of the agent's RSS was
# libstdc++.so.6's symbol tables and relocations, issue 25); a build whose GCC is not 12 loses it.
if readelf -d "$root/usr/bin/nfcbridge" | grep -q 'NEEDED.*libstdc++'; then
    fail "nfcbridge loads libstdc++.so.6: scripts/static-libstdc++/libstdc++.a did not resolve (is libstdc++-12-dev installed?)"
else pass "nfcbridge links libstdc++ statically"; fi
# Every shared library BINARY itself needs (DT_NEEDED, where ldd finds it) belongs to a package in
# DEB's Depends; what those libraries pull in comes with their own packages' dependencies.
check_depends() {
    local binary=$1 package_file=$2 label=$3 depends library package
    depends=$(dpkg-deb --field "$package_file" Depends)
    ldd "$binary" > "$work/ldd-depends"
    while read -r library; do
        # dpkg knows a library by the path its package ships, /lib or /usr/lib (merged /usr).
        package=$( { dpkg -S "$library" || dpkg -S "$(realpath "$library")" || dpkg -S "/usr$library" || dpkg -S "${library#/usr}"; } 2>/dev/null | head -1 | cut -d: -f1 || true)
        if [ -z "$package" ]; then fail "no package owns $library"
        elif [[ ",$depends," == *"$package"* ]]; then pass "$label Depends has $package ($(basename "$library"))"
        else fail "$label Depends lacks $package for $library"; fi
    done < <(
        for needed in $(readelf -d "$binary" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
            awk -v lib="$needed" '$1 == lib && $3 ~ /^\// { print $3 }' "$work/ldd-depends"
        done)
}
check_depends "$root/usr/bin/nfcbridge" "$deb" nfcbridge

# 3. postinst with stub commands that record what they are asked.
stubs="$work/stubs"; mkdir -p "$stubs"
for tool in useradd usermod install chown chmod systemctl udevadm; do
    printf '#!/bin/sh\necho "%s $*" >> "%s/calls"\n' "$tool" "$work" > "$stubs/$tool"
done
printf '#!/bin/sh\ncase "$1 $2" in "group dialout"|"group plugdev") exit 0;; esac\nexit 2\n' > "$stubs/getent"
chmod +x "$stubs"/*
dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./postinst > "$work/postinst"
# A state directory (under DPKG_ROOT) holding what a run as root leaves: a file, a folder, a symbolic
# link out of it, and a hard-linked file; postinst gives the first three (the link itself) to nfcbridge.
dpkg_root="$work/dpkg-root"; state="$dpkg_root/var/lib/nfcbridge"
mkdir -p "$state/sub" && touch "$state/spool.jsonl" "$state/sub/seq" "$work/outside" && ln -s "$work/outside" "$state/link"
ln "$work/outside" "$state/hardlink"
DPKG_ROOT="$dpkg_root" PATH="$stubs:/usr/bin:/bin" sh "$work/postinst" configure
grep -q '^useradd --system --user-group .* nfcbridge$' "$work/calls" && pass "postinst creates the system user" || fail "postinst useradd: $(cat "$work/calls")"
grep -qx 'usermod --append --groups dialout nfcbridge' "$work/calls" && grep -qx 'usermod --append --groups plugdev nfcbridge' "$work/calls" \
    && pass "postinst adds the user to dialout and plugdev" || fail "postinst groups"
grep -q 'groups i2c\|groups spi' "$work/calls" && fail "postinst added a group that does not exist" || pass "postinst skips missing groups (i2c, spi)"
grep -qx "install -d -m 0700 -o nfcbridge -g nfcbridge $state" "$work/calls" && pass "postinst makes the state directory (under DPKG_ROOT)" || fail "postinst state dir: $(cat "$work/calls")"
chowned=$(sed -n 's/^chown -h nfcbridge:nfcbridge //p' "$work/calls" | tr ' ' '\n' | sort | tr '\n' ' ')
[ "$chowned" = "$state $state/link $state/spool.jsonl $state/sub $state/sub/seq " ] \
    && pass "postinst gives the state directory's files to nfcbridge (links themselves; not a hard-linked file)" \
    || fail "postinst ownership repair: chown -h of <$chowned>"

# 4. systemd-analyze verify on the unit as installed, ExecStart pointing at the extracted binary.
if command -v systemd-analyze > /dev/null; then
    sed "s|^ExecStart=/usr/bin/|ExecStart=$root/usr/bin/|" "$root/lib/systemd/system/nfcbridge.service" > "$work/nfcbridge.service"
    # man pages are checked in step 6; the unit's Documentation=man: refers to them.
    if systemd-analyze verify --man=no "$work/nfcbridge.service" > "$work/verify" 2>&1 && ! grep -q nfcbridge.service "$work/verify"; then
        pass "systemd-analyze verify nfcbridge.service"
    else
        fail "systemd-analyze verify"; sed 's/^/     /' "$work/verify"
    fi
    # The template on an instance (a board with two readers: nfcbridge@door-in), as installed.
    sed "s|^ExecStart=/usr/bin/|ExecStart=$root/usr/bin/|" "$root/lib/systemd/system/nfcbridge@.service" > "$work/nfcbridge@.service"
    if systemd-analyze verify --man=no "$work/nfcbridge@door-in.service" > "$work/verify@" 2>&1 && ! grep -q nfcbridge@ "$work/verify@"; then
        pass "systemd-analyze verify nfcbridge@door-in.service (the template)"
    else
        fail "systemd-analyze verify nfcbridge@door-in.service"; sed 's/^/     /' "$work/verify@"
    fi
    grep -q '^ExecStart=.* run --config /etc/nfcbridge/%i.yaml$' "$work/nfcbridge@.service" && grep -qx 'StateDirectory=nfcbridge/%i' "$work/nfcbridge@.service" \
        && pass "template reads /etc/nfcbridge/%i.yaml with its own state directory" || fail "template ExecStart / StateDirectory"
    # Apart from its instance lines, the template is the unit (one sandbox to maintain, not two).
    instance='/^#/d; /%i/d; /^Description=/d; /^ExecStart=/d; /^StateDirectory=/d'
    if diff <(sed "$instance" "$work/nfcbridge.service") <(sed "$instance" "$work/nfcbridge@.service") | grep -q '^[<>] [A-Z]'; then
        fail "nfcbridge@.service differs from nfcbridge.service beyond its instance lines"
    else pass "nfcbridge@.service keeps nfcbridge.service's settings"; fi
    for key in Type=notify WatchdogSec= Restart=on-failure User=nfcbridge StateDirectory=nfcbridge ConfigurationDirectory=nfcbridge \
        "DeviceAllow=char-ttyS " "DeviceAllow=char-ttyAMA " "DeviceAllow=char-ttyUSB " "DeviceAllow=char-usb_device " \
        "DeviceAllow=char-i2c " "DeviceAllow=char-spi " ProtectSystem=strict; do
        grep -q "^$key" "$work/nfcbridge.service" && pass "unit has $key" || fail "unit lacks $key"
    done
else
    fail "systemd-analyze is not installed (make deps installs systemd)"
fi

# 5. udev rules: every line a comment or KEY(==|!=|=|+=|:=)"value" pairs separated by ", ".
awk '
    /^[[:space:]]*(#|$)/ { next }
    {
        line = $0; n = split(line, pairs, /", /)
        for (i = 1; i <= n; i++) {
            pair = pairs[i] (i < n ? "\"" : "")
            if (pair !~ /^(ACTION|SUBSYSTEM|KERNEL|DRIVER|ENV\{[A-Z_]+\}|ATTRS?\{[a-zA-Z_]+\}|IMPORT\{builtin\}|GROUP|MODE|SYMLINK|OWNER|TAG)(==|!=|=|\+=|:=)"[^"]*"$/) {
                printf "line %d: bad pair <%s>\n", NR, pair; bad = 1
            }
        }
        if (line !~ /(GROUP|SYMLINK|MODE|TAG|ENV\{[A-Z_]+\}|IMPORT\{builtin\})\+?=/) { printf "line %d: matches but assigns nothing\n", NR; bad = 1 }
    }
    END { exit bad }' deploy/udev/60-nfcbridge.rules > "$work/udev" 2>&1 && pass "udev rules syntax" || { fail "udev rules syntax"; cat "$work/udev"; }
for id in 1a86:7523 10c4:ea60 0403:6001 072f:2200 04e6:5591; do
    grep -q "ATTRS{idVendor}==\"${id%:*}\", ATTRS{idProduct}==\"${id#*:}\"" deploy/udev/60-nfcbridge.rules && pass "udev rule for $id" || fail "udev rule for $id"
done
for kernel in ttyAMA0 ttyS0; do grep -q "KERNEL==\"$kernel\"" deploy/udev/60-nfcbridge.rules && pass "udev rule for $kernel" || fail "udev rule for $kernel"; done
grep -q 'SYMLINK+="nfc-reader"' deploy/udev/60-nfcbridge.rules && pass "udev /dev/nfc-reader symlink" || fail "udev symlink"
grep -q 'SYMLINK+="nfc/by-path/$env{ID_PATH}"' deploy/udev/60-nfcbridge.rules && grep -q 'SYMLINK+="nfc/by-serial/$env{ID_SERIAL_SHORT}"' deploy/udev/60-nfcbridge.rules \
    && pass "udev names several readers by USB path and serial" || fail "udev by-path / by-serial names"
if command -v udevadm > /dev/null && udevadm verify --help > /dev/null 2>&1; then check "udevadm verify" udevadm verify deploy/udev/60-nfcbridge.rules
else echo "note udevadm verify needs systemd 254's udev (Debian 12 has 252); the awk check above stands in"; fi

# 6. Man pages: regenerated from the installed binaries' --help, they equal the committed ones.
scripts/manpages.sh "$root/usr/bin" "$work/man" > /dev/null
for page in nfcbridge.1 nfcbridge-sim.1 nfcbridge.yaml.5; do
    if diff -u "deploy/man/$page" "$work/man/$page" > "$work/mandiff"; then pass "man page $page matches --help (make man)"
    else fail "man page $page differs from --help: run make man"; head -20 "$work/mandiff"; fi
    man --warnings -l "$work/man/$page" > /dev/null 2> "$work/manwarn" && [ ! -s "$work/manwarn" ] && pass "man $page renders without warnings" \
        || { fail "man $page warnings"; cat "$work/manwarn"; }
done

# 7. The sample broker ACL plus a reader added by add-reader.sh (as docs/fleet.md shows): mosquitto
# loads them without the "does not contain '%c' or '%u'" warning.
cp deploy/mosquitto/nfcbridge.acl "$work/nfcbridge.acl"
NFCBRIDGE_PASSWD="$work/nfcbridge.passwd" NFCBRIDGE_ACL="$work/nfcbridge.acl" NFCBRIDGE_READER_PASSWORD=secret NFCBRIDGE_NO_RELOAD=1 \
    deploy/mosquitto/add-reader.sh reader-hall > "$work/add-reader.log" 2>&1 && grep -qx 'user reader-hall' "$work/nfcbridge.acl" \
    && grep -q '^reader-hall:' "$work/nfcbridge.passwd" && pass "add-reader.sh adds the password and the ACL block" \
    || { fail "add-reader.sh"; cat "$work/add-reader.log"; }
chmod 644 "$work"/nfcbridge.acl "$work"/nfcbridge.passwd; chmod 755 "$work"
# A free port: a candidate nothing answers on, then mosquitto's own bind decides (a new candidate
# when it reports the address in use). Its log is polled for the listen line, for at most 10 s; then
# it is stopped. Its configuration warnings are logged before the listen line.
started=""
for attempt in 1 2 3 4 5; do
    port=$((20000 + RANDOM % 20000))
    if (exec 3<> "/dev/tcp/127.0.0.1/$port") 2> /dev/null; then continue; fi
    printf 'listener %s 127.0.0.1\nallow_anonymous false\npassword_file %s\nacl_file %s\nlog_dest stderr\n' \
        "$port" "$work/nfcbridge.passwd" "$work/nfcbridge.acl" > "$work/mosquitto.conf"
    chmod 644 "$work/mosquitto.conf"
    /usr/sbin/mosquitto -c "$work/mosquitto.conf" > "$work/mosquitto.log" 2>&1 &
    mosquitto_pid=$!
    for _ in $(seq 100); do
        if grep -q "listen socket on port $port" "$work/mosquitto.log"; then started=yes; break; fi
        kill -0 "$mosquitto_pid" 2> /dev/null || break
        sleep 0.1
    done
    kill "$mosquitto_pid" 2> /dev/null || true
    wait "$mosquitto_pid" 2> /dev/null || true
    if [ -n "$started" ] || ! grep -qi "address already in use" "$work/mosquitto.log"; then break; fi
done
if grep -qi "warning" "$work/mosquitto.log"; then fail "mosquitto warns about the ACL"; cat "$work/mosquitto.log"; else pass "mosquitto loads nfcbridge.acl without warnings"; fi
[ -n "$started" ] && pass "mosquitto started with the ACL (port $port)" || { fail "mosquitto did not start"; cat "$work/mosquitto.log"; }

# 8. The Dockerfile.
if command -v hadolint > /dev/null; then check "hadolint deploy/Dockerfile" hadolint deploy/Dockerfile
else echo "note hadolint is not installed (not packaged in Debian 12): deploy/Dockerfile not linted"; fi

# 9. The simulator's own package.
echo "== $sim_deb ($(du -h "$sim_deb" | cut -f1)); the agent's: $(du -h "$deb" | cut -f1)"
dpkg-deb --info "$sim_deb" > "$work/sim-info"
dpkg-deb --contents "$sim_deb" > "$work/sim-contents"
[[ $(basename "$sim_deb") =~ ^nfcbridge-sim_[0-9]+\.[0-9]+\.[0-9]+_[a-z0-9]+\.deb$ ]] && pass "file name $(basename "$sim_deb")" || fail "file name $(basename "$sim_deb")"
grep -q '^ Package: nfcbridge-sim$' "$work/sim-info" && pass "control Package: nfcbridge-sim" || fail "control Package: nfcbridge-sim"
[ "$(dpkg-deb --field "$sim_deb" Version)" = "$(dpkg-deb --field "$deb" Version)" ] && pass "nfcbridge-sim has the agent's version" || fail "nfcbridge-sim version"
for file in ./usr/bin/nfcbridge-sim ./usr/share/man/man1/nfcbridge-sim.1.gz ./usr/share/doc/nfcbridge-sim/copyright \
    ./usr/share/doc/nfcbridge-sim/changelog.gz ./usr/share/doc/nfcbridge-sim/simulator.md; do
    grep -q " $file\$" "$work/sim-contents" && pass "nfcbridge-sim contains $file" || fail "nfcbridge-sim contains $file"
done
check_depends "$root/usr/bin/nfcbridge-sim" "$sim_deb" nfcbridge-sim
if command -v lintian > /dev/null; then
    if lintian --fail-on error --tag-display-limit 0 "$sim_deb" > "$work/sim-lintian" 2>&1; then pass "lintian nfcbridge-sim (no errors)"
    else fail "lintian nfcbridge-sim"; fi
    sed 's/^/     /' "$work/sim-lintian"
fi

# 10. The first hour: make demo installs only what the demo needs (make demo-deps: no packaging or
# test tools), and its screen shows the agent's traffic without the Home Assistant discovery documents.
make -s --no-print-directory print-demo-debs > "$work/demo-debs"
make -s --no-print-directory print-debs > "$work/debs"
for package in lintian dpkg-dev man-db python3-venv libnfc-examples pcscd vsmartcard-vpcd strace; do
    grep -qx "$package" "$work/demo-debs" && fail "make demo installs $package" || pass "make demo does not install $package"
done
for package in mosquitto mosquitto-clients socat libnfc-dev; do
    grep -qx "$package" "$work/demo-debs" && pass "make demo installs $package" || fail "make demo lacks $package"
done
[ -z "$(comm -23 <(sort "$work/demo-debs") <(sort "$work/debs"))" ] && pass "make deps installs every package of make demo" \
    || fail "packages of make demo missing from make deps: $(comm -23 <(sort "$work/demo-debs") <(sort "$work/debs") | tr '\n' ' ')"
make -n --no-print-directory demo > "$work/demo-plan"
grep -q 'lintian' "$work/demo-plan" && fail "make demo's plan names lintian" || pass "make demo's plan installs the demo's packages only"
if [ -x "$(swift build --show-bin-path 2> /dev/null)/nfcbridge-sim" ]; then
    DEMO_SECONDS=6 scripts/demo.sh > "$work/demo.out" 2> "$work/demo.err" < /dev/null || true
    discovery=$(sed -n 's/^Home Assistant discovery documents (not shown): //p' "$work/demo.out")
    grep -q '^nfc/demo/status online' "$work/demo.out" && pass "make demo shows the agent's traffic" || { fail "make demo shows no status"; head -20 "$work/demo.out" "$work/demo.err"; }
    grep -q '^homeassistant/' "$work/demo.out" && fail "make demo shows the discovery documents" || pass "make demo keeps the discovery documents off the screen"
    [ -n "$discovery" ] && grep -q '^homeassistant/' "$discovery" && pass "make demo keeps them in $(basename "$discovery")" \
        || fail "make demo's discovery log <$discovery> holds no discovery document"
    [ -n "$discovery" ] && rm -rf "$(dirname "$discovery")"
else
    echo "note the debug build is missing (swift build): make demo's screen not checked"
fi

echo
if [ "$failures" = 0 ]; then echo "deploy checks: all passed"; else echo "deploy checks: $failures failed"; exit 1; fi
