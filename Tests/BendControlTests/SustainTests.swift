// SPDX-License-Identifier: GPL-3.0-or-later
import XCTest
@testable import BendControl
import BendTestSupport

/// The sustain control through a ControlPort into the mixer: a released touch keeps
/// sounding while it is down and ends within the release time once it is let go.
final class SustainTests: XCTestCase {
    let rate = 48_000.0

    final class Seen: ControlEventObserver, @unchecked Sendable {
        var events: [ControlEvent] = []
        func observe(_ event: ControlEvent, source: UInt32, streamFrame: UInt64) { events.append(event) }
    }

    /// RMS in dB of channel 0 over seconds a..<b.
    func level(_ out: [Float], _ a: Double, _ b: Double) -> Double {
        let left = Measure.channel(out, 0)
        return Measure.dB(Measure.rms(left[Int(a * rate)..<Int(b * rate)]))
    }

    func render(_ events: [(Double, ControlEvent)], seconds: Double) -> [Float] {
        let harness = RenderHarness(voices: 8, period: 256, rate: rate)
        defer { harness.free() }
        return harness.render(events.map { (UInt64($0.0 * rate), $0.1) }, frames: Int(seconds * rate))
    }

    let down = ControlEvent.touch(id: 1, phase: .down, x: 0.5, y: 1)
    let up = ControlEvent.touch(id: 1, phase: .up, x: 0, y: 0)

    func testAReleasedTouchSoundsWhileSustainedAndEndsWithinTheReleaseAfter() {
        let held = level(render([(0, down)], seconds: 1.2), 0.1, 0.2)
        let out = render([(0, down), (0.1, .sustain(true)), (0.3, up), (0.8, .sustain(false))], seconds: 1.2)
        // Between the up and the let-go: as loud as the held touch (±1 dB).
        XCTAssertEqual(level(out, 0.35, 0.75), held, accuracy: 1, "sustained level")
        // Release 8 ms: silent from 10 ms after the let-go.
        XCTAssertLessThan(level(out, 0.81, 1.2), -100, "after the let-go")
        // Without sustain the up ends it.
        let plain = render([(0, down), (0.3, up)], seconds: 1.2)
        XCTAssertLessThan(level(plain, 0.31, 0.75), -100, "without sustain")
    }

    func testEveryTouchReleasedWhileHeldEndsAtTheLetGoAndAReusedIDPlaysBeside() {
        let seen = Seen()
        let harness = RenderHarness(voices: 8, period: 256, rate: rate)
        defer { harness.free() }
        let port = harness.instrument.addPort(pitchMap: .linear, observers: [seen])
        port.send(.sustain(true), atFrame: 0)
        for id: UInt32 in 1...3 { port.send(.touch(id: id, phase: .down, x: 0.2 * Double(id), y: 1), atFrame: 0) }
        for id: UInt32 in 1...3 { port.send(.touch(id: id, phase: .up, x: 0, y: 0), atFrame: 4800) }
        // Id 2 again (the mouse's one id, a key struck again): a new voice beside the held one.
        port.send(.touch(id: 2, phase: .down, x: 0.9, y: 1), atFrame: 9600)
        port.send(.touch(id: 2, phase: .move, x: 0.8, y: 1), atFrame: 9700)
        _ = harness.render(frames: 14_400)
        XCTAssertEqual(harness.mixer.activeVoices, 4, "three released touches and the new one")
        port.send(.sustain(false), atFrame: 14_400)
        _ = harness.render(frames: 4800)
        XCTAssertEqual(harness.mixer.activeVoices, 1, "the new touch is still down")
        port.send(.touch(id: 2, phase: .up, x: 0, y: 0), atFrame: 19_200)
        _ = harness.render(frames: 4800)
        XCTAssertEqual(harness.mixer.activeVoices, 0, "its up reaches its own voice")
        // Observers see the ups when the sound ends (1, 2, 3 at the let-go), then the new
        // touch's, under a port id of its own.
        let ups = seen.events.filter { $0.touchPhase?.phase == .up }.map { $0.touchPhase!.id }
        XCTAssertEqual(Array(ups.prefix(3)), [1, 2, 3])
        XCTAssertEqual(ups.count, 4)
        XCTAssertFalse([1, 2, 3].contains(ups[3]))
        XCTAssertEqual(seen.events.filter { if case .sustain = $0 { true } else { false } }, [.sustain(true), .sustain(false)])
    }

    func testASourceThatStopsWhileSustainedLeavesNoVoice() {
        let seen = Seen()
        let harness = RenderHarness(voices: 8, period: 256, rate: rate)
        defer { harness.free() }
        let port = harness.instrument.addPort(pitchMap: .linear, observers: [seen])
        port.send(.sustain(true), atFrame: 0)
        port.send(down, atFrame: 0)
        port.send(up, atFrame: 2400)
        _ = harness.render(frames: 4800)
        XCTAssertEqual(harness.mixer.activeVoices, 1)
        port.releaseAll()
        _ = harness.render(frames: 4800)
        XCTAssertEqual(harness.mixer.activeVoices, 0, "the source's stop ends the sustained touch")
        XCTAssertEqual(seen.events.last, up, "observers see its up")
        // What observers saw (a --record-touches take) played again leaves no voice either:
        // they saw the control let go before the up.
        let replay = RenderHarness(voices: 8, period: 256, rate: rate)
        defer { replay.free() }
        let again = replay.instrument.addPort(pitchMap: .linear)
        for (i, e) in seen.events.enumerated() { again.send(e, atFrame: UInt64(i) * 480) }
        _ = replay.render(frames: 9600)
        XCTAssertEqual(replay.mixer.activeVoices, 0, "the recorded events end the touch: \(seen.events)")
        // And the control was let go with it: the next up is not held.
        port.send(down, atFrame: 9600)
        port.send(up, atFrame: 12_000)
        _ = harness.render(frames: 4800)
        XCTAssertEqual(harness.mixer.activeVoices, 0)
    }
}
