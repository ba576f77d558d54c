// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendEngine
import BendSystem
import BendTestSupport
import Synchronization
import XCTest

/// Rounding at the port: what observers (the touch recorder, MPE out) see, MIDI's
/// pitched touches, and the live ticker.
final class RoundingPortTests: XCTestCase {
    final class Log: ControlEventObserver, @unchecked Sendable {
        let events = Mutex<[ControlEvent]>([])
        func observe(_ event: ControlEvent, source: UInt32, streamFrame: UInt64) { events.withLock { $0.append(event) } }
    }

    let map = PitchMap.exponential(octaves: 2)
    func x(_ cents: Double) -> Double { 0.5 + cents / 2400 }
    func hold(_ rate: Double = 0.05) -> PitchRounding {
        PitchRounding(mode: .hold, rate: rate, tuning: Tuning(scale: Scale.builtIn("chromatic")!))
    }

    /// Observers see the rounded x (so a recorded script and MPE out carry the pitch
    /// that sounds); a pitched (MIDI) touch passes unrounded, by ear: 474.4 Hz.
    func testObserversSeeRoundedPitchAndPitchedPassesThrough() {
        let harness = RenderHarness(voices: 4, period: 256, rate: 48_000, tone: Measure.sineTone())
        defer { harness.free() }
        let log = Log()
        let port = ControlPort(mixer: harness.mixer, pitchMap: map, rounding: hold(), clock: nil, observers: [log])
        port.send(.touch(id: 1, phase: .down, x: x(130), y: 1), atFrame: 0)
        guard case let .touch(_, _, seenX, _) = log.events.withLock({ $0[0] }) else { return XCTFail() }
        XCTAssertEqual(seenX, x(100), accuracy: 1e-12)
        port.send(.touch(id: 1, phase: .up, x: 0, y: 0), atFrame: 10)
        let ratio = pow(2, 130.0 / 1200)
        port.send(.pitched(id: 2, phase: .down, ratio: ratio, gain: 1, y: 0.5), atFrame: 4800)
        XCTAssertEqual(log.events.withLock { $0.last }, .pitched(id: 2, phase: .down, ratio: ratio, gain: 1, y: 0.5))
        let out = Measure.channel(harness.render(frames: 48_000), 0)
        XCTAssertEqual(1200 * log2(Measure.peakFrequency(Array(out[9600...]), rate: 48_000) / 440), 130, accuracy: 1)
    }

    /// A script played live (`play --script`: `ScriptPlayer`, its events queued ahead of
    /// the ticker's ticks) with `hold`: a touch moved between steps and resting settles
    /// on the nearest step as `render` has it (370 → 400 cents above A4; without ticks
    /// between the events it keeps the down's offset: 340).
    func testAScriptsRestingTouchSettlesLive() {
        let harness = RenderHarness(voices: 4, period: 256, rate: 48_000, tone: Measure.sineTone())
        defer { harness.free() }
        let port = ControlPort(mixer: harness.mixer, pitchMap: map, rounding: hold(), clock: nil)
        let script = TouchScript(entries: [.init(time: 0, event: .touch(id: 1, phase: .down, x: x(130), y: 1)),
                                           .init(time: 0.5, event: .touch(id: 1, phase: .move, x: x(370), y: 1)),
                                           .init(time: 2, event: .touch(id: 1, phase: .up, x: 0, y: 0))])
        let mixer = harness.mixer
        let player = ScriptPlayer(script: script, port: port, rate: 48_000, position: { mixer.position })
        player.prefill(startFrame: 0)
        var out: [Float] = []
        while mixer.position < 96_000 {
            _ = player.advance()
            out += harness.render(frames: 256)
        }
        let left = Measure.channel(out, 0)
        XCTAssertEqual(1200 * log2(Measure.peakFrequency(Array(left[4_800..<21_600]), rate: 48_000) / 440), 100, accuracy: 1)
        XCTAssertEqual(1200 * log2(Measure.peakFrequency(Array(left[60_000..<93_600]), rate: 48_000) / 440), 400, accuracy: 1,
                       "settled on C#5")
    }

    /// Live: the ticker moves a resting touch onto its step with no event from the
    /// source (the stream clock published here as the render thread would).
    func testTickerSettlesARestingTouch() throws {
        let harness = RenderHarness(voices: 4, period: 256, rate: 48_000)
        defer { harness.free() }
        let clock = StreamClock(rate: 48_000, periodFrames: 256)
        defer { clock.deallocate() }
        let log = Log()
        let port = ControlPort(mixer: harness.mixer, pitchMap: map, rounding: hold(), clock: clock, observers: [log])
        let start = MonotonicClock.nanos()
        func publish() {
            let now = MonotonicClock.nanos()
            clock.publish(frame: (now - start) * 48 / 1_000_000, nanos: now)
        }
        publish()
        port.send(.touch(id: 1, phase: .down, x: x(0), y: 1))
        publish()
        port.send(.touch(id: 1, phase: .move, x: x(130), y: 1))  // a jump: let go, then rest on A#
        let ticker = try RoundingTicker(ports: [port])
        try ticker.start()
        defer { ticker.stop() }
        let deadline = start + 5_000_000_000
        var last = 0.0
        while MonotonicClock.nanos() < deadline {
            publish()
            if case let .touch(_, .move, seen, _)? = log.events.withLock({ $0.last }) { last = seen }
            if abs(last - x(100)) * 2400 < 0.5 && log.events.withLock({ $0.count }) > 3 { break }
            usleep(1000)  // one render period's pace; the loop ends on the condition
        }
        XCTAssertEqual((last - 0.5) * 2400, 100, accuracy: 0.5, "settled on A#4 by ticks alone")
        XCTAssertGreaterThan(log.events.withLock { $0.count }, 3)
    }
}
