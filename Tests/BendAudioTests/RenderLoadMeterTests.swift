// SPDX-License-Identifier: GPL-3.0-or-later
import Synchronization
import XCTest
@testable import BendAudio

/// The load histogram and the period log `play --load-stats` prints from.
final class RenderLoadMeterTests: XCTestCase {
    /// Known busy times give the exact median, p99, max and mean (to the 0.1 % step).
    func testQuantilesOfKnownLoads() {
        let meter = RenderLoadMeter(periodNanos: 1_000_000)
        let probe = meter.probe
        // 98 periods at 20 %, one at 50 %, one at 90.05 % (max is exact, the step is 90.0 %).
        for i in 0..<98 { probe.record(frame: UInt64(i * 64), start: 1_000, end: 1_000 + 200_000) }
        probe.record(frame: 98 * 64, start: 0, end: 500_000)
        probe.record(frame: 99 * 64, start: 0, end: 900_500)
        XCTAssertEqual(meter.periods, 100)
        XCTAssertEqual(meter.loadQuantile(0.5), 0.2, accuracy: 1e-12)
        XCTAssertEqual(meter.loadQuantile(0.99), 0.5, accuracy: 1e-12)
        XCTAssertEqual(meter.loadQuantile(1.0), 0.9, accuracy: 1e-12)
        XCTAssertEqual(meter.maxLoad, 0.9005, accuracy: 1e-12)
        XCTAssertEqual(meter.meanLoad, (98 * 0.2 + 0.5 + 0.9005) / 100, accuracy: 1e-12)
        // Loads over 409.5 % land in the last step.
        probe.record(frame: 100 * 64, start: 0, end: 10_000_000)
        XCTAssertEqual(meter.loadQuantile(1.0), 4.095, accuracy: 1e-12)
    }

    /// A frame maps to its period's render start plus its offset at the rate; frames
    /// outside the logged periods map to nil, also after the ring wrapped.
    func testRenderTimeOfAFrame() throws {
        let meter = RenderLoadMeter(periodNanos: 1_333_333)
        let probe = meter.probe
        let n = RenderLoadMeter.startCapacity + 10
        for p in 0..<n { probe.record(frame: UInt64(p * 64), start: UInt64(p) * 2_000_000, end: UInt64(p) * 2_000_000 + 1) }
        let p = n - 3
        let t = try XCTUnwrap(meter.renderNanos(ofFrame: UInt64(p * 64 + 48), rate: 48_000, periodFrames: 64))
        XCTAssertEqual(t, Double(p) * 2_000_000 + 1_000_000, accuracy: 1e-3)  // 48 frames = 1 ms
        XCTAssertNil(meter.renderNanos(ofFrame: 5 * 64, rate: 48_000, periodFrames: 64))  // overwritten
        XCTAssertNil(meter.renderNanos(ofFrame: UInt64(n * 64), rate: 48_000, periodFrames: 64))  // not rendered
    }

    /// The ALSA render loop measures every period it writes and notes the first.
    func testRenderLoopMeasuresEveryPeriod() {
        let frames = 256
        let rig = ALSATestTone.harness(periodFrames: frames)
        defer { rig.free() }
        rig.sendScript()
        let mock = MockPCM(frameBytes: 8)
        let counters = ALSAPlaybackCounters()
        let stop = UnsafeMutablePointer<Atomic<Bool>>.allocate(capacity: 1)
        stop.initialize(to: Atomic(false))
        defer { stop.deallocate() }
        let floats = UnsafeMutablePointer<Float>.allocate(capacity: 2 * frames)
        defer { floats.deallocate() }
        let meter = RenderLoadMeter(periodNanos: UInt64(frames) * 1_000_000_000 / 48_000)
        let loop = ALSASink(port: mock.port, policy: ALSAWritePolicy(), counters: counters, stop: stop,
                            driver: RenderDriver(mixer: rig.mixer).measured(by: meter.probe), buffer: .float(floats),
                            periodFrames: frames, frameLimit: UInt64(40 * frames))
        XCTAssertNil(meter.firstPeriodWallSeconds)
        XCTAssertEqual(loop.run(), .stopped)
        XCTAssertEqual(meter.periods, 40)
        XCTAssertEqual(counters.get(.periodsWritten), 40)
        XCTAssertNotNil(meter.firstPeriodWallSeconds)
        XCTAssertGreaterThan(meter.maxLoad, 0)
        XCTAssertNotNil(meter.renderNanos(ofFrame: UInt64(39 * frames), rate: 48_000, periodFrames: frames))
    }
}
