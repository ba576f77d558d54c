import BendEngine
import BendSystem
import Foundation

/// `bendsynth bench`: renders offline with N moving voices and prints the cost of the
/// mixer: ns per voice-frame, the real-time factor, and the voices one core could mix
/// in real time. Figures on a shared machine move by 25 % or more between runs.
enum BenchCommand {
    static let specs: [OptionSpec] = [
        OptionSpec("voices", "n", value: "LIST", help: "comma-separated voice counts (default 16,64,256,1024)"),
        OptionSpec("period", value: "FRAMES", help: "period in frames (16…8192, default 256)"),
        OptionSpec("seconds", value: "S", help: "seconds of audio rendered per voice count (0.01…600, default 4)"),
        OptionSpec("rate", "r", value: "HZ", help: "rate in frames per second (default 48000)"),
        OptionSpec("interp", value: "linear|cubic", help: "interpolation (default cubic)"),
        OptionSpec("spread", help: "spread each period's moves over its frames (voice v at frame ⌊v·period/N⌋), as live input comes, instead of all at its first frame"),
        OptionSpec("json", help: "print the figures as JSON"),
        OptionSpec("peers", value: "LIST", help: "instead: loopback peer touch latency with these peer counts (e.g. 1,8)"),
        OptionSpec("osc", help: "instead: OSC datagram → frame latency (median, p99) at --period, 1000 datagrams on loopback"),
        OptionSpec("help", "h", help: "show this help"),
    ]

    struct Result: Codable {
        var voices: Int
        var periodFrames: Int
        var interpolation: String
        var seconds: Double
        var nsPerVoiceFrame: Double
        var realTimeFactor: Double
        var voicesPerCoreRealTime: Double
        /// Largest absolute output sample (the render was not silent).
        var peak: Double
        /// Voices sounding after the last period (all N).
        var activeVoices: Int
        /// The moves were spread over each period (`--spread`), not at its first frame.
        var movesSpread: Bool
    }

