# SPDX-License-Identifier: GPL-3.0-or-later
# bendsynth — `make run` plays the instrument, `make test` runs the tests.
# Both first install the Debian packages the build and the tests need (once).

SWIFT      ?= swift
BUILD_DIR  ?= .build
RELEASE     = $(BUILD_DIR)/release/bendsynth
# The benches' own executable (`make bench`; the release build makes it, the shipped
# bendsynth does not hold it).
BENCH_BIN   = $(BUILD_DIR)/release/bendsynth-bench
ARGS       ?=

# Build and link: alsa-lib, libsndfile, libsamplerate, FFTW 3, libevdev, libsodium, BlueZ libbluetooth,
# liblo, libjack (jackd2's), libwebsockets + OpenSSL (the web controller: HTTP, WebSocket,
# TLS), libqrencode, libsystemd (sd_notify, sd-bus for RTKit; + pkg-config to find them), lv2-dev
# (the LV2 plugin's headers; its lv2_validate checks the bundle), liblilv-dev (the LV2 test and
# bench host, BendLV2Host).
# Tests: alsa-utils (aplay -L), tmux, sox, man-db (man -l: the man page), zsh (the zsh completion parses),
# lintian (the .deb), python3-dbusmock (a mock RealtimeKit1 on a private bus), iproute2 (ip netns: the two-host peer tests),
# liblo-tools (oscsend), python3-venv (python-osc from PyPI, below), jackd2 (jackd with its
# dummy driver, jack_lsp, jack_midiseq, jack_midi_dump: the JACK tests), gcc (render_watch.so),
# chromium (the web controller's page, driven headless over its DevTools pipe by
# Tests/BendAppTests/web), sordi (sord_validate, which lv2_validate runs), lilv-utils (lv2ls,
# lv2info: the plugin as hosts see it), jalv (a real host of the plugin on jackd), synthv1-lv2 and
# samplv1-lv2 (plugins the test host and the benches also play), ardour (Ardour 7 headless: ardour7-lua
# sessions and ardour7-export around the plugin, ArdourTests).
DEB_BUILD = pkg-config libasound2-dev libsndfile1-dev libsamplerate0-dev libfftw3-dev libevdev-dev libsodium-dev libbluetooth-dev liblo-dev libavahi-client-dev libjack-jackd2-dev \
            libwebsockets-dev libqrencode-dev libssl-dev libsystemd-dev lv2-dev liblilv-dev
DEB_TEST  = alsa-utils tmux sox flac man-db zsh lintian python3-dbusmock iproute2 liblo-tools python3-venv dbus-daemon avahi-daemon jackd2 gcc chromium \
            sordi lilv-utils zbar-tools jalv synthv1-lv2 samplv1-lv2 ardour
DEB_STAMP = $(BUILD_DIR)/.deb-$(shell echo $(DEB_BUILD) $(DEB_TEST) | md5sum | cut -c1-8)
# `make bench` only: OpenAL Soft (the baseline), valgrind (bench-icount), a C compiler,
# jackd2 + libasound2-plugins (the paced device of the real-time figures: jackd's dummy
# driver behind the ALSA `jack` PCM).
DEB_BENCH = libopenal-dev valgrind gcc jackd2 libasound2-plugins
RT_SECONDS ?= 60
SOAK_SECONDS ?= 60

# CPU features of release builds. swiftc targets baseline x86-64 (SSE2) unless told;
# when this machine's /proc/cpuinfo lists AVX2 and FMA, release builds target Haswell
# (the x86-64-v3 feature set: AVX2, FMA, BMI2; swiftc 6.3's clang importer does not
# know the name `x86-64-v3`), and -DBEND_FMA lets the mixer use fused multiply-adds.
# `make CPU=baseline` builds for any x86-64.
CPU ?= $(shell grep -qw avx2 /proc/cpuinfo 2>/dev/null && grep -qw fma /proc/cpuinfo && echo haswell || echo baseline)
SWIFT_CPU = $(if $(filter baseline,$(CPU)),,-Xswiftc -target-cpu -Xswiftc $(CPU) -Xswiftc -DBEND_FMA)
OPENAL_BASELINE = $(BUILD_DIR)/openal_baseline
BENCH_SECONDS ?= 2

.PHONY: all deps build run test lint docs bench bench-deps bench-icount clean midi-corpus install uninstall generated deb static fuzz lv2 lv2-bench

