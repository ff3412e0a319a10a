# NFCBridge — set-up, build, tests and packaging on Debian 12.
#   make deps     install the Debian packages that are missing (apt-get, by name; DEBS below)
#   make build    the build's packages (BUILD_DEBS) + build everything (debug)
#   make check    the unit tests alone (no EndToEndTests: no agent runs, no simulator, pcscd or
#                 libnfc-tool processes), a quick check after a build
#   make test     deps + build + every test (unit and end-to-end), then the packaging checks
#                 (make deb, the .deb's contents, lintian, systemd-analyze verify, udev rules, man pages)
#   make demo     the demo's packages only (DEMO_DEBS) + build + loopback mosquitto + emulated PN532 +
#                 the agent, shows MQTT traffic
#   make test-ha  the agent against a real Home Assistant Core (installed from PyPI into a venv under
#                 .build/test-ha; slow the first time; not part of `make test`)
#   make release  the release build, Swift runtime linked in (--static-swift-stdlib)
#   make install  the release build and the deployment files under $(DESTDIR)$(PREFIX) (and /etc);
#                 for DESTDIR staging as your user (make deb uses it)
#   make install-files  copies the already built release binaries and the deployment files, no
#                 Swift: `make release && sudo make install-files` (sudo's PATH has no swift)
#   make deb      nfcbridge_<version>_<arch>.deb (the agent) and nfcbridge-sim_<version>_<arch>.deb (the
#                 PN532 emulator) with dpkg-deb in .build/deb/
#   make man      regenerate deploy/man/ from the --help texts
#   make soak     (not in CI) SOAK_MINUTES (default 60) of tag churn, broker freezes/restarts and
#                 reader unplugs against the agent; prints RSS/FDs/threads each minute, checks every
#                 tap was reported exactly once (scripts/soak.py, docs/operations.md)
#   make chaos    (not in CI) CHAOS_KILLS (default 50) kill -9 of the agent during taps, with broker
#                 restarts and a state filesystem that fills up; counts what was lost or duplicated
#   make fuzz     build the libFuzzer harnesses (fuzz/README.md) and run each for 1,000,000 executions
#   make fuzz-smoke  the same harnesses for a few seconds each (part of make test)

SHELL := /bin/bash
SWIFT ?= swift
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# Debian packages by what needs them, installed by name when missing (`install_debs` below):
# BUILD_DEBS the C libraries of the system-library targets (and pkg-config to find them): `make build`;
# DEMO_DEBS what `make demo` runs besides the build: the broker, mosquitto_sub and socat (docs/simulator.md);
# DEBS everything `make test` and packaging need besides: libnfc's own tools and the PC/SC daemon with
# vpcd that the end-to-end tests drive, openssl (test certificates), strace, libstdc++-12-dev for the
# release build (--static-swift-stdlib links -lstdc++, and the agent links its libstdc++.a in:
# Package.swift; swift.org's Debian 12 package list does not bring it), systemd (systemd-analyze), dpkg-dev, lintian and man-db (man -l) for the packaging checks,
# python3 for make soak, python3-jinja2 for the end-to-end tests that render the Home Assistant
# discovery templates (python3-venv for make test-ha), rabbitmq-server (3.10, with its MQTT plugin) for
# the two-node cluster RabbitMQClusterTests start on loopback (the package's own service is not used), gdb
# for the backtraces scripts/test-watchdog.sh prints when the test run hangs.
BUILD_DEBS := pkg-config libnfc-dev libnfc6 libmosquitto-dev libyaml-dev libssl-dev libpcsclite-dev
DEMO_DEBS := $(BUILD_DEBS) mosquitto mosquitto-clients socat
DEBS := $(DEMO_DEBS) libnfc-bin libnfc-examples openssl libstdc++-12-dev systemd dpkg-dev lintian man-db \
        python3 python3-jinja2 python3-venv pcscd vsmartcard-vpcd strace rabbitmq-server gdb

