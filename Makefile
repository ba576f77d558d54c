# bendsynth — `make run` plays the instrument, `make test` runs the tests.
# Both first install the Debian packages the build and the tests need (once).

SWIFT      ?= swift
BUILD_DIR  ?= .build
RELEASE     = $(BUILD_DIR)/release/bendsynth
ARGS       ?=

# Build and link: alsa-lib, libsndfile, libsamplerate, liblo (+ pkg-config to find them).
# OSC tests: liblo-tools (oscsend), python3-venv (python-osc from PyPI, below).
# Tests: alsa-utils (aplay -L), the ALSA jack plugin and jackd2 for a paced PCM, tmux, sox.
DEB_BUILD = pkg-config libasound2-dev libsndfile1-dev libsamplerate0-dev liblo-dev
DEB_TEST  = alsa-utils tmux sox liblo-tools python3-venv
DEB_STAMP = $(BUILD_DIR)/.deb-$(shell echo $(DEB_BUILD) $(DEB_TEST) | md5sum | cut -c1-8)

.PHONY: all deps build run test lint bench clean

all: build

deps: $(DEB_STAMP)
$(DEB_STAMP):
	@missing=$$(for p in $(DEB_BUILD) $(DEB_TEST); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "Installing Debian packages:" $$missing; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi
	@mkdir -p $(BUILD_DIR) && touch $@

# python-osc (PyPI; Debian has no package) in a venv: the OSC tests' second client.
PYOSC = $(BUILD_DIR)/pyosc/bin/python3
$(PYOSC): | deps
	python3 -m venv $(BUILD_DIR)/pyosc && $(BUILD_DIR)/pyosc/bin/pip install -q python-osc

build: deps
	$(SWIFT) build -c release

run: build
	$(RELEASE) play $(ARGS)

# The release build compiles the @_noLocks render path with the checks on.
test: deps lint $(PYOSC)
	$(SWIFT) build -c release
	$(SWIFT) test

lint:
	@scripts/check-layers.sh

clean:
	rm -rf $(BUILD_DIR)

# Mixer figures (printed, never asserted): ns per voice-frame and real-time factor.
bench: build
	$(RELEASE) bench --voices 16,64,256 --period 256 --seconds 4
	$(RELEASE) bench --osc --period 64
