// SPDX-License-Identifier: GPL-3.0-or-later
import XCTest
import BendEngine
import BendTestSupport

/// The optimised mixer (SIMD8 blocks, repeated loop, closed-form glides) against the plain
/// frame-by-frame `ReferenceMixer` on random voice sets: the largest difference of any
/// output sample stays below −100 dBFS.
final class MixerReferenceTests: XCTestCase {
    func randomEvents(voices: Int, frames: Int, using rng: inout SplitMix) -> [EngineEvent] {
        var events: [EngineEvent] = []
        for v in 0..<voices {
            let key = TouchKey(source: 0, touch: UInt32(v))
            var f = Int.random(in: 0..<(frames / 2), using: &rng)
            events.append(EngineEvent(frame: UInt64(f), kind: .down, key: key,
                                      value: Float.random(in: 0...2.5, using: &rng), gain: Float.random(in: 0...1, using: &rng) / Float(voices)))
            for _ in 0..<Int.random(in: 0...12, using: &rng) {
                f += Int.random(in: 1...3000, using: &rng)
                guard f < frames else { break }
                // Some moves go to ratio 0 (silence) or above the 0…4 range (clamped at 8).
                let ratio: Float = [0, 9, Float.random(in: 0...4, using: &rng)][Int.random(in: 0...9, using: &rng) < 8 ? 2 : Int.random(in: 0...1, using: &rng)]
                events.append(EngineEvent(frame: UInt64(f), kind: .move, key: key, value: ratio, gain: Float.random(in: 0...1, using: &rng) / Float(voices)))
            }
            f += Int.random(in: 1...8000, using: &rng)
            if f < frames { events.append(EngineEvent(frame: UInt64(f), kind: .up, key: key)) }
        }
        for _ in 0..<4 {
            events.append(EngineEvent(frame: UInt64.random(in: 0..<UInt64(frames), using: &rng), kind: .pan, value: Float.random(in: -1.2...1.2, using: &rng)))
        }
        return events.enumerated().sorted { ($0.element.frame, $0.offset) < ($1.element.frame, $1.offset) }.map(\.element)
    }

    /// `events` rendered by the mixer (through the render harness) and by `ReferenceMixer`,
    /// both with `configure`'s configuration, the tone `samples` and `levels`: the largest
    /// difference of any output sample, its index, and the reference's peak.
    func compareWithReference(tone samples: [Float], levels: ToneLevels? = nil, voices: Int, period: Int, frames: Int,
                              events: [EngineEvent], configure: (inout MixerConfiguration) -> Void) -> (worst: Double, worstAt: Int, peak: Double) {
        let h = RenderHarness(voices: voices, period: period, tone: samples, levels: levels, configure: configure)
        defer { h.free() }
        let fast = h.render(frames: frames, events: events)
        var configuration = MixerConfiguration(rate: 48_000, maxPeriodFrames: period, voices: voices)
        configure(&configuration)
        var reference = ReferenceMixer(tone: samples, configuration: configuration, levels: levels)
        let slow = reference.render(frames: frames, events: events)
        var worst = 0.0, worstAt = 0, peak = 0.0
        for i in 0..<fast.count {
            let d = abs(Double(fast[i]) - slow[i])
            if d > worst { worst = d; worstAt = i }
            peak = max(peak, abs(slow[i]))
        }
        return (worst, worstAt, peak)
    }

