// SPDX-License-Identifier: GPL-3.0-or-later
import XCTest
@testable import BendControl
import BendEngine
import BendSystem

/// The stream frame a live event is stamped with: one period after the moment it was
/// seen, interpolated inside the period from the period start the render thread last
/// published (`StreamClock`), so events land where they happened, not on period starts.
final class StreamClockStampTests: XCTestCase {
    let rate = 48_000.0
    let period = 256

    /// stamp(nanos:) = published frame + period + ⌊elapsed · rate⌋, the offset at most
    /// period − 1 (one frame is 20 833.3 ns at 48 kHz).
    func testStampInterpolatesInsideThePeriod() {
        let clock = StreamClock(rate: rate, periodFrames: period)
        defer { clock.deallocate() }
        XCTAssertEqual(clock.stamp(nanos: 123), 0, "before the first period: at once")
        let start: UInt64 = 1_000_000_000, frame: UInt64 = 10_240
        clock.publish(frame: frame, nanos: start)
        for (elapsed, offset) in [(UInt64(0), UInt64(0)), (20_000, 0), (20_900, 1), (2_010_000, 96), (5_300_000, 254),
                                  (5_400_000, 255), (50_000_000, 255)] {
            XCTAssertEqual(clock.stamp(nanos: start + elapsed), frame + UInt64(period) + offset, "\(elapsed) ns after the period start")
        }
        XCTAssertEqual(clock.stamp(nanos: start - 1_000), frame + UInt64(period), "a moment before the period start counts as the start")
    }

    /// A live event sent through a `ControlPort` (`send(_:)`, stamped from the monotonic
    /// clock) carries the frame of the moment it was sent: the period started 0.1, 0.4
    /// and 0.75 periods before, so the event lands 25, 102 and 192 frames into the next
    /// period (within a frame, plus the time `send` itself took), never at its start.
    func testLiveEventCarriesTheClocksInterpolation() {
        let tone = ToneTable(samples: [0.5], rate: rate)
        let mixer = Mixer(configuration: MixerConfiguration(rate: rate, maxPeriodFrames: period, voices: 4), tone: tone)
        let clock = StreamClock(rate: rate, periodFrames: period)
        defer { mixer.deallocate(); tone.deallocate(); clock.deallocate() }
        let port = ControlPort(mixer: mixer, pitchMap: .linear, clock: clock)
        let periodNanos = Double(period) / rate * 1e9
        port.send(.tilt(0), atFrame: 0)  // the first send's one-time costs, outside the timed ones
        port.ring.pop()
        for (i, fraction) in [0.1, 0.4, 0.75].enumerated() {
            let periodStart = UInt64(100 + 10 * i) * UInt64(period)
            let before = MonotonicClock.nanos()
            let published = before - UInt64(fraction * periodNanos)
            clock.publish(frame: periodStart, nanos: published)
            port.send(.touch(id: UInt32(i), phase: .down, x: 0.5, y: 1))
            let after = MonotonicClock.nanos()
            guard let event = port.ring.peek() else { return XCTFail("no event in the ring") }
            port.ring.pop()
            func offset(_ now: UInt64) -> UInt64 { min(UInt64(Double(now - published) * 1e-9 * rate), UInt64(period - 1)) }
            let earliest = periodStart + UInt64(period) + offset(before)
            let latest = periodStart + UInt64(period) + offset(after)
            XCTAssertTrue((earliest - 1)...(latest + 1) ~= event.frame,
                          "sent \(fraction) period after the start: stamped at offset \(Int64(event.frame) - Int64(periodStart) - Int64(period)), "
                          + "expected \(offset(before))…\(offset(after))")
        }
    }
}