# $(call install_debs,PACKAGES): apt-get install those of PACKAGES that are not installed.
define install_debs
	@missing=""; for p in $(1); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing:$$missing"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	else echo "All Debian packages present."; fi
endef

VERSION := $(shell sed -n 's/^ *static let string = "\(.*\)"/\1/p' Sources/nfcbridge/main.swift)
ARCH := $(shell dpkg --print-architecture 2>/dev/null || uname -m)

# Installation layout. PREFIX for programs, man pages and docs; configuration, udev rules and the
# modprobe file go where udev, modprobe and the admin look for them.
PREFIX ?= /usr/local
DESTDIR ?=
SYSCONFDIR ?= /etc
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
DOCDIR ?= $(PREFIX)/share/doc/nfcbridge
UNITDIR ?= $(PREFIX)/lib/systemd/system
UDEVDIR ?= $(SYSCONFDIR)/udev/rules.d
MODPROBEDIR ?= $(SYSCONFDIR)/modprobe.d

# The release build links the Swift runtime statically, so the binary runs without the toolchain.
# RELEASE_SCRATCH: SwiftPM's scratch path for it (make test uses .build-release, so the release build
# can run beside the test run without either waiting for the other's lock on .build).
RELEASE_SCRATCH ?= .build
RELEASE_FLAGS := -c release --static-swift-stdlib --scratch-path $(RELEASE_SCRATCH)
# `install -s`: the installed binaries carry no symbol table (nfcbridge 16.6 MB unstripped, 4.4 MB
# stripped); `make install INSTALL_STRIP=` keeps it (for gdb on the board).
INSTALL_STRIP ?= -s
# Where `swift build -c release` puts the binaries (SwiftPM's .build/release link), read by
# install-files without running swift.
RELEASE_BIN ?= $(RELEASE_SCRATCH)/release
DOCS := README.md docs/getting-started.md docs/home-assistant.md docs/fleet.md docs/mqtt.md docs/cli.md \
        docs/formats.md docs/operations.md docs/simulator.md docs/architecture.md
MANPAGES := deploy/man/nfcbridge.1 deploy/man/nfcbridge-sim.1 deploy/man/nfcbridge.yaml.5

.PHONY: deps build-deps demo-deps print-debs print-demo-debs build check test test-swift test-swift-run fuzz-smoke-run test-deploy test-ha demo bench soak chaos release install install-files deb man clean fuzz fuzz-build fuzz-smoke

deps:
	$(call install_debs,$(DEBS))

build-deps:
	$(call install_debs,$(BUILD_DEBS))

demo-deps:
	$(call install_debs,$(DEMO_DEBS))

# The package lists, one name a line (scripts/test-deploy.sh checks what make demo installs).
print-debs:
	@printf '%s\n' $(DEBS)

print-demo-debs:
	@printf '%s\n' $(DEMO_DEBS)

build: build-deps
	$(SWIFT) build

# Tests run one at a time: on a 2-core machine Swift's cooperative pool has two threads, and the
# end-to-end tests wait on child processes (simulator, broker, libnfc tools); run side by side,
# such waits can hold both threads while another test's in-process work needs one.
# scripts/test-all.sh: the test run, with the other steps beside it at nice 19 until it ends (the
# fuzz build, then the fuzz smoke beside the release build, then the packaging checks: the same steps
# as test-swift, fuzz-smoke and test-deploy), their output printed when the tests end, each bounded
# by TEST_BOUND.
test: deps
	$(SWIFT) build --build-tests
	scripts/test-all.sh $(MAKE) $(TEST_BOUND)

# Every test module but EndToEndTests, one test at a time as in test-swift.
check:
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --no-parallel --skip '^EndToEndTests\.'