    func testMatchesReferenceOnRandomVoiceSets() {
        var rng = SplitMix(seed: 0x5EED_0005)
        let tones: [(String, [Float])] = [
            ("harmonic 440 Hz, 48000 frames", Measure.harmonicTone()),
            ("random, 37 frames", (0..<37).map { _ in Float.random(in: -1...1, using: &rng) }),
            ("random, 300 frames", (0..<300).map { _ in Float.random(in: -1...1, using: &rng) }),
        ]
        for (trial, period) in [64, 256, 100, 512, 64, 256, 64, 256].enumerated() {
            let interpolation: Interpolation = trial >= 6 ? .linear : .cubic
            let (name, samples) = tones[trial % tones.count]
            let voices = Int.random(in: 1...40, using: &rng)
            let frames = 24_000
            let events = randomEvents(voices: voices, frames: frames, using: &rng)
            let (worst, worstAt, peak) = compareWithReference(tone: samples, voices: voices, period: period, frames: frames,
                                                              events: events) { $0.interpolation = interpolation }
            print(String(format: "trial %d (%@, %@, %d voices, period %d): peak %.3f, largest difference %.1f dBFS",
                         trial, name, "\(interpolation)", voices, period, peak, Measure.dB(worst)))
            XCTAssertGreaterThan(peak, 0.001, "trial \(trial): the voices sounded")
            XCTAssertLessThan(Measure.dB(worst), -100,
                              "trial \(trial) (\(name), \(voices) voices, period \(period)): largest difference \(worst) at frame \(worstAt / 2)")
        }
    }

    /// Band-limited levels for the comparison: made by the test (the engine takes any),
    /// each level distinct (rows of the tone stretched ×`ToneLevels.oversampling` with linear steps, scaled by
    /// 1 − 0.07k, plus level-dependent c0 ripple and c2, c3 terms), so reading a wrong
    /// level, row or blend shows. Zones: cut-offs 2^(k/4), each zone the 3 % below its
    /// level's limit.
    static func testLevels(_ tone: [Float]) -> ToneLevels {
        let n = tone.count
        var rows: [[Float]] = [], aliasFree: [Double] = [], starts: [Double] = []
        for k in 0...12 {
            let over = ToneLevels.oversampling
            rows.append((0..<(over * n)).flatMap { i -> [Float] in
                let a = Float(tone[i / over]), b = Float(tone[(i / over + 1) % n]), t = Float(i % over) / Float(over)
                let scale = 1 - 0.07 * Float(k)
                return [(a + (b - a) * t) * scale + 0.05 * Float(k % 3) * Float((i * (k + 1)) % 7) / 7,
                        (b - a) / Float(over) * scale, 0.03 * Float(k % 4) * Float((i + k) % 3 - 1), -0.02 * Float((i + k) % 5) / 5]
            })
            aliasFree.append(pow(2, Double(k) / 4))
            if k > 0 { starts.append(aliasFree[k - 1] * 0.97) }
        }
        return ToneLevels(rows: rows, aliasFreeRatio: aliasFree, crossfadeStart: starts)
    }

    /// `Interpolation.bandLimited` against the reference: random voice sets with the
    /// default 3 ms glides (a span crosses several zones) and with 0.4 s glides (voices
    /// stay inside zones for whole periods), on three tones.
    func testBandLimitedMatchesReference() {
        var rng = SplitMix(seed: 0xB0A7_0013)
        let tones: [[Float]] = [Measure.harmonicTone(frames: 4800, cycles: 44),
                                (0..<37).map { _ in Float.random(in: -1...1, using: &rng) },
                                (0..<300).map { _ in Float.random(in: -1...1, using: &rng) }]
        for (trial, (period, glide)) in [(64, 0.003), (256, 0.4), (100, 0.003), (64, 0.4), (61, 0.05), (512, 0.2)].enumerated() {
            let samples = tones[trial % tones.count]
            let levels = Self.testLevels(samples)
            let voices = Int.random(in: 1...24, using: &rng)
            let frames = 24_000
            let events = randomEvents(voices: voices, frames: frames, using: &rng)
            let (worst, worstAt, peak) = compareWithReference(tone: samples, levels: levels, voices: voices, period: period,
                                                              frames: frames, events: events) {
                $0.interpolation = .bandLimited
                $0.smoothingSeconds = glide
            }
            print(String(format: "band-limited trial %d (%d frames, %d voices, period %d, glide %.3f s): peak %.3f, largest difference %.1f dBFS",
                         trial, samples.count, voices, period, glide, peak, Measure.dB(worst)))
            XCTAssertGreaterThan(peak, 0.001, "trial \(trial): the voices sounded")
            XCTAssertLessThan(Measure.dB(worst), -100, "trial \(trial): largest difference \(worst) at frame \(worstAt / 2)")
        }
    }

