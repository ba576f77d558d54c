// SPDX-License-Identifier: GPL-3.0-or-later
import BendEngine
import BendSystem
import BendTestSupport
import Foundation
import XCTest
@testable import BendAudio

/// A pull-driven sink, as a JACK process callback is: the server hands it a buffer and
/// a frame count, and it calls the one period step with them. Test-only.
private struct PullSink {
    let driver: RenderDriver

    /// The callback: `frames` frames into the caller's interleaved stereo `buffer`.
    /// - Thread: render (the server's callback thread).
    @_noLocks
    func process(frames: Int, buffer: UnsafeMutablePointer<Float>) {
        _ = driver.period(frames: frames, into: .float(buffer))
        driver.periodDelivered()
    }
}

final class RenderDriverTests: XCTestCase {
    let period = 256

    /// A pull sink renders straight into the buffers it is handed (a different one each
    /// call), through the same step as the push sinks: byte for byte the harness's
    /// render, the record ring holds the same floats, and the clock was published with
    /// each call's first frame.
    func testPullSinkRendersIntoTheCallersBuffersLikeEverySink() throws {
        let periods = 120
        let live = ALSATestTone.harness(periodFrames: period)
        defer { live.free() }
        live.sendScript()
        let clock = StreamClock(rate: 48_000, periodFrames: period)
        defer { clock.deallocate() }
        let record = SPSCRing<Float>(capacity: 2 * periods * period)
        defer { record.deallocate() }
        let sink = PullSink(driver: RenderDriver(mixer: live.mixer, clock: clock, record: record))
        // The caller's memory: one buffer per call, as a server hands out (never the
        // driver's own), with a guard sample after each that must stay untouched.
        let stride = 2 * period + 1
        var server = [Float](repeating: .nan, count: periods * stride)
        server.withUnsafeMutableBufferPointer { b in
            for p in 0..<periods {
                let before = MonotonicClock.nanos()
                sink.process(frames: period, buffer: b.baseAddress! + p * stride)
                let after = MonotonicClock.nanos()
                let published = clock.snapshot()
                XCTAssertEqual(published?.frame, UInt64(p * period), "period \(p)")
                XCTAssertTrue((before...after).contains(published?.nanos ?? 0), "published at the step's start")
            }
        }
        let pulled = (0..<periods).flatMap { server[$0 * stride ..< $0 * stride + 2 * period] }
        XCTAssertTrue((0..<periods).allSatisfy { server[$0 * stride + 2 * period].isNaN }, "nothing written past a buffer")

        let offline = ALSATestTone.harness(periodFrames: period)
        defer { offline.free() }
        offline.sendScript()
        let expected = offline.renderPeriods(periods)
        assertSameBytes(bytes(of: pulled), bytes(of: expected), "pull sink vs the harness's render")
        XCTAssertGreaterThan(expected.map(abs).max() ?? 0, 0.5, "the tone sounded")

        var recorded = [Float](repeating: 0, count: expected.count + 16)
        let n = recorded.withUnsafeMutableBufferPointer { record.read(into: $0.baseAddress!, maxCount: $0.count) }
        XCTAssertEqual(n, expected.count)
        assertSameBytes(bytes(of: Array(recorded[0..<n])), bytes(of: expected), "record ring vs the harness's render")
    }

    /// A pull sink is handed whatever count the server chooses (≤ the period bound);
    /// the stream is the same as in whole periods.
    func testPullSinkTakesAnyFrameCount() {
        let counts = [256, 64, 1, 200, 255, 128, 37, 256, 19, 173]
        let total = counts.reduce(0, +) * 8
        let live = ALSATestTone.harness(periodFrames: period)
        defer { live.free() }
        live.sendScript()
        let sink = PullSink(driver: live.driver)
        var pulled = [Float](repeating: 0, count: 2 * total)
        pulled.withUnsafeMutableBufferPointer { b in
            var done = 0, call = 0
            while done < total {
                let n = counts[call % counts.count]
                sink.process(frames: n, buffer: b.baseAddress! + 2 * done)
                done += n
                call += 1
            }
        }
        XCTAssertEqual(live.mixer.position, UInt64(total))
        let offline = ALSATestTone.harness(periodFrames: period)
        defer { offline.free() }
        offline.sendScript()
        assertSameBytes(bytes(of: pulled), bytes(of: offline.render(frames: total)), "varying counts vs whole periods")
    }

