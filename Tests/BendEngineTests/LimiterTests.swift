// SPDX-License-Identifier: GPL-3.0-or-later
import XCTest
import BendEngine
import BendTestSupport

/// The mix bus limiter and the master gain, measured on rendered output.
final class LimiterTests: XCTestCase {
    /// `voices` voices of the harmonic tone at gain `gain`, all started at frame 0 in
    /// phase (their peaks add up), rendered for `frames` frames.
    func render(voices: Int, gain: Float, limiter: Bool, masterGain: Float = 1, frames: Int = 24_000,
                stagger: Int = 0) -> (out: [Float], limiterGain: Float, latency: Int) {
        let h = RenderHarness(voices: max(voices, 1), period: 256) {
            $0.limiter = limiter
            $0.gain = masterGain
        }
        defer { h.free() }
        let events = (0..<voices).map { v in
            EngineEvent(frame: UInt64(v * stagger), kind: .down, key: h.key(UInt32(v)), value: 1, gain: gain)
        }
        let out = h.render(frames: frames, events: events)
        return (out, h.mixer.limiterGain, h.mixer.latencyFrames)
    }

    func peakDB(_ samples: [Float]) -> Double { Measure.dB(Double(samples.reduce(0) { max($0, abs($1)) })) }

    func testPeaksStayAtOrBelowMinus0point3dBFSForAnyVoiceCountAtFullGain() {
        for voices in [1, 4, 32, 128] {
            let unlimited = render(voices: voices, gain: 1, limiter: false)
            let limited = render(voices: voices, gain: 1, limiter: true)
            print(String(format: "%d voices at gain 1: unlimited peak %.1f dBFS, limited %.2f dBFS, limiter gain %.1f dB",
                         voices, peakDB(unlimited.out), peakDB(limited.out), Measure.dB(Double(limited.limiterGain))))
            XCTAssertLessThanOrEqual(peakDB(limited.out), -0.3, "\(voices) voices")
            if voices >= 4 {
                XCTAssertGreaterThan(peakDB(unlimited.out), 0, "the unlimited mix clips")
                XCTAssertLessThan(limited.limiterGain, 0.5, "the meter shows the gain reduction")
            }
        }
    }

    /// Below −6 dBFS the limited output is the unlimited one, delayed by the look-ahead.
    func testQuietMixPassesUnchangedOnlyDelayed() {
        let unlimited = render(voices: 1, gain: 0.25, limiter: false)
        let limited = render(voices: 1, gain: 0.25, limiter: true)
        XCTAssertLessThan(peakDB(unlimited.out), -6)
        let latency = limited.latency
        XCTAssertGreaterThan(latency, 0)
        XCTAssertLessThanOrEqual(Double(latency) / 48_000, 0.001, "look-ahead at most 1 ms")
        var worst = 0.0
        for i in 0..<(unlimited.out.count - 2 * latency) {
            worst = max(worst, abs(Double(limited.out[i + 2 * latency]) - Double(unlimited.out[i])))
        }
        for i in 0..<(2 * latency) { worst = max(worst, abs(Double(limited.out[i]))) }
        print(String(format: "one voice at 0.25: peak %.1f dBFS; limited (delayed %d frames) − unlimited: %.1f dBFS",
                     peakDB(unlimited.out), latency, Measure.dB(worst)))
        XCTAssertLessThan(Measure.dB(worst), -100)
        XCTAssertEqual(limited.limiterGain, 1, "no gain reduction")
    }

    /// The click rule of the mixer's other tests: a voice steady below the ceiling, then
    /// its gain raised 8× (the limiter engages), later lowered back (it lets go): the
    /// largest sample step from 200 frames before each change to 1200 after stays within
    /// the steady limited tone's.
    func testEngagementDoesNotClick() {
        let h = RenderHarness(voices: 4, period: 256) { $0.limiter = true }
        defer { h.free() }
        let out = Measure.channel(h.render(frames: 48_000, events: [
            EngineEvent(frame: 1000, kind: .down, key: h.key(1), value: 1, gain: 0.5),
            EngineEvent(frame: 12_000, kind: .move, key: h.key(1), value: 1, gain: 4),
            EngineEvent(frame: 40_000, kind: .move, key: h.key(1), value: 1, gain: 0.5),
        ]), 0)
        let steady = Measure.maxStep(out[30_000..<36_000])
        for event in [12_000, 40_000] {
            let around = Measure.maxStep(out[(event - 200)..<(event + 1200)])
            print(String(format: "largest step around the change at %d: %.5f; steady limited tone: %.5f", event, around, steady))
            XCTAssertLessThanOrEqual(around, steady * 1.0001, "change at \(event)")
        }
        XCTAssertLessThanOrEqual(Measure.dB(Double(out.reduce(0) { max($0, abs($1)) })), -0.3)
    }