    /// The kernel's three stretches (inside a glide, the block where it ends, after it)
    /// against the reference at every place a glide can end in an 8-frame block: 16
    /// voices, voice k moving at frame 64·m + k, so its 144-frame glide ends at offset
    /// k mod 8 of a block; moves between ratios above the edge (no fade), to and from
    /// ratio 0.02 (faded), with attack, sustain and release envelopes; periods of 64 and
    /// of 61 frames (segments that are not whole blocks).
    func testGlideEndingAtEveryOffsetOfABlock() {
        for period in [64, 61] {
            for interpolation in [Interpolation.cubic, .linear] {
                var events: [EngineEvent] = []
                let voices = 16
                for k in 0..<voices {
                    let key = TouchKey(source: 0, touch: UInt32(k))
                    events.append(EngineEvent(frame: UInt64(k), kind: .down, key: key, value: 1, gain: 0.05))
                    let ratios: [Float] = [1.5, 0.02, 1.2, 0.7, 0.02, 0.02, 2.0, 0.9]
                    for (m, ratio) in ratios.enumerated() {
                        events.append(EngineEvent(frame: UInt64(400 + 300 * m + k), kind: .move, key: key,
                                                  value: ratio, gain: 0.04 + 0.01 * Float(m % 3)))
                    }
                    events.append(EngineEvent(frame: UInt64(3000 + 37 * k), kind: .up, key: key))
                }
                events.sort { $0.frame < $1.frame }
                let frames = 4000
                let (worst, _, peak) = compareWithReference(tone: Measure.harmonicTone(), voices: voices, period: period,
                                                            frames: frames, events: events) { $0.interpolation = interpolation }
                print(String(format: "glide ends (%@, period %d): peak %.3f, largest difference %.1f dBFS",
                             "\(interpolation)", period, peak, Measure.dB(worst)))
                XCTAssertGreaterThan(peak, 0.1, "the voices sounded")
                XCTAssertLessThan(Measure.dB(worst), -100, "\(interpolation), period \(period)")
            }
        }
    }

    /// Envelopes with a decay and sustain against the reference: random voice sets whose
    /// voices are released in their attack, decay or sustain (attack 3…20 ms, decay 40
    /// ms, sustain −9 dB, release 30 ms), cubic and band-limited.
    func testEnvelopeStagesMatchReference() {
        var rng = SplitMix(seed: 0xADE5_0027)
        let samples = Measure.harmonicTone(frames: 4800, cycles: 44)
        for (trial, (period, attack)) in [(64, 0.003), (256, 0.020), (100, 0.011), (61, 0.007)].enumerated() {
            let interpolation: Interpolation = trial % 2 == 0 ? .cubic : .bandLimited
            let voices = Int.random(in: 4...24, using: &rng)
            let events = randomEvents(voices: voices, frames: 24_000, using: &rng)
            let (worst, worstAt, peak) = compareWithReference(tone: samples, levels: interpolation == .bandLimited ? Self.testLevels(samples) : nil,
                                                              voices: voices, period: period, frames: 24_000, events: events) {
                $0.interpolation = interpolation
                $0.attackSeconds = attack
                $0.decaySeconds = 0.040
                $0.sustainLevel = pow(10, -9.0 / 20)
                $0.releaseSeconds = 0.030
            }
            print(String(format: "envelope trial %d (%@, period %d, attack %.0f ms): peak %.3f, largest difference %.1f dBFS",
                         trial, "\(interpolation)", period, attack * 1000, peak, Measure.dB(worst)))
            XCTAssertGreaterThan(peak, 0.001, "trial \(trial): the voices sounded")
            XCTAssertLessThan(Measure.dB(worst), -100, "trial \(trial): largest difference \(worst) at frame \(worstAt / 2)")
        }
    }
}
