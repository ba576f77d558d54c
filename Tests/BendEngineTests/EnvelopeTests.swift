// SPDX-License-Identifier: GPL-3.0-or-later
import XCTest
import BendEngine
import BendTestSupport

/// The voices' envelope (`Envelope`): attack, decay to the sustain level, release,
/// measured sample by sample in the rendered output.
final class EnvelopeTests: XCTestCase {
    let rate = 48_000.0

    /// The envelope of one voice, measured: the output divided by the sine the voice
    /// reads (ratio 1 reads the tone's own frames, so the division is exact), at the
    /// frames where the sine is at least half its peak; (frame, envelope) pairs.
    func measuredEnvelope(_ left: [Float], gain: Double) -> [(Int, Double)] {
        let sine = Measure.sineTone()  // amplitude 0.5, 440 Hz, 48 000 frames
        let centre = gain * 0.5.squareRoot()  // the pan stage's −3 dB at pan 0
        return left.indices.compactMap { n in
            let s = Double(sine[n % sine.count])
            return abs(s) > 0.25 ? (n, Double(left[n]) / (s * centre)) : nil
        }
    }

    /// Smoothstep, as the engine shapes every stage.
    func smooth(_ r: Double) -> Double {
        let c = min(max(r, 0), 1)
        return c * c * (3 - 2 * c)
    }

    /// Attack 20 ms, decay 100 ms to −12 dB, release 200 ms: the envelope follows the
    /// documented stages within 0.001 at every measured frame, holds −12 dB while
    /// sustained, and is silent once the release has run.
    func testAttackDecaySustainRelease() {
        let sustain = pow(10, -12.0 / 20)
        let h = RenderHarness(tone: Measure.sineTone()) {
            $0.interpolation = .cubic
            $0.attackSeconds = 0.020
            $0.decaySeconds = 0.100
            $0.sustainLevel = sustain
            $0.releaseSeconds = 0.200
        }
        defer { h.free() }
        let up = 24_000
        let out = Measure.channel(h.render(frames: 36_000, events: [
            EngineEvent(frame: 0, kind: .down, key: h.key(1), value: 1, gain: 0.8),
            EngineEvent(frame: UInt64(up), kind: .up, key: h.key(1)),
        ]), 0)
        func expected(_ n: Int) -> Double {
            // Frame n is the voice's (n + 1)-th: the ramp has taken n + 1 steps.
            if n < 960 { return smooth(Double(n + 1) / 960) }
            if n < up { return 1 + (sustain - 1) * smooth(Double(n - 960 + 1) / 4800) }
            return sustain * smooth(1 - Double(n - up + 1) / 9600)
        }
        var worst = 0.0, worstAt = 0
        for (n, e) in measuredEnvelope(out, gain: 0.8) where abs(e - expected(n)) > worst {
            worst = abs(e - expected(n)); worstAt = n
        }
        XCTAssertLessThan(worst, 0.001, "envelope off by \(worst) at frame \(worstAt)")
        let held = Measure.rms(out[12_000..<24_000]) / Measure.rms(Measure.sineTone()[0..<12_000]) / (0.8 * 0.5.squareRoot())
        XCTAssertEqual(Measure.dB(held), -12, accuracy: 0.05, "the sustain level")
        XCTAssertEqual(Measure.rms(out[(up + 9_601)...]), 0, "silent once the 200 ms release has run")
        XCTAssertGreaterThan(Measure.rms(out[(up + 8_000)..<(up + 9_000)]), 0, "still sounding late in the release")
    }

    /// A decay of 0 with a sustain level below 1: the attack rises to the sustain level
    /// (no jump where a decay of no length would be).
    func testNoDecayAttacksToTheSustainLevel() {
        let h = RenderHarness(tone: Measure.sineTone()) {
            $0.interpolation = .cubic
            $0.attackSeconds = 0.010
            $0.sustainLevel = 0.5
        }
        defer { h.free() }
        let out = Measure.channel(h.render(frames: 4800, events: [EngineEvent(frame: 0, kind: .down, key: h.key(1), value: 1, gain: 1)]), 0)
        let worst = measuredEnvelope(out, gain: 1).map { abs($0.1 - 0.5 * smooth(Double($0.0 + 1) / 480)) }.max()!
        XCTAssertLessThan(worst, 0.001)
    }

    /// A long release cut short by voice stealing still fades: one voice with a 2 s
    /// release, released, then stolen by a new touch half-way through the release; the
    /// largest sample step around the steal stays below the steady tone's. The tone
    /// starts at its crest (cosine phase) and the steal comes near a crest, so a steal
    /// without its fade would jump by the whole released level.
    func testReleaseCutShortByStealingStillFades() {
        let crestFirst = (0..<48_000).map { Float(0.5 * cos(2 * Double.pi * 440 * Double($0) / 48_000)) }
        let h = RenderHarness(voices: 1, tone: crestFirst) {
            $0.interpolation = .cubic
            $0.releaseSeconds = 2
        }
        defer { h.free() }
        let steal = 24_000  // a crest of the first voice (440 · 0.5 s whole cycles)
        let out = Measure.channel(h.render(frames: 48_000, events: [
            EngineEvent(frame: 0, kind: .down, key: h.key(1), value: 1, gain: 1),
            EngineEvent(frame: 9_600, kind: .up, key: h.key(1)),
            EngineEvent(frame: UInt64(steal), kind: .down, key: h.key(2), value: 1, gain: 1),
        ]), 0)
        let steady = Measure.maxStep(out[36_000..<48_000])
        XCTAssertGreaterThan(Measure.rms(out[(steal - 1200)..<steal]), 0.05, "the released voice still sounds when it is stolen")
        XCTAssertLessThanOrEqual(Measure.maxStep(out[(steal - 200)..<(steal + 1200)]), steady * 1.0001)
    }

    /// LOG.md RW-48: a touch released 1 ms after it started (a TUIO tap) still sounds
    /// whole: its 4 ms attack runs to full level, then its 8 ms release, as if it had been
    /// held for the attack. A long attack (a 100 ms swell) released at 10 ms is released
    /// from where it stands, as an envelope is.
    func testATouchShorterThanItsAttackSoundsWhole() {
        for (attack, up) in [(0.004, 48), (0.1, 480)] {
            let h = RenderHarness(tone: Measure.sineTone()) {
                $0.interpolation = .cubic
                $0.attackSeconds = attack
                $0.releaseSeconds = 0.008
            }
            defer { h.free() }
            let out = Measure.channel(h.render(frames: 4800, events: [
                EngineEvent(frame: 0, kind: .down, key: h.key(1), value: 1, gain: 0.8),
                EngineEvent(frame: UInt64(up), kind: .up, key: h.key(1)),
            ]), 0)
            let envelope = measuredEnvelope(out, gain: 0.8)
            let top = envelope.map(\.1).max() ?? 0
            let attackFrames = Int(attack * rate)
            if attack == 0.004 {
                XCTAssertEqual(top, 1, accuracy: 0.01, "a 1 ms tap reaches the attack's full level")
                let end = (envelope.last { $0.1 > 0.001 }?.0) ?? 0
                XCTAssertEqual(end, attackFrames + 384, accuracy: 16, "attack (192 frames), then the 384-frame release (to below −60 dB)")
            } else {
                XCTAssertEqual(top, smooth(Double(up) / Double(attackFrames)), accuracy: 0.01, "released from where the swell stood")
            }
            XCTAssertEqual(h.mixer.activeVoices, 0)
        }
    }
}
