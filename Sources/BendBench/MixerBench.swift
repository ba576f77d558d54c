// SPDX-License-Identifier: GPL-3.0-or-later
import BendAudio
import BendEngine
import BendSystem
import Foundation

/// `bendsynth-bench`: renders offline with N moving voices through the instrument and
/// the render driver's period step, and measures the cost of the mixer: ns per
/// voice-frame, the real-time factor, and the voices one core could mix in real time.
/// Figures on a shared machine move by 25 % or more between runs.
public enum MixerBench {
    public struct Result: Codable {
        public var voices: Int
        public var periodFrames: Int
        public var interpolation: String
        public var seconds: Double
        public var nsPerVoiceFrame: Double
        public var realTimeFactor: Double
        public var voicesPerCoreRealTime: Double
        /// Largest absolute output sample (the render was not silent).
        public var peak: Double
        /// Voices sounding after the last period (all N).
        public var activeVoices: Int
        /// The moves were spread over each period (`--spread`), not at its first frame.
        public var movesSpread: Bool
        /// Memory of the tone's tables (samples, cubic and linear rows, band-limited
        /// levels when played), bytes.
        public var tableBytes: Int
        /// Seconds `ToneLevelMaker` took to make the band-limited levels (0 without them):
        /// the start-up cost of the tables.
        public var levelSeconds: Double
    }

    /// The bench's voice set, shared with Benchmarks/OpenALBaseline (same formulas):
    /// voice v starts at ratio 0.5 + 1.5·((37v) mod 97)/96 and gain 0.5/√N; in period p
    /// it moves to ratio 0.5 + 1.5·((7v + p) mod 97)/96, gain (0.3 + 0.2·((v + p) mod 5)/4)/√N.
    public static func startRatio(_ v: Int) -> Float { 0.5 + 1.5 * Float((v &* 37) % 97) / 96 }
    public static func moveRatio(_ v: Int, period p: Int) -> Float { 0.5 + 1.5 * Float((v &* 7 &+ p) % 97) / 96 }
    public static func moveGain(_ v: Int, period p: Int, voices: Int) -> Float {
        (0.3 + 0.2 * Float((v + p) % 5) / 4) / Float(voices).squareRoot()
    }

    /// The bench tone: 1 s of 440 Hz with two harmonics, as the OpenAL baseline makes it.
    public static func tone(rate: Double) -> [Float] {
        (0..<Int(rate)).map { i -> Float in
            let p = 2 * Double.pi * 440 * Double(i) / rate
            return Float(0.5 * sin(p) + 0.25 * sin(2 * p) + 0.125 * sin(3 * p))
        }
    }

    /// Renders `seconds` of audio with `voices` looping voices whose pitch (0.5…2) and
    /// gain move every period (at its first frame, or with `spread` voice v at frame
    /// ⌊v·period/voices⌋ of it), and times each period's updates (the events pushed, as
    /// OpenAL's baseline times its property setters) and period step. Denormals are
    /// flushed as on the render thread.
    /// - Thread: any non-real-time thread.
    public static func measure(voices: Int, period: Int, seconds: Double, rate: Double, interpolation: Interpolation,
                               spread: Bool = false, effects: Bool = false) throws -> Result {
        let saved = FloatEnvironment.flushDenormals()  // as on the render thread
        defer { FloatEnvironment.restore(saved) }
        let samples = tone(rate: rate)
        var levels: ToneLevels?
        var levelNanos: UInt64 = 0
        if case .bandLimited = interpolation {
            let t0 = MonotonicClock.nanos()
            do { levels = try ToneLevelMaker.make(samples, path: "bench tone") } catch { throw BenchError.setup("\(error)") }
            levelNanos = MonotonicClock.nanos() - t0
        }
        let tone = ToneTable(samples: samples, rate: rate, levels: levels)
        var config = MixerConfiguration(rate: rate, maxPeriodFrames: period, voices: voices)
        config.eventsPerSource = max(4096, voices * 2)
        config.interpolation = interpolation
        if effects {
            var fx = EffectSettings()
            (fx.reverbSend, fx.delaySend, fx.chorusSend) = (0.3, 0.2, 0.2)
            config.effects = fx
        }
        let instrument = Instrument(configuration: config, tone: tone, live: false)
        defer { instrument.deallocate(); tone.deallocate() }
        let mixer = instrument.mixer
        // Engine events straight on a ring (as OpenAL's setters), not through a port's pitch map.
        let (source, ring) = mixer.addSource()
        let driver = instrument.driver()
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
            _ = driver.period(frames: period, into: .float(out))
            busy += MonotonicClock.nanos() - t0
            peak = max(peak, mixer.peak)
        }
        let frames = Double(periods * period)
        let ns = Double(busy) / (frames * Double(voices))
        let rtf = (frames / rate) / (Double(busy) * 1e-9)
        return Result(voices: voices, periodFrames: period, interpolation: levels != nil ? "bandlimited" : "\(interpolation)", seconds: frames / rate,
                      nsPerVoiceFrame: ns, realTimeFactor: rtf, voicesPerCoreRealTime: 1e9 / (ns * rate),
                      peak: Double(peak), activeVoices: mixer.activeVoices, movesSpread: spread,
                      tableBytes: tone.baseBytes + tone.levelBytes, levelSeconds: Double(levelNanos) * 1e-9)
    }
}
