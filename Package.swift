// swift-tools-version:6.0
// SPDX-License-Identifier: GPL-3.0-or-later
// bendsynth: a real-time looping-tone synth for Linux.
// Layers: each target imports only the targets on its line, all of them lower down
// (`make lint` — scripts/check-layers.py — checks these lines against the targets below,
// every import against the declared dependencies, and that imports only point down).
//   bendsynth (main) → BendApp
//   bendsynth-bench (main) → BendApp, BendInstrument, BendSystem, BendBench, BendAudio, BendDBus, BendEngine, BendEvdev
//   BendLV2 → BendSystem, BendControl, BendWeb, BendInstrument, CLV2
//   BendLV2Host → CLilv, CLV2, CLV2Host
//   BendApp → BendInstrument, BendEngine, BendSystem, BendControl, BendAudio, BendEvdev, BendPeers, BendOSC, BendWeb, BendDBus, CBuildInfo
//   BendBench → BendEngine, BendSystem, BendControl, BendAudio, BendEvdev, BendOSC, BendPeers, BendWeb, BendInstrument, BendLV2Host, BendMIDI
//   BendFuzz → BendControl, BendInput, BendEvdev, BendOSC, BendPeers, BendWeb, BendMIDI, BendSFZ
//   BendInstrument → BendEngine, BendSystem, BendControl, BendDBus, BendAudio, BendInput, BendEvdev, BendOSC, BendPeers, BendWeb, BendMIDI, CALSA
//   audio out and the input sources (one layer; none sees another):
//   BendAudio → BendEngine, BendSystem, BendControl, BendSFZ, CALSA, CJack, CSndFile, CFLAC, CSampleRate, CFFTW
//   BendInput → BendControl, BendSystem
//   BendEvdev → BendControl, BendSystem, CEvdev
//   BendOSC → BendControl, BendSystem, CLO
//   BendPeers → BendControl, BendSystem, BendDBus, CSodium, CBluetooth, CAvahi
//   BendMIDI → BendControl, BendSystem, CALSA
//   BendWeb → BendControl, BendSystem, CWebsockets, CQRencode, CSSL, CSodium
//   BendControl → BendEngine, BendSystem
//   BendSFZ → —
//   BendDBus → BendSystem, CSystemd
//   BendSystem → CFloatEnv, CSystem, CGetopt
//   BendEngine → —
import Foundation
import PackageDescription

// The version compiled into bendsynth (`--version`, CBuildInfo): `make` passes its
// VERSION_STRING (the VERSION file and `git describe`) as BENDSYNTH_VERSION; a plain
// `swift build` takes the VERSION file. Only characters a version has are kept (it
// becomes a C string literal).
let buildVersion: String = {
    let given = Context.environment["BENDSYNTH_VERSION"].flatMap { $0.isEmpty ? nil : $0 }
    let file = try? String(contentsOfFile: Context.packageDirectory + "/VERSION", encoding: .utf8)
    let text = (given ?? file ?? "unknown").trimmingCharacters(in: .whitespacesAndNewlines)
    let kept = text.unicodeScalars.filter { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "+-._~".unicodeScalars.contains($0)) }
    return kept.isEmpty ? "unknown" : String(String.UnicodeScalarView(kept))
}()

// Tests use Swift 5 language mode: they start plain threads and share results with them.
let testSettings: [SwiftSetting] = [.swiftLanguageMode(.v5)]

