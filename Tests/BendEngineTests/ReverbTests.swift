// SPDX-License-Identifier: GPL-3.0-or-later
import XCTest
import BendEngine
import BendTestSupport

/// The reverb measured as a room is: its decay (RT60 by Schroeder's backward integration),
/// its echo density (Abel and Huang), its width.
final class ReverbTests: XCTestCase {
    /// The reverb's response to `input` (interleaved stereo), `frames` frames, in periods of 512.
    static func response(rate: Double, settings: ReverbSettings, frames: Int, input: (Int) -> (Float, Float) = { $0 == 0 ? (1, 1) : (0, 0) }) -> [Float] {
        let reverb = Reverb(rate: rate, settings: settings)
        defer { reverb.deallocate() }
        var out = [Float](repeating: 0, count: 2 * frames)
        var inBuffer = [Float](repeating: 0, count: 1024)
        var at = 0
        while at < frames {
            let n = min(512, frames - at)
            for i in 0..<n { let (l, r) = input(at + i); inBuffer[2 * i] = l; inBuffer[2 * i + 1] = r }
            out.withUnsafeMutableBufferPointer { o in
                _ = reverb.process(inBuffer, into: o.baseAddress! + 2 * at, frames: n)
            }
            at += n
        }
        return out
    }

    /// RT60 from the energy decay curve of `h`: the least-squares slope between −5 and −35 dB.
    static func rt60(_ h: [Float], rate: Double) -> Double {
        var edc = [Double](repeating: 0, count: h.count)
        var sum = 0.0
        for i in stride(from: h.count - 1, through: 0, by: -1) { sum += Double(h[i]) * Double(h[i]); edc[i] = sum }
        let total = edc[0]
        var xs: [Double] = [], ys: [Double] = []
        for i in 0..<h.count {
            let db = 10 * log10(edc[i] / total)
            if db <= -5 && db >= -35 { xs.append(Double(i) / rate); ys.append(db) }
        }
        let mx = xs.reduce(0, +) / Double(xs.count), my = ys.reduce(0, +) / Double(ys.count)
        var num = 0.0, den = 0.0
        for k in 0..<xs.count { num += (xs[k] - mx) * (ys[k] - my); den += (xs[k] - mx) * (xs[k] - mx) }
        return -60 / (num / den)
    }

    func testDecayTimeIsTheSetRT60Within10PercentAtThreeRates() {
        for rate in [44_100.0, 48_000, 96_000] {
            for decay in [0.5, 2, 8] {
                var s = ReverbSettings()
                s.decaySeconds = decay
                s.damping = 0
                let frames = Int((0.9 * decay + 0.05) * rate)
                let out = ReverbTests.response(rate: rate, settings: s, frames: frames)
                let measured = ReverbTests.rt60(Measure.channel(out, 0), rate: rate)
                print("reverb RT60: set \(decay) s at \(Int(rate)) Hz, measured \(String(format: "%.3f", measured)) s")
                XCTAssertEqual(measured / decay, 1, accuracy: 0.10, "RT60 \(measured) s for a set \(decay) s at \(rate) Hz")
            }
        }
    }

    /// Abel and Huang's normalized echo density at `centre` (frames) of `h`: the fraction of
    /// samples of a 20 ms Hann window beyond one standard deviation, over a Gaussian's
    /// (erfc(1/√2) = 0.3173).
    static func echoDensity(_ h: [Float], at centre: Int, rate: Double) -> Double {
        let half = Int(0.010 * rate)
        var w: [Double] = []
        for k in -half...half { w.append(0.5 + 0.5 * cos(Double.pi * Double(k) / Double(half + 1))) }
        let total = w.reduce(0, +)
        var variance = 0.0
        for k in -half...half { variance += w[k + half] / total * Double(h[centre + k]) * Double(h[centre + k]) }
        let sigma = variance.squareRoot()
        var outside = 0.0
        for k in -half...half where abs(Double(h[centre + k])) > sigma { outside += w[k + half] / total }
        return outside / 0.317_310_5
    }

    func testEchoDensityReachesNineTenthsBy150ms() {
        let rate = 48_000.0
        let out = ReverbTests.response(rate: rate, settings: ReverbSettings(), frames: Int(0.4 * rate))
        let left = Measure.channel(out, 0)
        var reached: Double?
        var t = 0.02
        while t <= 0.3 {
            if ReverbTests.echoDensity(left, at: Int(t * rate), rate: rate) >= 0.9 { reached = t; break }
            t += 0.005
        }
        print("reverb echo density 0.9 reached at \(reached ?? -1) s")
        XCTAssertNotNil(reached, "the echo density reaches 0.9")
        XCTAssertLessThanOrEqual(reached ?? 1, 0.150, "echo density 0.9 by 150 ms (reached at \(reached ?? -1) s)")
        // and stays there (no flutter): every window from 150 to 350 ms at ≥ 0.8.
        var worst = 2.0
        for ms in stride(from: 150, through: 350, by: 10) { worst = min(worst, ReverbTests.echoDensity(left, at: ms * 48, rate: rate)) }
        XCTAssertGreaterThan(worst, 0.8, "the tail stays dense")
    }

    func testWidthZeroIsMonoAndAHardLeftVoiceStaysLeftByTheStatedAmount() {
        let rate = 48_000.0
        var noise = SplitMix(seed: 7)
        var samples: [Float] = []
        for _ in 0..<24_000 { samples.append(Float.random(in: -0.5...0.5, using: &noise)) }
        var s = ReverbSettings()
        s.width = 0
        // A hard-left input: noise on the left, nothing on the right.
        let mono = ReverbTests.response(rate: rate, settings: s, frames: 24_000) { i in (samples[i], 0) }
        var worst: Float = 0
        for i in 0..<24_000 { worst = max(worst, abs(mono[2 * i] - mono[2 * i + 1])) }
        XCTAssertEqual(worst, 0, "width 0: left and right are the same samples")
        s.width = 0.5
        let half = ReverbTests.response(rate: rate, settings: s, frames: 24_000) { i in (samples[i], 0) }
        let l = Measure.rms(Array(Measure.channel(half, 0)[4800...])), r = Measure.rms(Array(Measure.channel(half, 1)[4800...]))
        // a = 0.75, b = 0.25: the right is b/a of the left, −9.54 dB (docs/EFFECTS.md).
        XCTAssertEqual(Measure.dB(r / l), -9.54, accuracy: 0.5)
        s.width = 1
        let full = ReverbTests.response(rate: rate, settings: s, frames: 24_000) { i in (samples[i], 0) }
        XCTAssertLessThan(Measure.rms(Measure.channel(full, 1)), 1e-15, "width 1: a hard-left voice's reverb is on the left only")
    }
}