# Install: `make install PREFIX=/usr/local DESTDIR=` (BIN: the executable to install, the
# release build by default). The installed binary finds its assets in PREFIX/share/bendsynth.
PREFIX     ?= /usr/local
DESTDIR    ?=
BIN        ?= $(RELEASE)
BINDIR      = $(PREFIX)/bin
DATADIR     = $(PREFIX)/share/bendsynth
MANDIR      = $(PREFIX)/share/man/man1
BASHCOMPDIR = $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR  = $(PREFIX)/share/zsh/vendor-completions
USERUNITDIR = $(PREFIX)/lib/systemd/user
# The LV2 bundle (`make lv2`), installed as LV2DIR; LV2_BUNDLE=path installs another.
LV2DIR      = $(PREFIX)/lib/lv2/bendsynth.lv2
DEFAULT_LV2_BUNDLE = $(BUILD_DIR)/lv2/bendsynth.lv2
LV2_BUNDLE ?= $(DEFAULT_LV2_BUNDLE)
# The bundle's files beside bendsynth.so: its description, factory presets, the default
# tone, the Soft keys SFZ instrument its preset plays, the licence.
LV2_FILES   = dist/lv2/manifest.ttl dist/lv2/bendsynth.ttl dist/lv2/presets.ttl Assets/synth_tone_mono.caf Assets/soft-keys.sfz LICENSE
ASSETS      = Assets/synth_tone_mono.caf Assets/soft-keys.sfz Assets/demo.jsonl
WEB_ASSETS  = $(wildcard Assets/web/*)
# VERSION, plus the commit (`git describe`) when built from a git checkout.
VERSION_STRING := $(shell v=$$(cat VERSION); h=$$(git describe --always --dirty 2>/dev/null); echo "$$v$${h:++git$$h}")
# Compiled into the binary (Package.swift, CBuildInfo): a copied bendsynth knows its version.
export BENDSYNTH_VERSION := $(VERSION_STRING)
GEN         = $(BUILD_DIR)/generated

# The recipe that installs those of the Debian packages $(1) that are missing (apt-get,
# through sudo unless root): `deps` and `bench-deps`.
apt_install = @missing=$$(for p in $(1); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "Installing Debian packages:" $$missing; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi

all: build

deps: $(DEB_STAMP)
$(DEB_STAMP):
	$(call apt_install,$(DEB_BUILD) $(DEB_TEST))
	@mkdir -p $(BUILD_DIR) && touch $@

# python-osc (PyPI; Debian has no package) in a venv: the OSC tests' second client.
PYOSC = $(BUILD_DIR)/pyosc/bin/python3
$(PYOSC): | deps
	python3 -m venv $(BUILD_DIR)/pyosc && $(BUILD_DIR)/pyosc/bin/pip install -q python-osc

# mido (PyPI) in a venv: writes the MIDI file corpus the MIDI tests read (committed in
# Tests/BendMIDITests/Fixtures; `make midi-corpus` makes it again).
MIDO = $(BUILD_DIR)/mido/bin/python3
$(MIDO): | deps
	python3 -m venv $(BUILD_DIR)/mido && $(BUILD_DIR)/mido/bin/pip install -q mido==1.3.3

midi-corpus: $(MIDO)
	$(MIDO) scripts/make-midi-corpus.py Tests/BendMIDITests/Fixtures

build: deps
	$(SWIFT) build -c release $(SWIFT_CPU)

run: build
	$(RELEASE) play $(ARGS)

# The release build (`build`) compiles the @_noLocks render path with the checks on.
test: deps lint $(PYOSC) build lv2
	$(SWIFT) test

# docs/OPTIONS.md's table is made from the command table (the same list as --help, the man
# page and the completion) by the test target's OptionsDocument, not by the shipped
# binary; DocsTests fails when it is out of date.
docs: deps
	$(SWIFT) build --build-tests
	BENDSYNTH_UPDATE_DOCS=1 $(SWIFT) test --skip-build --filter 'DocsTests.testOptionsDocumentIsMadeFromTheCommandTable'

lint:
	@python3 scripts/check-layers.py

# Coverage-guided fuzzing (libFuzzer + AddressSanitizer, its own build in .build/fuzz):
# each decoder of outside bytes for FUZZ_SECONDS from Fuzz/corpus; fails on any crash,
# leak or timeout. `make fuzz FUZZ_TARGETS="osc terminal"` runs some.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?=
fuzz: deps
	@FUZZ_SECONDS=$(FUZZ_SECONDS) Fuzz/fuzz.sh $(FUZZ_TARGETS)

# The man page and the completions, printed by the binary from its option table.
generated: $(if $(filter $(RELEASE),$(BIN)),build)
	@mkdir -p $(GEN)
	$(BIN) --man-page > $(GEN)/bendsynth.1
	$(BIN) --completion bash > $(GEN)/bendsynth.bash
	$(BIN) --completion zsh > $(GEN)/_bendsynth
	sed 's|@BINDIR@|$(BINDIR)|g' dist/bendsynth.service.in > $(GEN)/bendsynth.service

install: generated $(if $(filter $(DEFAULT_LV2_BUNDLE),$(LV2_BUNDLE)),lv2)
	install -Dm755 $(BIN) $(DESTDIR)$(BINDIR)/bendsynth
	install -d $(DESTDIR)$(DATADIR)
	install -m644 $(ASSETS) $(DESTDIR)$(DATADIR)/
	install -d $(DESTDIR)$(DATADIR)/web
	install -m644 $(WEB_ASSETS) $(DESTDIR)$(DATADIR)/web/
	echo "$(VERSION_STRING)" > $(DESTDIR)$(DATADIR)/VERSION
	install -d $(DESTDIR)$(MANDIR)
	gzip -9n < $(GEN)/bendsynth.1 > $(DESTDIR)$(MANDIR)/bendsynth.1.gz
	install -Dm644 $(GEN)/bendsynth.bash $(DESTDIR)$(BASHCOMPDIR)/bendsynth
	install -Dm644 $(GEN)/_bendsynth $(DESTDIR)$(ZSHCOMPDIR)/_bendsynth
	install -Dm644 $(GEN)/bendsynth.service $(DESTDIR)$(USERUNITDIR)/bendsynth.service
	install -d $(DESTDIR)$(LV2DIR)/web
	install -m755 $(LV2_BUNDLE)/bendsynth.so $(DESTDIR)$(LV2DIR)/
	install -m644 $(addprefix $(LV2_BUNDLE)/,$(notdir $(LV2_FILES))) $(DESTDIR)$(LV2DIR)/
	install -m644 $(LV2_BUNDLE)/web/* $(DESTDIR)$(LV2DIR)/web/

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/bendsynth $(DESTDIR)$(MANDIR)/bendsynth.1.gz \
	  $(DESTDIR)$(BASHCOMPDIR)/bendsynth $(DESTDIR)$(ZSHCOMPDIR)/_bendsynth \
	  $(DESTDIR)$(USERUNITDIR)/bendsynth.service
	rm -f $(addprefix $(DESTDIR)$(DATADIR)/,$(notdir $(ASSETS)) VERSION) $(addprefix $(DESTDIR)$(DATADIR)/web/,$(notdir $(WEB_ASSETS)))
	-rmdir $(DESTDIR)$(DATADIR)/web $(DESTDIR)$(DATADIR)
	rm -f $(addprefix $(DESTDIR)$(LV2DIR)/,bendsynth.so $(notdir $(LV2_FILES))) $(addprefix $(DESTDIR)$(LV2DIR)/web/,$(notdir $(WEB_ASSETS)))
	-rmdir $(DESTDIR)$(LV2DIR)/web $(DESTDIR)$(LV2DIR)

# The .deb: the release build for any x86-64 (CPU=baseline) with the Swift runtime linked
# statically (--static-swift-stdlib: it runs where Swift is not installed), installed with
# PREFIX=/usr into a staging root; Depends are the Debian packages of the shared libraries
# it links (ldd → dpkg -S). `make deb DEB_BIN=path` packages another executable.
STATIC_BUILD = $(BUILD_DIR)/static
STATIC_BIN   = $(STATIC_BUILD)/release/bendsynth
DEB_BIN     ?= $(STATIC_BIN)
DEB_VERSION := $(shell echo "$(VERSION_STRING)" | sed 's/-/./g')
DEB_ARCH    := $(shell dpkg --print-architecture 2>/dev/null || echo amd64)
DEB_ROOT     = $(BUILD_DIR)/debroot
DEB_FILE    ?= $(BUILD_DIR)/bendsynth_$(DEB_VERSION)_$(DEB_ARCH).deb
DEB_MAINTAINER ?= bendsynth maintainers <maintainers@users.noreply.a-seed-78f53a30.example>

static: deps
	$(SWIFT) build -c release --static-swift-stdlib --scratch-path $(STATIC_BUILD)

# The LV2 plugin bundle: BendLV2 and everything below it built as `make static` builds
# (release, any x86-64, the static Swift runtime; the same scratch path), linked by swiftc
# into one shared object that carries the Swift runtime (-static-stdlib: a host needs
# nothing but the bundle) and exports lv2_descriptor only (dist/lv2/exports.map);
# -z nodelete keeps it mapped after the host's dlclose (the Swift runtime it carries
# registers thread-exit and exit handlers that must not outlive its code).
SWIFTC     ?= swiftc
LV2_OBJECTS = $(STATIC_BUILD)/release/BendLV2.product/Objects.LinkFileList
lv2: deps
	$(SWIFT) build -c release --static-swift-stdlib --scratch-path $(STATIC_BUILD) --product BendLV2
	$(call lv2_bundle,$(LV2_OBJECTS),$(LV2_BUNDLE))

# ICU's data is left out of the plugin (dist/lv2/icu_data_stub.c says why): an empty
# package under the toolchain's symbol for it (icudtNN_dat in lib_FoundationICU.a).
ICU_ARCHIVE     = $(dir $(realpath $(shell command -v $(SWIFTC))))../lib/swift_static/linux/lib_FoundationICU.a
ICU_DATA_SYMBOL = $(shell nm -g --defined-only $(ICU_ARCHIVE) 2>/dev/null | awk '$$2 == "R" && $$3 ~ /^icudt[0-9]+_dat$$/ { print $$3; exit }')
ICU_STUB        = $(BUILD_DIR)/icu_data_stub.o

# $(call lv2_bundle,OBJECTS,BUNDLE): links the object list OBJECTS into BUNDLE/bendsynth.so
# and puts the bundle's other files beside it.
define lv2_bundle
	rm -rf $(2) && mkdir -p $(2)/web
	@sym="$(ICU_DATA_SYMBOL)"; test -n "$$sym" || { echo "no ICU data symbol in $(ICU_ARCHIVE)"; exit 1; }; \
	  cc -O2 -c -DICU_DATA_SYMBOL=$$sym -o $(ICU_STUB) dist/lv2/icu_data_stub.c
	$(SWIFTC) -emit-library -static-stdlib -o $(2)/bendsynth.so $(ICU_STUB) @$(1) \
	  -Xlinker --version-script=dist/lv2/exports.map -Xlinker --gc-sections -Xlinker -z -Xlinker nodelete \
	  2>&1 | grep -v "the use of .mktemp. is dangerous" || true
	test -f $(2)/bendsynth.so
	strip --remove-section=.comment --remove-section=.note --strip-unneeded $(2)/bendsynth.so
	install -m644 $(LV2_FILES) $(2)/
	install -m644 $(WEB_ASSETS) $(2)/web/
	@echo "built $(2)"
endef

# The bundle `make bench` measures, in .build/lv2-bench: built as `make lv2` builds the
# shipped one (for any x86-64), but with the CPU features of the release build (CPU), as
# bendsynth-bench and the standalone instrument it is compared with; in a scratch path of
# its own. (Objects of the release build itself will not do: linked into a bundle they
# leave CoreFoundation's symbols to whatever Foundation the host process has loaded.)
LV2_BENCH       = $(BUILD_DIR)/lv2-bench
LV2_BENCH_BUILD = $(if $(filter baseline,$(CPU)),$(STATIC_BUILD),$(BUILD_DIR)/static-$(CPU))
lv2-bench: deps
	$(SWIFT) build -c release --static-swift-stdlib $(SWIFT_CPU) --scratch-path $(LV2_BENCH_BUILD) --product BendLV2
	$(call lv2_bundle,$(LV2_BENCH_BUILD)/release/BendLV2.product/Objects.LinkFileList,$(LV2_BENCH)/bendsynth.lv2)

deb: $(if $(filter $(STATIC_BIN),$(DEB_BIN)),static) $(if $(filter $(DEFAULT_LV2_BUNDLE),$(LV2_BUNDLE)),lv2)
	rm -rf $(DEB_ROOT) && mkdir -p $(DEB_ROOT)/DEBIAN
	$(MAKE) -s install PREFIX=/usr DESTDIR=$(abspath $(DEB_ROOT)) BIN=$(DEB_BIN) GEN=$(DEB_ROOT).gen LV2_BUNDLE=$(abspath $(LV2_BUNDLE))
	strip --remove-section=.comment --remove-section=.note --strip-unneeded $(DEB_ROOT)/usr/bin/bendsynth $(DEB_ROOT)/usr/lib/lv2/bendsynth.lv2/bendsynth.so
	install -Dm644 dist/copyright $(DEB_ROOT)/usr/share/doc/bendsynth/copyright
	printf 'bendsynth (%s) unstable; urgency=medium\n\n  * Built from %s.\n\n -- %s  %s\n' \
	  "$(DEB_VERSION)" "$$(git describe --always --dirty 2>/dev/null || echo 'a source tree')" "$(DEB_MAINTAINER)" \
	  "$$(date -R -d @$${SOURCE_DATE_EPOCH:-$$(git log -1 --format=%ct 2>/dev/null || date +%s)})" \
	  | gzip -9n > $(DEB_ROOT)/usr/share/doc/bendsynth/changelog.gz
	chmod -R u+rwX,go+rX,go-w $(DEB_ROOT)
	depends=$$(dist/deb-depends.sh $(DEB_ROOT)/usr/bin/bendsynth $(DEB_ROOT)/usr/lib/lv2/bendsynth.lv2/bendsynth.so); \
	{ echo "Package: bendsynth"; echo "Version: $(DEB_VERSION)"; echo "Architecture: $(DEB_ARCH)"; \
	  echo "Maintainer: $(DEB_MAINTAINER)"; echo "Installed-Size: $$(du -sk --exclude=DEBIAN $(DEB_ROOT) | cut -f1)"; \
	  echo "Depends: $$depends"; echo "Section: sound"; echo "Priority: optional"; \
	  echo "Description: real-time synth instrument played by touch"; \
	  echo " bendsynth loops a tone in many voices at once; each touch (the pad drawn in the"; \
	  echo " terminal, a touchscreen through evdev, OSC/TUIO, MIDI/MPE, a remote player or a"; \
	  echo " touch script) bends one voice in pitch, gain and pan. Sound goes to ALSA or"; \
	  echo " JACK, or is rendered offline to WAV, FLAC, Ogg Vorbis, AIFF or CAF. A systemd"; \
	  echo " user unit runs it as a headless instrument. The LV2 plugin bendsynth.lv2 plays"; \
	  echo " it in a DAW, from MIDI/MPE or a phone's browser."; } > $(DEB_ROOT)/DEBIAN/control
	cd $(DEB_ROOT) && find usr -type f -exec md5sum {} + | sort -k2 > DEBIAN/md5sums
	dpkg-deb --root-owner-group -Zxz --build $(DEB_ROOT) $(DEB_FILE)
	@echo "built $(DEB_FILE)"

clean:
	rm -rf $(BUILD_DIR)

# Figures (printed, never asserted), collected into docs/FIGURES.md (written whole by
# Benchmarks/figures.sh from Benchmarks/FIGURES.md.in when every bench succeeded; never
# edit it by hand): the mixer — bendsynth and OpenAL Soft on the same voice set, ns per
# voice-frame at 16…1024 voices and 64/256-frame periods, and instructions per
# voice-frame under callgrind; real time — `play` on jackd's dummy driver (load, xruns,
# event latency, start-up); input latency — an evdev event's read → the period that
# renders it, at 64-frame periods; peer latency — send → the instrument's queue; OSC
# latency — datagram → effect frame; web latency — a touch dispatched in headless
# Chromium → the engine's queue (under SCHED_FIFO 10 where chrt may set it: the
# instrument, the pad driver and Chromium, which stands in for a phone's own CPU; the
# line names the policy it ran under); the soak — 8 peers, an OSC flood and 8 web pads on
# jackd's dummy driver for SOAK_SECONDS (xruns, limits, memory growth, touches ended
# after the sources go); the LV2 plugin — through liblilv beside the same instrument
# without LV2 at 1024 voices, and beside samplv1 and synthv1 (CPU per 64-frame block,
# voices in real time). About 20 minutes.
bench: build lv2 lv2-bench $(OPENAL_BASELINE)
	@BENCH_SECONDS=$(BENCH_SECONDS) RT_SECONDS=$(RT_SECONDS) SOAK_SECONDS=$(SOAK_SECONDS) BENCH_CPU=$(CPU) BENCH_LV2=$(LV2_BENCH) \
	  Benchmarks/figures.sh $(RELEASE) $(BENCH_BIN) $(OPENAL_BASELINE) docs/FIGURES.md

# Instructions per voice-frame under callgrind: the noise-free figure (printed only;
# `make bench` puts it in docs/FIGURES.md).
bench-icount: build $(OPENAL_BASELINE)
	@Benchmarks/icount.sh $(BENCH_BIN) $(OPENAL_BASELINE)

bench-deps:
	$(call apt_install,$(DEB_BENCH))

$(OPENAL_BASELINE): Benchmarks/OpenALBaseline/openal_baseline.c | bench-deps
	@mkdir -p $(BUILD_DIR)
	cc -O2 -Wall -o $@ $< $$(pkg-config --cflags --libs openal) -lm
