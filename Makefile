# NFCBridge — set-up, build and tests on Debian 12.
#   make deps   install the Debian packages that are missing (apt-get, by name)
#   make build  build everything
#   make test   deps + build + every test (unit and end-to-end)
#   make demo   deps + build + loopback mosquitto + emulated PN532 + the agent, shows MQTT traffic

SHELL := /bin/bash
SWIFT ?= swift
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# C libraries (system-library targets), servers and tools the tests drive.
DEBS := pkg-config libnfc-dev libnfc6 libnfc-bin libnfc-examples libmosquitto-dev mosquitto \
        mosquitto-clients libyaml-dev libssl-dev openssl libsystemd-dev

.PHONY: deps build test demo bench clean

deps:
	@missing=""; for p in $(DEBS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing:$$missing"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	else echo "All Debian packages present."; fi

build: deps
	$(SWIFT) build

# Tests run one at a time: on a 2-core machine Swift's cooperative pool has two threads, and the
# end-to-end tests wait on child processes (simulator, broker, libnfc tools); run side by side,
# such waits can hold both threads while another test's in-process work needs one.
test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --no-parallel

# Loopback mosquitto + nfcbridge-sim (config/scenarios/demo.yaml) + nfcbridge run; shows the MQTT
# traffic until Ctrl-C, then stops everything it started (scripts/demo.sh).
demo: build
	./scripts/demo.sh

# Every bench/ script against nfcbridge-sim at 115200 baud (bench/all.sh; results: bench/README.md).
# Nothing asserts a time. CONFIGURATION=release for a release build; counts: see each script.
bench: deps
	./bench/all.sh

clean:
	rm -rf .build