let package = Package(
    name: "bendsynth",
    products: [
        .executable(name: "bendsynth", targets: ["bendsynth"]),
        // The LV2 plugin's objects (BendLV2 and everything below it): `make lv2` links them
        // into bendsynth.lv2/bendsynth.so with the Swift runtime inside (swiftc
        // -emit-library -static-stdlib; SwiftPM's dynamic library links the runtime's
        // shared libraries even with --static-swift-stdlib).
        .library(name: "BendLV2", type: .static, targets: ["BendLV2"]),
        // The benches (`make bench`): not linked into the shipped bendsynth.
        .executable(name: "bendsynth-bench", targets: ["bendsynth-bench"]),
    ],
    targets: [
        // C libraries from Debian, through pkg-config.
        .systemLibrary(name: "CALSA", path: "Sources/CALSA", pkgConfig: "alsa",
                       providers: [.apt(["libasound2-dev"])]),
        .systemLibrary(name: "CSndFile", path: "Sources/CSndFile", pkgConfig: "sndfile",
                       providers: [.apt(["libsndfile1-dev"])]),
        // libFLAC's metadata reader: the WAV chunks a FLAC keeps (`FLACForeignChunks`).
        .systemLibrary(name: "CFLAC", path: "Sources/CFLAC", pkgConfig: "flac",
                       providers: [.apt(["libflac-dev"])]),
        .systemLibrary(name: "CSampleRate", path: "Sources/CSampleRate", pkgConfig: "samplerate",
                       providers: [.apt(["libsamplerate0-dev"])]),
        // FFTW 3 (double precision): the tone's band-limited levels, made exactly by FFT.
        .systemLibrary(name: "CFFTW", path: "Sources/CFFTW", pkgConfig: "fftw3",
                       providers: [.apt(["libfftw3-dev"])]),
        .systemLibrary(name: "CEvdev", path: "Sources/CEvdev", pkgConfig: "libevdev",
                       providers: [.apt(["libevdev-dev"])]),
        .systemLibrary(name: "CSodium", path: "Sources/CSodium", pkgConfig: "libsodium",
                       providers: [.apt(["libsodium-dev"])]),
        .systemLibrary(name: "CBluetooth", path: "Sources/CBluetooth", pkgConfig: "bluez",
                       providers: [.apt(["libbluetooth-dev"])]),
        // libjack (jackd2's client library; PipeWire's too, through pw-jack): the JACK sink.
        .systemLibrary(name: "CJack", path: "Sources/CJack", pkgConfig: "jack",
                       providers: [.apt(["libjack-jackd2-dev"])]),
        // liblo: the OSC message codec.
        .systemLibrary(name: "CLO", path: "Sources/CLO", pkgConfig: "liblo",
                       providers: [.apt(["liblo-dev"])]),
        // Avahi client: DNS-SD discovery through a running avahi-daemon. No pkgConfig:
        // its cflags carry -D_REENTRANT, which SwiftPM warns about; headers are in /usr/include.
        .systemLibrary(name: "CAvahi", path: "Sources/CAvahi",
                       providers: [.apt(["libavahi-client-dev"])]),
        // libsystemd: sd_notify (READY=1 for a Type=notify service).
        .systemLibrary(name: "CSystemd", path: "Sources/CSystemd", pkgConfig: "libsystemd",
                       providers: [.apt(["libsystemd-dev"])]),
        // libwebsockets: HTTP, WebSocket and TLS of the web controller.
        .systemLibrary(name: "CWebsockets", path: "Sources/CWebsockets", pkgConfig: "libwebsockets",
                       providers: [.apt(["libwebsockets-dev"])]),
        // libqrencode: the web controller's URL as a QR code in the terminal.
        .systemLibrary(name: "CQRencode", path: "Sources/CQRencode", pkgConfig: "libqrencode",
                       providers: [.apt(["libqrencode-dev"])]),
        // OpenSSL: the web controller's self-signed certificate and its TLS context.
        .systemLibrary(name: "CSSL", path: "Sources/CSSL", pkgConfig: "openssl",
                       providers: [.apt(["libssl-dev"])]),
        // LV2 (header-only): the plugin API of bendsynth.lv2.
        .systemLibrary(name: "CLV2", path: "Sources/CLV2", pkgConfig: "lv2",
                       providers: [.apt(["lv2-dev"])]),
        // liblilv: the LV2 host library of the tests' and the benches' plugin host.
        .systemLibrary(name: "CLilv", path: "Sources/CLilv", pkgConfig: "lilv-0",
                       providers: [.apt(["liblilv-dev"])]),
        // glibc's getopt_long (not in the Glibc Swift module).
        .systemLibrary(name: "CGetopt", path: "Sources/CGetopt"),
        // glibc's GNU extensions the runtime uses (ppoll, accept4, eventfd, thread names).
        .systemLibrary(name: "CSystem", path: "Sources/CSystem"),
        // MXCSR (flush denormals on the render thread): <xmmintrin.h> wrappers.
        .systemLibrary(name: "CFloatEnv", path: "Sources/CFloatEnv"),
        // The version the build was made as (`bendsynth --version`), compiled in.
        .target(name: "CBuildInfo", path: "Sources/CBuildInfo",
                cSettings: [.define("BENDSYNTH_VERSION", to: "\"\(buildVersion)\"")]),
        // Test and bench support: the host side of the LV2 features (URID map, log, worker,
        // state paths, options) in C, for BendLV2Host.
        .target(name: "CLV2Host", dependencies: ["CLV2"], path: "Sources/CLV2Host"),
        // Test support only: counts malloc calls made on a marked thread.
        .target(name: "CAllocCounter", path: "Sources/CAllocCounter"),
        // Test support only: a fake input device behind a pipe whose evdev ioctls (libevdev's
        // open and its sync after SYN_DROPPED) are answered by an interposed ioctl().
        .target(name: "CFakeEvdev", path: "Sources/CFakeEvdev"),

        // The render loop: voices, mixer, rings. Imports Synchronization only.
        .target(name: "BendEngine", path: "Sources/BendEngine"),
        // The SFZ format's text (headers, opcodes, #define, #include) read into regions: a
        // pure decoder of outside bytes, below audio out, which loads the samples.
        .target(name: "BendSFZ", path: "Sources/BendSFZ"),
        // The runtime: errors, threads, the event loop, sockets, clocks, signals, terminal modes.
        .target(name: "BendSystem", dependencies: ["CFloatEnv", "CSystem", "CGetopt"], path: "Sources/BendSystem"),
        // Touches and tilt → engine events; pitch map; touch scripts.
        .target(name: "BendControl", dependencies: ["BendEngine", "BendSystem"], path: "Sources/BendControl"),
        // Audio out: the render driver (one period step) and its sinks (ALSA, JACK, clock-paced,
        // offline file), the Instrument, tone loading (libsndfile + libsamplerate), the band-limited levels (FFTW), WAV recording.
        .target(name: "BendAudio", dependencies: ["BendEngine", "BendSystem", "BendControl", "BendSFZ", "CALSA", "CJack", "CSndFile", "CFLAC", "CSampleRate", "CFFTW"],
                path: "Sources/BendAudio"),
        // Input sources that decode into touch events: the terminal.
        .target(name: "BendInput", dependencies: ["BendControl", "BendSystem"], path: "Sources/BendInput"),
        // Input devices (evdev: touchscreens, touchpads, accelerometers) and evemu recordings.
        .target(name: "BendEvdev", dependencies: ["BendControl", "BendSystem", "CEvdev"], path: "Sources/BendEvdev"),
        // OSC and TUIO input: packets → control events; the UDP/TCP receiver.
        .target(name: "BendOSC", dependencies: ["BendControl", "BendSystem", "CLO"], path: "Sources/BendOSC"),
        // MIDI: the stream interpreter (MIDI/MPE → touches), the MPE encoder (touches → MPE),
        // Standard MIDI Files (reader, writer, MIDI file → touch script, --record-midi).
        .target(name: "BendMIDI", dependencies: ["BendControl", "BendSystem", "CALSA"], path: "Sources/BendMIDI"),
        // The web controller (`play --web`): a phone's browser is the pad. The page's
        // messages → control events; libwebsockets serves the page and the WebSocket.
        .target(name: "BendWeb", dependencies: ["BendControl", "BendSystem", "CWebsockets", "CQRencode", "CSSL", "CSodium"], path: "Sources/BendWeb"),
        // The benches: the mixer's cost; evdev, OSC, peer and web latency; the soak; the
        // LV2 plugin through liblilv (BendLV2Host) beside its instrument (BendInstrument).
        // The bendsynth-bench executable runs them.
        .target(name: "BendBench", dependencies: ["BendEngine", "BendSystem", "BendControl", "BendAudio", "BendEvdev", "BendOSC", "BendPeers", "BendWeb",
                                                  "BendInstrument", "BendLV2Host", "BendMIDI"],
                path: "Sources/BendBench"),
        // libsystemd's services (the system layer beside BendSystem, which links no
        // libsystemd): D-Bus through sd-bus (calls, our own objects, signal matches, run by
        // an EventLoop; BlueZ, BendPeers' Bluetooth*, talks through it), RealtimeKit (real-time
        // priority when SCHED_FIFO is refused) and sd_notify (a Type=notify service's READY=1).
        .target(name: "BendDBus", dependencies: ["BendSystem", "CSystemd"], path: "Sources/BendDBus"),
        // Command line: options, commands, wiring.
        // The instrument assembly: settings (tone, scale, mapping, sources, sinks) → an
        // instrument that owns its sources, render driver and shutdown. `play`, `render` and
        // the LV2 plugin are front ends over it.
        .target(name: "BendInstrument", dependencies: ["BendEngine", "BendSystem", "BendControl", "BendDBus", "BendAudio", "BendInput", "BendEvdev", "BendOSC", "BendPeers", "BendWeb", "BendMIDI", "CALSA"], path: "Sources/BendInstrument"),
        .target(name: "BendApp", dependencies: ["BendInstrument", "BendEngine", "BendSystem", "BendControl", "BendAudio", "BendEvdev", "BendPeers", "BendOSC", "BendWeb", "BendDBus", "CBuildInfo"],
                path: "Sources/BendApp"),
        // Peer sessions: the frame codec, TCP/UDP and RFCOMM transports, shared-key auth.
        .target(name: "BendPeers", dependencies: ["BendControl", "BendSystem", "BendDBus", "CSodium", "CBluetooth", "CAvahi"], path: "Sources/BendPeers"),
        // The LV2 instrument plugin (bendsynth.lv2): a front end over the instrument, as
        // the command line is.
        .target(name: "BendLV2", dependencies: ["BendSystem", "BendControl", "BendWeb", "BendInstrument", "CLV2"], path: "Sources/BendLV2"),
        // Test and bench support: a headless LV2 host on liblilv (instantiate, ports, MIDI
        // in, atom out, worker, state).
        .target(name: "BendLV2Host", dependencies: ["CLilv", "CLV2", "CLV2Host"], path: "Sources/BendLV2Host"),
        .executableTarget(name: "bendsynth", dependencies: ["BendApp"], path: "Sources/bendsynth"),
        // `bendsynth-bench`: the benches' command line (the app's option parser and messages).
        .executableTarget(name: "bendsynth-bench", dependencies: ["BendApp", "BendInstrument", "BendSystem", "BendBench", "BendAudio", "BendDBus", "BendEngine", "BendEvdev"],
                          path: "Sources/bendsynth-bench"),
        // The fuzz targets: one per decoder of outside bytes (`make fuzz` builds them with
        // libFuzzer and AddressSanitizer, Fuzz/fuzz.sh; this build replays inputs).
        .executableTarget(name: "BendFuzz", dependencies: ["BendControl", "BendInput", "BendEvdev", "BendOSC", "BendPeers", "BendWeb", "BendMIDI", "BendSFZ"],
                          path: "Sources/BendFuzz"),

        // Test helpers: FFT, RMS, steps, test tones; the one render harness (an offline
        // Instrument rendered through the render driver's period step); a private jackd
        // and a JACK capture client.
        .target(name: "BendTestSupport", dependencies: ["BendEngine", "BendControl", "BendAudio", "CJack", "CSndFile"], path: "Tests/BendTestSupport"),
        .testTarget(name: "BendEngineTests", dependencies: ["BendEngine", "BendTestSupport", "CAllocCounter"], path: "Tests/BendEngineTests", swiftSettings: testSettings),
        .testTarget(name: "BendSystemTests", dependencies: ["BendSystem"], path: "Tests/BendSystemTests", swiftSettings: testSettings),
        .testTarget(name: "BendSFZTests", dependencies: ["BendSFZ"], path: "Tests/BendSFZTests", swiftSettings: testSettings),
        .testTarget(name: "BendControlTests", dependencies: ["BendControl", "BendEngine", "BendSystem", "BendTestSupport", "CAllocCounter"], path: "Tests/BendControlTests", swiftSettings: testSettings),
        .testTarget(name: "BendAudioTests", dependencies: ["BendAudio", "BendControl", "BendEngine", "BendSystem", "BendTestSupport", "CALSA", "CSndFile"], path: "Tests/BendAudioTests", swiftSettings: testSettings),
        .testTarget(name: "BendInstrumentTests", dependencies: ["BendInstrument", "BendAudio", "BendControl", "BendEngine", "BendSystem", "BendTestSupport"], path: "Tests/BendInstrumentTests", swiftSettings: testSettings),
        .testTarget(name: "BendInputTests", dependencies: ["BendInput", "BendControl", "BendSystem"], path: "Tests/BendInputTests", swiftSettings: testSettings),
        .testTarget(name: "BendEvdevTests", dependencies: ["BendEvdev", "BendControl", "BendEngine", "BendInstrument", "BendTestSupport", "CEvdev", "CFakeEvdev"],
                    path: "Tests/BendEvdevTests", exclude: ["Fixtures"], swiftSettings: testSettings),
        .testTarget(name: "BendOSCTests", dependencies: ["BendOSC", "BendControl", "BendSystem", "BendTestSupport"], path: "Tests/BendOSCTests", swiftSettings: testSettings),
        .testTarget(name: "BendMIDITests", dependencies: ["BendMIDI", "BendControl", "BendEngine", "BendTestSupport", "CAllocCounter"], path: "Tests/BendMIDITests",
                    exclude: ["Fixtures"], swiftSettings: testSettings),
        .testTarget(name: "BendDBusTests", dependencies: ["BendDBus", "BendSystem"], path: "Tests/BendDBusTests", swiftSettings: testSettings),
        .testTarget(name: "BendPeersTests", dependencies: ["BendPeers", "BendControl", "BendSystem", "BendDBus", "BendTestSupport"], path: "Tests/BendPeersTests", swiftSettings: testSettings),
        .testTarget(name: "BendAppTests", dependencies: ["BendApp", "BendInstrument", "BendDBus", "BendAudio", "BendControl", "BendEngine", "BendSystem", "BendInput", "BendEvdev", "BendPeers", "BendOSC", "BendMIDI", "BendTestSupport", "CSndFile"], path: "Tests/BendAppTests", exclude: ["osc", "web", "bluez"], swiftSettings: testSettings),
        .testTarget(name: "BendLV2Tests", dependencies: ["BendLV2Host", "BendControl", "BendMIDI", "BendSystem", "BendTestSupport", "CAllocCounter", "CSndFile"], path: "Tests/BendLV2Tests",
                    exclude: ["ardour"], swiftSettings: testSettings),
        .testTarget(name: "BendWebTests", dependencies: ["BendWeb", "BendControl", "BendTestSupport"], path: "Tests/BendWebTests", swiftSettings: testSettings),
    ]
)
