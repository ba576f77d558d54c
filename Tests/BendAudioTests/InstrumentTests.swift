// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendEngine
import BendSystem
import BendTestSupport
import Foundation
import Synchronization
import XCTest
@testable import BendAudio

final class InstrumentTests: XCTestCase {
    /// Live: ports stamp with the instrument's clock, and the paced sink renders the
    /// instrument's driver; `fadeOut` ends every port's touches, waits until the voices
    /// are silent, then lets one more period play.
    func testFadeOutReleasesEveryPortAndPlaysTheFadeOut() throws {
        let tone = ToneTable(samples: Measure.harmonicTone(), rate: 48_000)
        defer { tone.deallocate() }
        let instrument = Instrument(configuration: MixerConfiguration(rate: 48_000, maxPeriodFrames: 256, voices: 8),
                                    tone: tone, live: true)
        defer { instrument.deallocate() }
        XCTAssertNotNil(instrument.clock)
        let ups = UpFrames()
        let a = instrument.addPort(pitchMap: .linear, observers: [ups]), b = instrument.addPort(pitchMap: .linear, observers: [ups])
        XCTAssertEqual(instrument.ports.map(\.source), [a.source, b.source])
        XCTAssertNotEqual(a.source, b.source)
        let output = PacedOutput(rate: 48_000, periodFrames: 256)
        let record = SPSCRing<Float>(capacity: 1 << 21)  // 20 s of stereo: nothing dropped
        defer { record.deallocate() }
        try output.start(instrument.driver(record: record))
        defer { output.stop() }
        XCTAssertTrue(Poll.until { instrument.clock?.snapshot() != nil }, "the paced sink publishes the instrument's clock")
        a.send(.touch(id: 1, phase: .down, x: 0.5, y: 1))
        b.send(.touch(id: 1, phase: .down, x: 0.25, y: 1))
        XCTAssertTrue(Poll.until { instrument.mixer.activeVoices == 2 }, "both touches sound")
        let sounding = instrument.mixer.position
        XCTAssertTrue(Poll.until { instrument.mixer.position > sounding + 4_800 }, "a tenth of a second sounds")
        let fadeStart = MonotonicClock.nanos()
        instrument.fadeOut(rendering: { true })
        let fadeNanos = MonotonicClock.nanos() - fadeStart
        XCTAssertEqual(instrument.mixer.activeVoices, 0, "every port's touches ended and faded")
        // The release (8 ms) and the period after it (5.3 ms), re-checked once a period:
        // well under the 200 ms deadline it would wait out if it missed the silence.
        XCTAssertLessThan(fadeNanos, 100_000_000, "fadeOut returns soon after the release")
        // Measured: what was played sounded, and its last period is silent.
        let count = record.count
        let played = UnsafeMutablePointer<Float>.allocate(capacity: count)
        defer { played.deallocate() }
        XCTAssertEqual(record.read(into: played, maxCount: count), count)
        XCTAssertEqual(record.dropped, 0)
        let samples = UnsafeBufferPointer(start: played, count: count)
        XCTAssertGreaterThan(samples.map(abs).max() ?? 0, 0.01, "the touches sounded")
        XCTAssertLessThan(samples.suffix(512).map(abs).max() ?? 1, 1e-4, "the last period played is silent")
        XCTAssertEqual(a.activeTouches, [])
        XCTAssertEqual(b.activeTouches, [])
        let lastUp = try XCTUnwrap(ups.frames.withLock { $0.max() })
        XCTAssertEqual(ups.frames.withLock { $0.count }, 2, "an up for each port's touch")
        // The release (8 ms = 384 frames, a few frames of slack) ended, then one more whole period played.
        XCTAssertGreaterThanOrEqual(instrument.mixer.position, lastUp + 376 + 256, "the period after the fade was rendered")
        XCTAssertEqual(instrument.dropped, 0)
    }

    /// A sink that stops rendering ends the fade-out at once.
    func testFadeOutReturnsWhenTheSinkStopsRendering() {
        let tone = ToneTable(samples: Measure.harmonicTone(), rate: 48_000)
        defer { tone.deallocate() }
        let instrument = Instrument(configuration: MixerConfiguration(rate: 48_000, maxPeriodFrames: 256, voices: 8),
                                    tone: tone, live: false)
        defer { instrument.deallocate() }
        XCTAssertNil(instrument.clock, "offline: no clock")
        let port = instrument.addPort(pitchMap: .linear)
        port.send(.touch(id: 1, phase: .down, x: 0.5, y: 1), atFrame: 0)
        let start = MonotonicClock.nanos()
        instrument.fadeOut(rendering: { false })
        XCTAssertLessThan(MonotonicClock.nanos() - start, 50_000_000, "no wait for a sink that is not rendering")
        XCTAssertEqual(port.activeTouches, [], "the touches still end")
    }
}

/// The stream frames of the ups a port sends.
private final class UpFrames: ControlEventObserver, @unchecked Sendable {
    let frames = Mutex<[UInt64]>([])
    func observe(_ event: ControlEvent, source: UInt32, streamFrame: UInt64) {
        if case .touch(_, .up, _, _) = event { frames.withLock { $0.append(streamFrame) } }
    }
}

/// Polls `condition` every millisecond for up to `seconds`.
private enum Poll {
    static func until(seconds: Double = 5, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            usleep(1_000)
        }
        return condition()
    }
}