    /// A host block longer than the bound (3 × bound + 5 frames, as JACK, LV2 and CLAP
    /// hosts may hand) rendered in steps by `block` into two channel buffers: sample for
    /// sample the stream rendered whole, and each step published at its own frame and
    /// time (the block's start plus the frames before it).
    func testBlockLongerThanTheBoundIsRenderedInSteps() {
        let frames = 3 * period + 5, blocks = 6
        let live = ALSATestTone.harness(periodFrames: period)
        defer { live.free() }
        live.sendScript()
        let clock = StreamClock(rate: 48_000, periodFrames: period)
        defer { clock.deallocate() }
        let driver = RenderDriver(mixer: live.mixer, clock: clock)
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: 2 * period)
        defer { scratch.deallocate() }
        var left = [Float](repeating: .nan, count: blocks * frames + 1)
        var right = [Float](repeating: .nan, count: blocks * frames + 1)
        left.withUnsafeMutableBufferPointer { l in
            right.withUnsafeMutableBufferPointer { r in
                for b in 0..<blocks {
                    let before = MonotonicClock.nanos()
                    driver.block(frames: frames, left: l.baseAddress! + b * frames, right: r.baseAddress! + b * frames,
                                 scratch: scratch, step: period)
                    let last = clock.snapshot()
                    XCTAssertEqual(last?.frame, UInt64(b * frames + 3 * period), "block \(b): its last step's first frame")
                    XCTAssertGreaterThanOrEqual(last?.nanos ?? 0, before + UInt64(3 * period) * 1_000_000_000 / 48_000)
                }
            }
        }
        XCTAssertTrue(left[blocks * frames].isNaN && right[blocks * frames].isNaN, "nothing written past the buffers")
        XCTAssertEqual(live.mixer.position, UInt64(blocks * frames))
        let stepped = (0..<blocks * frames).flatMap { [left[$0], right[$0]] }
        let offline = ALSATestTone.harness(periodFrames: period)
        defer { offline.free() }
        offline.sendScript()
        let whole = offline.render(frames: blocks * frames)
        assertSameBytes(bytes(of: stepped), bytes(of: whole), "blocks in steps vs the stream rendered whole")
        XCTAssertGreaterThan(whole.map(abs).max() ?? 0, 0.5, "the tone sounded")
    }

    /// The clock-paced sink publishes its deadline, not the step's start: the step
    /// publishes the time it is given.
    func testStepPublishesTheTimeItIsGiven() {
        let h = RenderHarness(voices: 4, period: 64)
        defer { h.free() }
        let clock = StreamClock(rate: 48_000, periodFrames: 64)
        defer { clock.deallocate() }
        let driver = RenderDriver(mixer: h.mixer, clock: clock)
        let out = UnsafeMutablePointer<Float>.allocate(capacity: 128)
        defer { out.deallocate() }
        let first = driver.period(frames: 64, into: .float(out), publishing: 123_456_789)
        XCTAssertEqual(first.frame, 0)
        XCTAssertGreaterThan(first.endNanos, 0, "timed: a clock asked for it")
        XCTAssertEqual(clock.snapshot()?.frame, 0)
        XCTAssertEqual(clock.snapshot()?.nanos, 123_456_789)
        let second = driver.period(frames: 64, into: .float(out), publishing: 987_654_321)
        XCTAssertEqual(second.frame, 64)
        XCTAssertEqual(clock.snapshot()?.frame, 64)
        XCTAssertEqual(clock.snapshot()?.nanos, 987_654_321)
        // Untimed (no clock, no meter): no clock reads.
        XCTAssertEqual(h.driver.period(frames: 64, into: .float(out)).endNanos, 0)
    }

    /// An S16 device: the step renders floats into the scratch (what the record ring
    /// gets) and converts them into the device's buffer.
    func testS16BufferIsConvertedFromTheRecordedFloats() {
        let periods = 20
        let live = ALSATestTone.harness(periodFrames: period)
        defer { live.free() }
        live.sendScript()
        let record = SPSCRing<Float>(capacity: 2 * periods * period)
        defer { record.deallocate() }
        let driver = RenderDriver(mixer: live.mixer, record: record)
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: 2 * period)
        defer { scratch.deallocate() }
        var shorts = [Int16](repeating: 0, count: 2 * periods * period)
        shorts.withUnsafeMutableBufferPointer { s in
            for p in 0..<periods { _ = driver.period(frames: period, into: .s16(s.baseAddress! + 2 * p * period, scratch: scratch)) }
        }
        var floats = [Float](repeating: 0, count: shorts.count)
        XCTAssertEqual(floats.withUnsafeMutableBufferPointer { record.read(into: $0.baseAddress!, maxCount: $0.count) }, shorts.count)
        var converted = [Int16](repeating: 0, count: floats.count)
        floats.withUnsafeBufferPointer { f in
            converted.withUnsafeMutableBufferPointer { RenderDriver.convertToS16(f.baseAddress!, $0.baseAddress!, count: f.count) }
        }
        XCTAssertEqual(shorts, converted)
        let offline = ALSATestTone.harness(periodFrames: period)
        defer { offline.free() }
        offline.sendScript()
        assertSameBytes(bytes(of: floats), bytes(of: offline.renderPeriods(periods)), "recorded floats vs the harness's render")
        XCTAssertGreaterThan(shorts.map { abs(Int($0)) }.max() ?? 0, 23_000, "the tone is there (0.707 × 32767)")
    }
}
