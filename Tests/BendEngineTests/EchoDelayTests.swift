// SPDX-License-Identifier: GPL-3.0-or-later
import XCTest
import BendEngine
import BendTestSupport

/// The delay: echoes at the tempo's note values to the frame, each repeat the feedback
/// times the one before, and a time change that never clicks.
final class EchoDelayTests: XCTestCase {
    /// The delay's output for `input`, `frames` frames in periods of 256; `change` runs
    /// before period `at`.
    static func response(_ settings: DelaySettings, tempo: Double = 120, frames: Int, input: (Int) -> (Float, Float),
                         at: Int = -1, change: (EchoDelay) -> Void = { _ in }) -> [Float] {
        let delay = EchoDelay(rate: 48_000, settings: settings, tempo: tempo)
        defer { delay.deallocate() }
        var out = [Float](repeating: 0, count: 2 * frames)
        var inBuffer = [Float](repeating: 0, count: 512)
        var done = 0, period = 0
        while done < frames {
            if period == at { change(delay) }
            let n = min(256, frames - done)
            for i in 0..<n { let (l, r) = input(done + i); inBuffer[2 * i] = l; inBuffer[2 * i + 1] = r }
            out.withUnsafeMutableBufferPointer { o in
                _ = delay.process(inBuffer, into: o.baseAddress! + 2 * done, frames: n, reverbIn: nil, toReverb: 0)
            }
            done += n
            period += 1
        }
        return out
    }

    func testADottedEighthAt120BPMRepeatsEvery18000FramesAndFeedbackHalvesEachRepeat() {
        var s = DelaySettings()
        s.time = .beats(0.75)  // 1/8.
        s.feedback = 0.5
        s.mode = .stereo
        s.highCutHz = 0
        let out = EchoDelayTests.response(s, frames: 4 * 18_000 + 100) { $0 == 0 ? (1, 1) : (0, 0) }
        let left = Measure.channel(out, 0)
        for k in 1...4 {
            // The largest sample of the k-th repeat's neighbourhood is at 18000·k − 1 (the
            // input's frame 0 comes out `delay` frames later: frame 18000·k, index k·18000).
            let window = (k * 18_000 - 50)..<(k * 18_000 + 50)
            let peakAt = window.max { abs(left[$0]) < abs(left[$1]) }!
            XCTAssertEqual(peakAt, k * 18_000, "repeat \(k) at frame \(k * 18_000)")
            XCTAssertEqual(Measure.dB(Double(left[peakAt])), -6.0206 * Double(k - 1), accuracy: 0.1, "repeat \(k)'s level")
        }
    }

    func testTheDefaultHighCutCostsAThousandHertzToneAFractionOfADecibelPerRepeat() {
        var s = DelaySettings()
        s.time = .milliseconds(200)
        s.feedback = 0.5
        s.mode = .stereo
        // A 1 kHz burst of 50 ms.
        let burst = 2400
        let out = EchoDelayTests.response(s, frames: 4 * 9600 + burst) { i in
            let v = i < burst ? Float(sin(2 * Double.pi * 1000 * Double(i) / 48_000)) * 0.5 : 0
            return (v, v)
        }
        let left = Measure.channel(out, 0)
        var levels: [Double] = []
        for k in 1...4 { levels.append(Measure.rms(left[(k * 9600 + 200)..<(k * 9600 + burst - 200)])) }
        for k in 1..<4 {
            let perRepeat = Measure.dB(levels[k] / levels[k - 1])
            print("delay repeat \(k + 1): \(String(format: "%.3f", perRepeat)) dB (8 kHz high-cut, 1 kHz)")
            XCTAssertEqual(perRepeat, -6.02 - 0.07, accuracy: 0.1, "feedback 0.5 with the default 8 kHz high-cut")
        }
    }

    func testATimeChangeDuringAHeldNoteCrossfadesWithoutAStep() {
        var s = DelaySettings()
        s.time = .beats(0.5)
        s.feedback = 0.4
        s.mode = .pingPong
        let tone = { (i: Int) -> (Float, Float) in
            let v = Float(sin(2 * Double.pi * 330 * Double(i) / 48_000)) * 0.5
            return (v, v)
        }
        let frames = 48_000
        let changed = EchoDelayTests.response(s, frames: frames, input: tone, at: 120) { d in
            var t = s
            t.time = .beats(0.75)
            d.set(t, tempo: 120)
        }
        let steady = EchoDelayTests.response(s, frames: frames, input: tone)
        XCTAssertNotEqual(Array(changed[(2 * 30_720)...]), Array(steady[(2 * 30_720)...]), "the time changed")
        let own = Measure.maxStep(steady[(2 * 20_000)...])
        let worst = Measure.maxStep(changed[(2 * 30_000)..<(2 * 34_000)])
        print("delay time change: largest step \(worst), the steady echo's \(own)")
        XCTAssertLessThanOrEqual(worst, own * 1.05, "no step larger than the signal's own")
    }

    func testNoteValuesAreQuarterNoteBeats() {
        XCTAssertEqual(DelayTime.beats(0.75).seconds(tempo: 120), 0.375)
        XCTAssertEqual(DelayTime.milliseconds(250).seconds(tempo: 90), 0.25)
    }
}