    /// The release: once a loud stretch ends the gain returns toward 1 with the 100 ms
    /// time constant, not at once. A voice at gain 4 (limited) lowered to 0.5 (below the
    /// ceiling): the limited output against the unlimited one (delayed by the look-ahead),
    /// peak against peak over 10 ms, is still reduced 50 ms after the change, and
    /// 100 ms later the reduction (1 − gain) has fallen by e^−1.
    func testGainReturnsWithTheReleaseTimeConstant() {
        func run(limiter: Bool) -> (out: [Float], latency: Int) {
            let h = RenderHarness(voices: 4, period: 256) { $0.limiter = limiter }
            defer { h.free() }
            let out = Measure.channel(h.render(frames: 48_000, events: [
                EngineEvent(frame: 1000, kind: .down, key: h.key(1), value: 1, gain: 4),
                EngineEvent(frame: 30_000, kind: .move, key: h.key(1), value: 1, gain: 0.5),
            ]), 0)
            return (out, h.mixer.latencyFrames)
        }
        let limited = run(limiter: true), plain = run(limiter: false)
        func gain(msAfter ms: Int) -> Double {
            let window = (30_000 + 48 * ms)..<(30_000 + 48 * ms + 480)
            let p = window.map { abs(Double(plain.out[$0])) }.max()!
            return window.map { abs(Double(limited.out[$0 + limited.latency])) }.max()! / p
        }
        let g50 = gain(msAfter: 50), g150 = gain(msAfter: 150)
        print(String(format: "gain 50 ms after: %.3f, 150 ms after: %.3f; reduction ratio %.3f (e^-1 = 0.368)",
                     g50, g150, (1 - g150) / (1 - g50)))
        XCTAssertLessThan(g50, 0.9, "the return is slow")
        XCTAssertEqual((1 - g150) / (1 - g50), exp(-1), accuracy: 0.05, "time constant 100 ms")
    }

    /// The attack: the gain is the mean of the held gains over the L frames of the
    /// look-ahead, so however fast the mix gets loud (a voice at gain 4 from silence,
    /// its 4 ms attack) the gain falls by at most 1/L per frame, starting before the
    /// loud frames reach the output. Gain per frame: the limited output over the
    /// unlimited one (delayed by the look-ahead), where the latter is not near 0.
    func testGainFallsLinearlyOverTheLookAhead() {
        func run(limiter: Bool) -> (out: [Float], latency: Int) {
            let h = RenderHarness(voices: 4, period: 256) { $0.limiter = limiter }
            defer { h.free() }
            let out = Measure.channel(h.render(frames: 6000, events: [
                EngineEvent(frame: 1000, kind: .down, key: h.key(1), value: 1, gain: 4),
            ]), 0)
            return (out, h.mixer.latencyFrames)
        }
        let limited = run(limiter: true), plain = run(limiter: false)
        let length = Double(limited.latency + 1)
        var largest = 0.0, smallest = 1.0
        var previous: Double?
        for n in 0..<(plain.out.count - limited.latency) {
            guard abs(plain.out[n]) > 0.01 else { previous = nil; continue }
            let g = Double(limited.out[n + limited.latency]) / Double(plain.out[n])
            if let previous { largest = max(largest, abs(g - previous)) }
            smallest = min(smallest, g)
            previous = g
        }
        print(String(format: "smallest gain %.3f; largest change per frame %.4f (1/L = %.4f)", smallest, largest, 1 / length))
        XCTAssertLessThan(smallest, 0.6, "the limiter acted")
        XCTAssertLessThanOrEqual(largest, 1.001 / length)
    }

    /// The peak meter (`Mixer.peak`) is the largest absolute sample of the last period as
    /// it was output: limited, scaled by the master gain, or the plain mix.
    func testPeakMeterReadsTheLastPeriodsOutput() {
        for (limiter, masterGain) in [(true, Float(1)), (true, 0.5), (false, 0.5), (false, 1)] {
            let h = RenderHarness(voices: 4, period: 256) {
                $0.limiter = limiter
                $0.gain = masterGain
            }
            defer { h.free() }
            let out = h.render(frames: 4096, events: (0..<4).map {
                EngineEvent(frame: 0, kind: .down, key: h.key($0), value: 1, gain: 1)
            })
            let last = out[(out.count - 2 * 256)...].reduce(Float(0)) { max($0, abs($1)) }
            XCTAssertGreaterThan(last, 0.5)
            XCTAssertEqual(h.mixer.peak, last, "limiter \(limiter), master gain \(masterGain)")
        }
    }

    func testMasterGainScalesTheMix() {
        let plain = render(voices: 1, gain: 0.25, limiter: false)
        let quieter = render(voices: 1, gain: 0.25, limiter: false, masterGain: 0.5)
        var worst = 0.0
        for i in plain.out.indices { worst = max(worst, abs(Double(quieter.out[i]) - 0.5 * Double(plain.out[i]))) }
        XCTAssertLessThan(Measure.dB(worst), -120)
        XCTAssertGreaterThan(peakDB(plain.out) - peakDB(quieter.out), 6.0)

        // With the limiter the master gain is applied in its pass, before it limits: the
        // quiet mix at half gain is the limited one at full gain halved, and a mix that
        // clips at full gain (4 voices in phase) is not reduced at gain 0.1.
        let limitedPlain = render(voices: 1, gain: 0.25, limiter: true)
        let limitedQuieter = render(voices: 1, gain: 0.25, limiter: true, masterGain: 0.5)
        worst = 0
        for i in limitedPlain.out.indices {
            worst = max(worst, abs(Double(limitedQuieter.out[i]) - 0.5 * Double(limitedPlain.out[i])))
        }
        XCTAssertLessThan(Measure.dB(worst), -120, "the limiter applies the master gain")
        let loud = render(voices: 4, gain: 1, limiter: true, masterGain: 0.1)
        XCTAssertEqual(loud.limiterGain, 1, "the master gain is applied before the limiter")
        XCTAssertLessThan(peakDB(loud.out), -1)
    }
}
