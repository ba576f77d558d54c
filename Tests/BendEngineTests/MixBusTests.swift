// SPDX-License-Identifier: GPL-3.0-or-later
import XCTest
import BendEngine
import BendTestSupport

/// The render thread's controls of the mix bus (a plugin's control ports): master gain
/// gliding over 10 ms, the limiter's limiting turned off and on, the interpolation
/// changed while a voice sounds. Measured against the same mix rendered without the
/// change.
final class MixBusTests: XCTestCase {
    /// One voice (or `voices`) of the harmonic tone at `gain`, rendered in 256-frame
    /// periods; before period `at`, `change` runs on this (the render) thread.
    /// Ratio 1.01: between the tone's frames, where the interpolations differ.
    func render(voices: Int = 1, gain: Float = 0.5, limiter: Bool = true, periods: Int = 20, at: Int = 4,
                change: (Mixer) -> Void = { _ in }) -> [Float] {
        let h = RenderHarness(voices: voices, period: 256) { $0.limiter = limiter }
        defer { h.free() }
        for v in 0..<voices { precondition(h.ring.push(EngineEvent(frame: 0, kind: .down, key: h.key(UInt32(v)), value: 1.01, gain: gain))) }
        var out: [Float] = []
        for p in 0..<periods {
            if p == at { change(h.mixer) }
            out += h.render(frames: 256)
        }
        return out
    }

    func testMasterGainGlidesToItsNewValueOver10msWithoutAStep() {
        // With the limiter (the gain folded into its pass; its look-ahead, 47 frames,
        // delays the glide's effect in the output) and without.
        for (limiter, latency) in [(true, 47), (false, 0)] {
            checkGainGlide(limiter: limiter, latency: latency)
        }
    }

    func checkGainGlide(limiter: Bool, latency: Int) {
        let steady = render(limiter: limiter)
        let halved = render(limiter: limiter) { $0.setMasterGain(0.5) }
        let start = 4 * 256 + latency, glide = 480  // 10 ms at 48 kHz
        // Before the change: the same samples.
        XCTAssertEqual(Array(halved[0..<(2 * start)]), Array(steady[0..<(2 * start)]))
        // During it: the gain goes linearly from 1 to 0.5 (frame n of the glide: 1 − 0.5·(n + 1)/480).
        var worst = 0.0
        for n in 0..<(glide + 2000) {
            let i = 2 * (start + n)
            guard abs(steady[i]) > 1e-3 else { continue }
            let expected = n < glide ? 1 - 0.5 * Double(n + 1) / Double(glide) : 0.5
            worst = max(worst, abs(Double(halved[i] / steady[i]) - expected))
        }
        XCTAssertLessThan(worst, 1e-4, "the gain ramps linearly over 480 frames, then stays at 0.5 (limiter \(limiter))")
        XCTAssertEqual(Measure.dB(Measure.rms(halved[(2 * (start + glide))...]) / Measure.rms(steady[(2 * (start + glide))...])), -6.02, accuracy: 0.01)
        // No click: the largest step between samples is no larger than the steady tone's.
        XCTAssertLessThanOrEqual(Measure.maxStep(halved[(2 * start - 200)..<(2 * (start + glide) + 200)]),
                                 Measure.maxStep(steady[(2 * start - 200)..<(2 * (start + glide) + 200)]) * 1.001)
    }

    func testGainToZeroIsSilenceAfterTheGlideAndSettingItAgainChangesNothing() {
        let out = render(limiter: false) { m in m.setMasterGain(0) }
        let twice = render(limiter: false) { m in m.setMasterGain(0); m.setMasterGain(0) }
        XCTAssertEqual(out, twice, "the same target again does not restart the glide")
        XCTAssertGreaterThan(Measure.rms(out[(2 * 4 * 256)..<(2 * (4 * 256 + 240))]), 0.01)
        XCTAssertEqual(Measure.rms(out[(2 * (4 * 256 + 480))...]), 0)
    }

    func testLimitingOffLetsTheMixPastTheCeilingAndBackOnLimitsItAgain() {
        // 8 voices in phase at gain 1 peak far above 0 dBFS.
        let limited = render(voices: 8, gain: 1, periods: 40)
        let off = render(voices: 8, gain: 1, periods: 40, at: 4) { $0.setLimiting(false) }
        let peak = { (s: ArraySlice<Float>) in Measure.dB(Double(s.reduce(0) { max($0, abs($1)) })) }
        XCTAssertLessThanOrEqual(peak(limited[...]), -0.3)
        // After the release (100 ms time constant: 0.5 s is 5 of them) the mix is unlimited.
        let later = (2 * 256 * 30)..<(2 * 256 * 40)
        XCTAssertGreaterThan(peak(off[later]), 6, "limiting off: the mix's own peaks")
        // The recovery glides: no sample-to-sample step above the unlimited mix's own.
        let unlimited = render(voices: 8, gain: 1, limiter: false, periods: 40)
        XCTAssertLessThanOrEqual(Measure.maxStep(off[(2 * 256 * 4)...]), Measure.maxStep(unlimited[...]) * 1.001)
        // Back on: limited again within the look-ahead.
        let onAgain = render(voices: 8, gain: 1, periods: 40, at: 4) { $0.setLimiting(false); $0.setLimiting(true) }
        XCTAssertEqual(onAgain, limited)
    }

    func testInterpolationChangesFromTheNextPeriod() {
        let cubic = render()
        let linear = render { $0.setInterpolation(.linear) }
        XCTAssertEqual(Array(linear[0..<(2 * 4 * 256)]), Array(cubic[0..<(2 * 4 * 256)]))
        XCTAssertNotEqual(Array(linear[(2 * 4 * 256)...]), Array(cubic[(2 * 4 * 256)...]))
    }
}
