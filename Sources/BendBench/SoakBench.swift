// SPDX-License-Identifier: GPL-3.0-or-later
import BendAudio
import BendControl
import BendEngine
import BendOSC
import BendPeers
import BendSystem
import BendWeb
import Foundation
import Glibc
import Synchronization

/// `bendsynth-bench --soak`: the instrument under every network source at once, on the
/// JACK server it finds (Benchmarks/soak.sh starts jackd's dummy driver, 256-frame
/// periods, on a private server name): 8 peer controllers (each holding more touches than
/// a peer may), an OSC flood touching ten times a sender's touch limit at ten times its
/// event rate, and 8 web pad clients (each holding more touches than a phone may),
/// for `seconds`. Then every source goes (peers leave, phones close, the OSC sender
/// releases its touches). Prints xruns, the limits (most touches held per source, touches
/// refused), events dropped, resident memory after warm-up and at the end, and how long
/// after the sources went the last touch ended and the last voice fell silent. Figures
/// only; nothing is asserted.
public enum SoakBench {
    /// One source's touches as its port sees them. - Thread: the source's.
    final class TouchTally: ControlEventObserver, @unchecked Sendable {
        private struct State { var held = Set<UInt64>(); var most = 0; var downs = 0 }
        private let state = Mutex(State())
        func observe(_ event: ControlEvent, source: UInt32, streamFrame: UInt64) {
            guard let (id, phase) = event.touchPhase else { return }
            let key = UInt64(source) << 32 | UInt64(id)
            state.withLock { s in
                switch phase {
                case .down: s.held.insert(key); s.downs += 1; s.most = max(s.most, s.held.count)
                case .move: break
                case .up: s.held.remove(key)
                }
            }
        }
        var held: Int { state.withLock { $0.held.count } }
        var most: Int { state.withLock { $0.most } }
        var downs: Int { state.withLock { $0.downs } }
    }

    /// The JACK output as sources see it.
    final class Status: OutputStatus, @unchecked Sendable {
        let output: JACKOutput
        init(output: JACKOutput) { self.output = output }
        var description: String { output.description }
        var xruns: Int? { output.xruns }
        var failureDescription: String? { output.failureDescription }
    }