# scripts/test-swift.sh: the whole log goes to .build/test-swift.log as well, line-buffered; the run is
# watched (scripts/test-watchdog.sh): when its whole process tree uses no CPU and the log does not grow
# for TEST_IDLE seconds (default 300), it is hung and stopped with the tests that never ended, the
# process tree and gdb backtraces printed; and bounded (TEST_BOUND seconds, default 3600: the suite
# takes about 11 min on 2 cores), so a test that hangs stops the run with its name printed instead of
# running into CI's limit; the failing tests and their issues are printed again at the end, so a log's
# tail (all a CI summary shows) names them.
TEST_BOUND ?= 3600
TEST_IDLE ?= 300

test-swift:
	$(SWIFT) build --build-tests
	$(MAKE) --no-print-directory test-swift-run

# The tests alone, on the build there is.
test-swift-run:
	scripts/test-swift.sh $(SWIFT) $(TEST_BOUND) .build/test-swift.log $(TEST_IDLE)

# The packaging checks (scripts/test-deploy.sh): builds the .deb, reads it back, lints it, installs
# it into a throw-away root and runs the binary; systemd-analyze verify on the unit; the udev rules;
# the man pages against --help.
test-deploy: deb
	scripts/test-deploy.sh .build/deb/nfcbridge_$(VERSION)_$(ARCH).deb .build/deb/nfcbridge-sim_$(VERSION)_$(ARCH).deb

# The agent against a real Home Assistant Core (scripts/test-ha.sh, docs/home-assistant.md): installs
# HA_VERSION (default 2024.3.3, the newest whose Python requirement Debian 12's 3.11 meets) from PyPI
# into .build/test-ha/venv, then checks entities, states and tag_scanned through HA's APIs. Not in CI.
test-ha: build
	./scripts/test-ha.sh

# libFuzzer harnesses (fuzz/README.md): declared in Package.swift only with NFCBRIDGE_FUZZ set and built
# in their own scratch path, instrumented (-sanitize=fuzzer,address on every module; --sanitize also
# for SwiftPM's link step), so the normal build and test products are untouched. Release mode: the
# runs are ten times faster. One harness after another at nice 15 (fuzz/run.sh).
FUZZ_BUILD := NFCBRIDGE_FUZZ=1 $(SWIFT) build -c release --scratch-path .build-fuzz --sanitize fuzzer \
              --sanitize address -Xswiftc -sanitize=fuzzer,address
FUZZ_RUNS ?= 1000000
FUZZ_SMOKE_SECONDS ?= 5

fuzz-build: deps
	@set -eo pipefail; $(FUZZ_BUILD) 2>&1 | { grep -v "Cannot export local symbol" || true; }

fuzz: fuzz-build
	fuzz/run.sh runs $(FUZZ_RUNS)

fuzz-smoke: fuzz-build
	$(MAKE) --no-print-directory fuzz-smoke-run

# The smoke run alone, on the harnesses already built.
fuzz-smoke-run:
	fuzz/run.sh seconds $(FUZZ_SMOKE_SECONDS)

# Loopback mosquitto + nfcbridge-sim (config/scenarios/demo.yaml) + nfcbridge run; shows the MQTT
# traffic until Ctrl-C, then stops everything it started (scripts/demo.sh).
# Installs only what the demo needs (DEMO_DEBS: no packaging or test tools).
demo: demo-deps
	$(SWIFT) build
	./scripts/demo.sh

release: deps
	$(SWIFT) build $(RELEASE_FLAGS)

man: build
	scripts/manpages.sh "$$($(SWIFT) build --show-bin-path)" deploy/man

# The release binaries, the unit (ExecStart pointing at $(BINDIR)), udev rules, the modprobe
# blacklist, the example configuration as $(SYSCONFDIR)/nfcbridge/config.yaml (never over an existing
# one), man pages and docs. `install` builds them first (as your user, for DESTDIR staging);
# `install-files` only copies what `make release` built, so it can run as root without the toolchain:
# `make release && sudo make install-files`, then create the user: see README.
install: release
	@$(MAKE) --no-print-directory install-files RELEASE_BIN="$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)"

