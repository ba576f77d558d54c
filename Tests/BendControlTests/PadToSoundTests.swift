// SPDX-License-Identifier: GPL-3.0-or-later
import XCTest
@testable import BendControl
import BendTestSupport

/// From pad coordinates to sound, through a ControlPort into the mixer.
final class PadToSoundTests: XCTestCase {
    let rate = 48_000.0

    /// Renders through the tests' one harness (an offline instrument, the render
    /// driver's period step): 8 voices, 256-frame periods, the events sent up front.
    func render(_ events: [(frame: UInt64, event: ControlEvent)], frames: Int, pitchMap: PitchMap = .linear) -> [Float] {
        let harness = RenderHarness(voices: 8, period: 256, rate: rate, pitchMap: pitchMap)
        defer { harness.free() }
        return harness.render(events, frames: frames)
    }

    /// x = 0.25, 0.5, 0.75 play the 440 Hz tone at 220, 440 and 660 Hz (±0.5 %).
    func testXSetsPitchLinearly() {
        for (x, hz) in [(0.25, 220.0), (0.5, 440.0), (0.75, 660.0)] {
            let out = render([(0, .touch(id: 1, phase: .down, x: x, y: 1))], frames: 48_000)
            let f = Measure.peakFrequency(Array(Measure.channel(out, 0)[4800...]), rate: rate)
            XCTAssertEqual(f, hz, accuracy: hz * 0.005, "x = \(x)")
        }
    }

    func testExponentialMapSpansOctavesAroundTheTone() {
        let map = PitchMap.exponential(octaves: 2)
        XCTAssertEqual(map.ratio(x: 0), 0.5, accuracy: 1e-12)
        XCTAssertEqual(map.ratio(x: 0.5), 1, accuracy: 1e-12)
        XCTAssertEqual(map.ratio(x: 1), 2, accuracy: 1e-12)
        let out = render([(0, .touch(id: 1, phase: .down, x: 1, y: 1))], frames: 48_000, pitchMap: map)
        XCTAssertEqual(Measure.peakFrequency(Array(Measure.channel(out, 0)[4800...]), rate: rate), 880, accuracy: 880 * 0.005)
    }

    /// y = 0.5 is −6.02 dB from y = 1.
    func testYSetsGain() {
        func level(_ y: Double) -> Double {
            Measure.rms(Measure.channel(render([(0, .touch(id: 1, phase: .down, x: 0.5, y: y))], frames: 24_000), 0)[4800...])
        }
        XCTAssertEqual(Measure.dB(level(0.5) / level(1)), -6.0206, accuracy: 0.1)
    }

    /// Tilt −1, 0, +1: left/right power follow the equal-power law.
    func testTiltPansEqualPower() {
        func power(_ tilt: Double) -> (Double, Double) {
            let out = render([(0, .tilt(tilt)), (0, .touch(id: 1, phase: .down, x: 0.5, y: 1))], frames: 24_000)
            return (Measure.rms(Measure.channel(out, 0)[4800...]), Measure.rms(Measure.channel(out, 1)[4800...]))
        }
        let (l, lr) = power(-1), (cl, cr) = power(0), (rl, r) = power(1)
        XCTAssertEqual(Measure.dB(cl / l), -3.0103, accuracy: 0.1)
        XCTAssertEqual(Measure.dB(cr / r), -3.0103, accuracy: 0.1)
        XCTAssertEqual(Measure.dB(r / l), 0, accuracy: 0.1)
        XCTAssertLessThan(Measure.dB(lr / l), -60)
        XCTAssertLessThan(Measure.dB(rl / r), -60)
    }

    /// Moves and ups of touches that are not down never reach the engine; releaseAll
    /// ends every touch of the port's source.
    func testPortIgnoresUnknownTouchesAndReleasesAll() {
        let out = render([
            (0, .touch(id: 1, phase: .down, x: 0.5, y: 1)),
            (0, .touch(id: 2, phase: .down, x: 0.75, y: 1)),
            (100, .touch(id: 9, phase: .move, x: 0.1, y: 1)),
        ], frames: 4800)
        XCTAssertGreaterThan(Measure.rms(Measure.channel(out, 0)[2400...]), 0.1)
        let harness = RenderHarness(voices: 8, period: 256, rate: rate)
        defer { harness.free() }
        let mixer = harness.mixer, port = harness.port
        port.send(.touch(id: 1, phase: .down, x: 0.5, y: 1), atFrame: 0)
        port.send(.touch(id: 2, phase: .down, x: 0.6, y: 1), atFrame: 0)
        // A move and an up of a touch that is not down are not queued for the engine.
        port.send(.touch(id: 9, phase: .move, x: 0.1, y: 1), atFrame: 0)
        port.send(.touch(id: 9, phase: .up, x: 0, y: 0), atFrame: 0)
        XCTAssertEqual(port.ring.count, 2, "only the two downs are queued")
        _ = harness.render(frames: 256)
        XCTAssertEqual(mixer.activeVoices, 2)
        port.releaseAll()
        XCTAssertEqual(port.activeTouches, [])
        _ = harness.renderPeriods(4)
        XCTAssertEqual(mixer.activeVoices, 0, "released within 10 ms")
    }
}