    static func run(_ arguments: [String]) throws {
        let (options, operands) = try parse(arguments, specs: specs)
        guard operands.isEmpty else { throw AppError.usage("bench: unexpected argument '\(operands[0])'") }
        var counts = [16, 64, 256, 1024]
        var period = 256
        var seconds = 4.0
        var rate = 48_000
        var json = false
        var peerCounts: [Int]?
        var interpolation = Interpolation.cubic
        var osc = false
        var spread = false
        for (name, value) in options {
            switch name {
            case "help":
                print("usage: bendsynth bench [--voices LIST] [--period FRAMES] [--seconds S] [--interp linear|cubic] [--spread] [--json]\n\n" + OptionParser.help(specs))
                return
            case "voices": counts = try countList(value, option: name, of: "counts", in: 1...65_536)
            case "period": period = try OptionValues.integer(value, option: name, in: 16...8192)
            case "seconds": seconds = try OptionValues.number(value, option: name, in: 0.01...600)
            case "rate": rate = try OptionValues.integer(value, option: name, in: 8_000...192_000)
            case "interp":
                switch value {
                case "linear": interpolation = .linear
                case "cubic": interpolation = .cubic
                default: throw AppError.usage("option '--interp': expected 'linear' or 'cubic', got '\(value ?? "")'")
                }
            case "json": json = true
            case "peers": peerCounts = try countList(value, option: name, of: "peer counts", in: 1...8)
            case "spread": spread = true
            case "osc": osc = true
            default: break
            }
        }
        if let peerCounts { return try PeerBench.run(peerCounts, seconds: min(seconds, 10), json: json) }
        if osc {
            let r = try OSCBench.measure(period: period, rate: rate, count: 1_000)
            print(String(format: "OSC datagram → frame it takes effect, %d-frame periods (%.2f ms): median %.2f ms, p99 %.2f ms, max %.2f ms over %d datagrams (loopback UDP, paced render, offline from StreamClock stamps)",
                         r.periodFrames, Double(r.periodFrames) * 1000 / Double(rate), r.median, r.p99, r.max, r.count))
            return
        }
        var results: [Result] = []
        for n in counts {
            let saved = FloatEnvironment.flushDenormals()  // as on the render thread
            let r = measure(voices: n, period: period, seconds: seconds, rate: Double(rate), interpolation: interpolation, spread: spread)
            FloatEnvironment.restore(saved)
            results.append(r)
            if !json {
                print(String(format: "%5d voices, %4d-frame periods, %@%@: %7.2f ns per voice-frame, %8.1f× real time, ≈%.0f voices per core in real time",
                             r.voices, r.periodFrames, r.interpolation, spread ? ", moves spread" : "", r.nsPerVoiceFrame, r.realTimeFactor, r.voicesPerCoreRealTime))
            }
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(results), as: UTF8.self))
        }
        if let bad = results.first(where: { $0.peak < 1e-4 || $0.activeVoices != $0.voices }) {
            throw AppError.runtime("bench: \(bad.voices) voices rendered peak \(bad.peak) with \(bad.activeVoices) voices sounding; expected sound from all of them")
        }
    }

    /// A comma-separated list of integers in `range` (`what` names them in the error).
    static func countList(_ value: String?, option: String, of what: String, in range: ClosedRange<Int>) throws -> [Int] {
        let parts = (value ?? "").split(separator: ",", omittingEmptySubsequences: false).map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !parts.isEmpty, parts.allSatisfy({ $0 != nil && range.contains($0!) }) else {
            throw AppError.usage("option '--\(option)': expected a comma-separated list of \(what) in \(range.lowerBound)…\(range.upperBound), got '\(value ?? "")'")
        }
        return parts.map { $0! }
    }

    /// The bench's voice set, shared with Benchmarks/OpenALBaseline (same formulas):
    /// voice v starts at ratio 0.5 + 1.5·((37v) mod 97)/96 and gain 0.5/√N; in period p
    /// it moves to ratio 0.5 + 1.5·((7v + p) mod 97)/96, gain (0.3 + 0.2·((v + p) mod 5)/4)/√N.
    static func startRatio(_ v: Int) -> Float { 0.5 + 1.5 * Float((v &* 37) % 97) / 96 }
    static func moveRatio(_ v: Int, period p: Int) -> Float { 0.5 + 1.5 * Float((v &* 7 &+ p) % 97) / 96 }
    static func moveGain(_ v: Int, period p: Int, voices: Int) -> Float {
        (0.3 + 0.2 * Float((v + p) % 5) / 4) / Float(voices).squareRoot()
    }

    /// The bench tone: 1 s of 440 Hz with two harmonics, as the OpenAL baseline makes it.
    static func tone(rate: Double) -> [Float] {
        (0..<Int(rate)).map { i -> Float in
            let p = 2 * Double.pi * 440 * Double(i) / rate
            return Float(0.5 * sin(p) + 0.25 * sin(2 * p) + 0.125 * sin(3 * p))
        }
    }

    /// Renders `seconds` of audio with `voices` looping voices whose pitch (0.5…2) and
    /// gain move every period (at its first frame, or with `spread` voice v at frame
    /// ⌊v·period/voices⌋ of it), and times each period's updates (the events pushed, as
    /// OpenAL's baseline times its property setters) and render call.
    static func measure(voices: Int, period: Int, seconds: Double, rate: Double, interpolation: Interpolation,
                        spread: Bool = false) -> Result {
        let tone = ToneTable(samples: tone(rate: rate), rate: rate)
        var config = MixerConfiguration(rate: rate, maxPeriodFrames: period, voices: voices)
        config.eventsPerSource = max(4096, voices * 2)
        config.interpolation = interpolation
        let mixer = Mixer(configuration: config, tone: tone)
        defer { mixer.deallocate(); tone.deallocate() }
        let (source, ring) = mixer.addSource()
        let out = UnsafeMutablePointer<Float>.allocate(capacity: 2 * period)
        defer { out.deallocate() }
        for v in 0..<voices {
            ring.push(EngineEvent(frame: 0, kind: .down, key: TouchKey(source: source, touch: UInt32(v)),
                                  value: startRatio(v), gain: 0.5 / Float(voices).squareRoot()))
        }
        let periods = max(1, Int(seconds * rate) / period)
        var busy: UInt64 = 0
        var peak: Float = 0
        for p in 0..<periods {
            let t0 = MonotonicClock.nanos()
            // Move every voice's pitch and gain once per period.
            let frame = mixer.position
            var v = 0
            while v < voices {
                ring.push(EngineEvent(frame: spread ? frame &+ UInt64(v &* period / voices) : frame, kind: .move, key: TouchKey(source: source, touch: UInt32(v)),
                                      value: moveRatio(v, period: p), gain: moveGain(v, period: p, voices: voices)))
                v += 1
            }
            mixer.render(into: out, frames: period)
            busy += MonotonicClock.nanos() - t0
            peak = max(peak, mixer.peak)
        }
        let frames = Double(periods * period)
        let ns = Double(busy) / (frames * Double(voices))
        let rtf = (frames / rate) / (Double(busy) * 1e-9)
        return Result(voices: voices, periodFrames: period, interpolation: "\(interpolation)", seconds: frames / rate,
                      nsPerVoiceFrame: ns, realTimeFactor: rtf, voicesPerCoreRealTime: 1e9 / (ns * rate),
                      peak: Double(peak), activeVoices: mixer.activeVoices, movesSpread: spread)
    }
}