install-files:
	@bin="$(RELEASE_BIN)"; set -e; \
	for b in nfcbridge nfcbridge-sim; do \
	  [ -x "$$bin/$$b" ] || { echo "$$bin/$$b is missing: run 'make release' first (as your user, not with sudo)" >&2; exit 1; }; \
	done; \
	install -d "$(DESTDIR)$(BINDIR)" "$(DESTDIR)$(UNITDIR)" "$(DESTDIR)$(UDEVDIR)" "$(DESTDIR)$(MODPROBEDIR)" \
	  "$(DESTDIR)$(MANDIR)/man1" "$(DESTDIR)$(MANDIR)/man5" "$(DESTDIR)$(DOCDIR)" "$(DESTDIR)$(SYSCONFDIR)/nfcbridge"; \
	install -m 0755 $(INSTALL_STRIP) "$$bin/nfcbridge" "$$bin/nfcbridge-sim" "$(DESTDIR)$(BINDIR)/"; \
	for unit in nfcbridge.service nfcbridge@.service; do \
	  sed 's|^ExecStart=/usr/bin/nfcbridge |ExecStart=$(BINDIR)/nfcbridge |; s|/usr/share/doc/nfcbridge/|$(DOCDIR)/|' \
	    "deploy/systemd/$$unit" > "$(DESTDIR)$(UNITDIR)/$$unit"; \
	  chmod 0644 "$(DESTDIR)$(UNITDIR)/$$unit"; \
	done; \
	install -m 0644 deploy/udev/60-nfcbridge.rules "$(DESTDIR)$(UDEVDIR)/"; \
	install -m 0644 deploy/modprobe.d/nfcbridge-blacklist.conf "$(DESTDIR)$(MODPROBEDIR)/"; \
	install -m 0644 deploy/man/nfcbridge.1 deploy/man/nfcbridge-sim.1 "$(DESTDIR)$(MANDIR)/man1/"; \
	install -m 0644 deploy/man/nfcbridge.yaml.5 "$(DESTDIR)$(MANDIR)/man5/"; \
	install -m 0644 $(DOCS) config/nfcbridge.example.yaml "$(DESTDIR)$(DOCDIR)/"; \
	install -d "$(DESTDIR)$(DOCDIR)/mosquitto"; \
	install -m 0644 deploy/mosquitto/* "$(DESTDIR)$(DOCDIR)/mosquitto/"; \
	if [ -e "$(DESTDIR)$(SYSCONFDIR)/nfcbridge/config.yaml" ]; then \
	  echo "kept the existing $(DESTDIR)$(SYSCONFDIR)/nfcbridge/config.yaml"; \
	else install -m 0640 config/nfcbridge.example.yaml "$(DESTDIR)$(SYSCONFDIR)/nfcbridge/config.yaml"; fi; \
	echo "installed nfcbridge $(VERSION) under $(DESTDIR)$(PREFIX)"

# nfcbridge_<version>_<arch>.deb: the install above under /usr less the simulator, plus the control
# files in deploy/debian/; nfcbridge-sim_<version>_<arch>.deb: the simulator (scripts/build-deb.sh).
deb: release
	scripts/build-deb.sh "$(VERSION)" "$(ARCH)" .build/deb

# Every bench/ script against nfcbridge-sim at 115200 baud (bench/all.sh; results: bench/README.md).
# Nothing asserts a time. CONFIGURATION=release for a release build; counts: see each script.
bench: deps
	./bench/all.sh

SOAK_MINUTES ?= 60
soak: deps build
	SOAK_MINUTES=$(SOAK_MINUTES) nice -n 10 python3 scripts/soak.py .build/debug

# scripts/chaos.py (not in CI): CHAOS_KILLS (50) kill -9 of the agent during taps, broker restarts,
# a state filesystem that fills and frees (a tmpfs, as root); reports lost / duplicated events,
# seq gaps and presences without `removed` (docs/operations.md has the last run's figures).
CHAOS_KILLS ?= 50
chaos: deps build
	CHAOS_KILLS=$(CHAOS_KILLS) python3 scripts/chaos.py .build/debug

clean:
	rm -rf .build .build-release .build-fuzz