    /// Resident set size of this process, bytes (/proc/self/status VmRSS).
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return 0 }
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
    }

    public static func run(seconds: Double, assets: String, log: @escaping @Sendable (String) -> Void) throws {
        let peers = 8, peerTouches = PeerLimits().touchesAtOnce + 2
        let phones = WebLimits().maxConnections, phoneTouches = WebLimits().maxTouches + 2
        let oscTouches = 10 * OSCInterpreter.maxTouchesPerSender, oscRate = 10 * OSCInterpreter.maxEventsPerSecond
        let output: JACKOutput
        do { output = try JACKOutput(name: "bendsynth-soak", connect: true) } catch {
            throw BenchError.setup("--soak: no JACK server (Benchmarks/soak.sh starts one): \(error)")
        }
        let rate = output.rate
        var samples = [Float](repeating: 0, count: 480)
        for i in samples.indices { samples[i] = 0.5 * sin(2 * .pi * Float(i) / 480) }
        let tone = ToneTable(samples: samples, rate: Double(rate))
        let instrument = Instrument(configuration: MixerConfiguration(rate: Double(rate), maxPeriodFrames: output.periodFrames, voices: 1024),
                                    tone: tone, live: true)
        let mixer = instrument.mixer
        let tallies = (osc: TouchTally(), peers: TouchTally(), web: TouchTally())
        let oscPort = instrument.addPort(pitchMap: .linear, observers: [tallies.osc])
        let peerPort = instrument.addPort(pitchMap: .linear, observers: [tallies.peers])
        let webPort = instrument.addPort(pitchMap: .linear, observers: [tallies.web])
        let context = InputContext(meters: InstrumentMeters(mixer: mixer), output: Status(output: output), pitchMap: .linear, rate: Double(rate))

        let oscBound = Mutex<String?>(nil)
        let osc = OSCSource(address: try OSCListenAddress("127.0.0.1:0", allow: []), tcp: false, timeout: 2) { line in
            if let r = line.range(of: "listening on udp ") {
                oscBound.withLock { $0 = String(line[r.upperBound...].prefix { $0 != "," && $0 != " " }) }
            } else { log(line) }
        }
        let peerSource = PeerSource(listening: try! SocketAddress.parse("127.0.0.1:0"), key: nil)
        let token = WebToken.random()
        let sessions = WebSessions(token: token, emit: { webPort.send($0) }, status: { (output.xruns, mixer.activeVoices) })
        let web: WebServer
        do {
            try osc.start(port: oscPort, context: context) {}
            try peerSource.start(port: peerPort, context: context) {}
            web = try WebServer(address: WebListenAddress(host: "127.0.0.1", port: 0), certificate: nil,
                                assets: try WebAssets(directory: assets), sessions: sessions, log: { _ in })
            try output.start(instrument.driver())
        } catch {
            osc.stop(); peerSource.stop(); output.stop()
            instrument.deallocate(); tone.deallocate()
            throw BenchError.setup("--soak: \(error)")
        }
        defer { instrument.deallocate(); tone.deallocate() }
        guard let oscPortNumber = oscBound.withLock({ $0 }).flatMap({ $0.split(separator: ":").last }).flatMap({ UInt16($0) }),
              let peerAddress = peerSource.boundAddress,
              let webPortNumber = web.url.split(separator: ":").last.flatMap({ UInt16($0.prefix { $0.isNumber }) }) else {
            throw BenchError.setup("--soak: the sources did not say where they listen")
        }
        log("soak: JACK '\(output.serverName)' \(rate) Hz, \(output.periodFrames)-frame periods; \(peers) peers × \(peerTouches) touches (limit \(peerTouches - 2)), "
            + "\(phones) web pads × \(phoneTouches) touches (limit \(phoneTouches - 2)), OSC flood: \(oscTouches) touches at \(Int(oscRate)) datagrams/s (10 × a sender's limits, \(OSCInterpreter.maxTouchesPerSender) touches and \(Int(OSCInterpreter.maxEventsPerSecond)) events/s); \(Int(seconds)) s")

        // The load, each on its own thread, until `stop`.
        let stop = Atomic<Bool>(false)
        let failures = Mutex<[String]>([])
        var threads: [SystemThread] = []
        let controllers = try (0..<peers).map { i -> PeerSession in
            let c = try PeerSession(configuration: .init(displayName: "soak peer \(i)", role: .client))
            _ = try c.connect(to: peerAddress)
            return c
        }
        for (i, c) in controllers.enumerated() {
            threads.append(try SystemThread(name: "soak peer \(i)") {
                var n = 0
                while !stop.load(ordering: .relaxed) {
                    let id = UInt32(n % peerTouches), round = n / peerTouches
                    let phase: TouchPhase = round % 50 == 0 ? .down : round % 50 == 49 ? .up : .move
                    _ = c.send(.touch(id: id, phase: phase, x: Float(id) / Float(peerTouches), y: Float(round % 10) / 10, timestamp: MonotonicClock.nanos()))
                    n += 1
                    if n % 10 == 0 { usleep(10_000) }   // 1000 events/s: half a peer's limit
                }
            })
        }
        let pads = try (0..<phones).map { _ in try WebPadClient(port: webPortNumber, token: token.text) }
        for (i, pad) in pads.enumerated() {
            threads.append(try SystemThread(name: "soak web \(i)") {
                var round = 0
                while !stop.load(ordering: .relaxed) {
                    let verb = round % 50 == 0 ? "d" : round % 50 == 49 ? "u" : "m"
                    let lines = (0..<phoneTouches).map { id in "\(verb) \(id) \(Double(id) / Double(phoneTouches)) \(Double(round % 10) / 10) \(round)" }
                    do { try pad.send(lines.joined(separator: "\n")) } catch {
                        failures.withLock { $0.append("\(error)") }
                        return
                    }
                    round += 1
                    usleep(40_000)   // 25 messages, 450 events a second: under a phone's 2000
                }
            })
        }
        let flood = try OSCFlood(port: oscPortNumber, touches: oscTouches, rate: oscRate)
        threads.append(try SystemThread(name: "soak osc") { flood.run(until: { stop.load(ordering: .relaxed) }) })

        let warmup = min(10, seconds / 4)
        let start = MonotonicClock.nanos()
        func elapsed() -> Double { Double(MonotonicClock.nanos() - start) / 1e9 }
        while elapsed() < warmup { usleep(100_000) }
        let rssWarm = residentBytes(), xrunsWarm = output.xruns
        var rssMost = rssWarm
        while elapsed() < seconds {
            usleep(500_000)
            rssMost = max(rssMost, residentBytes())
        }
        let rssEnd = residentBytes()
        let most = (osc: tallies.osc.most, peers: tallies.peers.most, web: tallies.web.most)

        // Every source goes: the load stops, peers leave, phones close, OSC releases.
        // Timed from the moment the load has stopped, the leaving included.
        stop.store(true, ordering: .relaxed)
        threads.forEach { $0.join() }
        let gone = MonotonicClock.nanos()
        controllers.forEach { $0.stop() }
        pads.forEach { $0.close() }
        flood.releaseAll()
        let left = Double(MonotonicClock.nanos() - gone) / 1e9
        var touchesEnded: Double?, voicesSilent: Double?
        while MonotonicClock.nanos() - gone < 5_000_000_000 {
            let t = Double(MonotonicClock.nanos() - gone) / 1e9
            if touchesEnded == nil, tallies.osc.held + tallies.peers.held + tallies.web.held == 0 { touchesEnded = t }
            if voicesSilent == nil, touchesEnded != nil, mixer.activeVoices == 0 { voicesSilent = t }
            if voicesSilent != nil { break }
            usleep(1_000)
        }
        let held = (osc: tallies.osc.held, peers: tallies.peers.held, web: tallies.web.held)
        let xruns = output.xruns, periods = output.periodsRendered, dropped = instrument.dropped
        osc.stop(); peerSource.stop(); web.stop()
        let summary = output.loadMeter?.summary
        output.stop()

        func mib(_ b: Int) -> String { String(format: "%.2f MiB", Double(b) / 1_048_576) }
        print(String(format: "soak: %.0f s on JACK's dummy driver, %d-frame periods at %d Hz: %d periods rendered, %d ",
                     seconds, output.periodFrames, rate, periods, xruns)
              + (xruns == 1 ? "xrun" : "xruns") + String(format: " (%d after the %.0f s warm-up)", xruns - xrunsWarm, warmup))
        if let summary { print("  \(summary)") }
        print("  limits: OSC sender held at most \(most.osc) touches (limit \(OSCInterpreter.maxTouchesPerSender) per sender); \(flood.sent) datagrams sent, \(tallies.osc.downs) touches started, \(oscTouches - most.osc) of its \(oscTouches) ids never held at once")
        print("          peers held at most \(most.peers) touches (limit \(peers) × \(PeerLimits().touchesAtOnce) = \(peers * PeerLimits().touchesAtOnce)); \(tallies.peers.downs) touches started")
        let padsLost = failures.withLock { $0.count }
        print("          web pads held at most \(most.web) touches (limit \(phones) × \(WebLimits().maxTouches) = \(phones * WebLimits().maxTouches)); \(tallies.web.downs) touches started; "
              + (padsLost == 0 ? "all \(phones) pads connected to the end" : "\(padsLost) of \(phones) pads lost (below)"))
        print("  events dropped (engine queue full): \(dropped)")
        print("  resident memory (whole process: instrument and load): \(mib(rssWarm)) after warm-up, \(mib(rssEnd)) at the end, growth \(mib(rssEnd - rssWarm)) (most \(mib(rssMost)); goal < 1 MiB)")
        if let touchesEnded, let voicesSilent {
            print(String(format: "  after the load stopped: the sources left within %.3f s; the last touch ended after %.3f s, the last voice fell silent after %.3f s (goal < 1 s)", left, touchesEnded, voicesSilent))
        } else {
            print("  after every source went: NOT all ended within 5 s: touches held OSC \(held.osc), peers \(held.peers), web \(held.web); \(mixer.activeVoices) voices sounding")
        }
        for f in failures.withLock({ $0 }).prefix(3) { print("  load failure: \(f)") }
    }
}
