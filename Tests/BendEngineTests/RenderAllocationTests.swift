// SPDX-License-Identifier: GPL-3.0-or-later
import XCTest
import BendEngine
import BendTestSupport
import CAllocCounter
import Foundation

/// Counts heap allocations on the render thread while it mixes 64 moving voices through
/// every send effect.
final class RenderAllocationTests: XCTestCase {
    func testRenderThreadMakesNoHeapAllocations() throws {
        try renderCountingAllocations(interpolation: .cubic)
    }

    /// The same with band-limited tables (levels from libsamplerate), the moves
    /// crossing their crossfade zones.
    func testBandLimitedRenderMakesNoHeapAllocations() throws {
        try renderCountingAllocations(interpolation: .bandLimited)
    }

    func renderCountingAllocations(interpolation: Interpolation) throws {
        let period = 256
        let tone = Measure.harmonicTone(frames: 4800, cycles: 44)
        let levels = interpolation == .bandLimited ? try Measure.bandLimitedLevels(tone) : nil
        // Every send effect on, and voices taking send groups of their own as they play.
        var fx = EffectSettings()
        (fx.reverbSend, fx.delaySend, fx.chorusSend) = (0.3, 0.2, 0.2)
        let h = RenderHarness(voices: 64, period: period, tone: tone, levels: levels) { $0.interpolation = interpolation; $0.effects = fx }
        defer { h.free() }
        let frames = 2 * 48_000
        let out = UnsafeMutablePointer<Float>.allocate(capacity: 2 * period)
        defer { out.deallocate() }
        // Events for every period, prepared up front (moves of all 64 voices).
        var events: [EngineEvent] = []
        for v in 0..<64 {
            events.append(EngineEvent(frame: 0, kind: .down, key: h.key(UInt32(v)), value: 0.5 + Float(v) / 64, gain: 0.5))
        }
        var f = period
        while f < frames {
            for v in 0..<8 {
                let id = UInt32((f / period * 8 + v) % 64)
                events.append(EngineEvent(frame: UInt64(f + v * 17), kind: .move, key: h.key(id),
                                          value: 0.25 + Float((f / period + v) % 100) / 60, gain: Float((v + f / period) % 10) / 10))
            }
            events.append(.send(frame: UInt64(f + 5), key: h.key(UInt32((f / period) % 64)), bus: .reverb, level: Float(f / period % 10) / 10))
            if f % (period * 20) == 0 { events.append(EngineEvent(frame: UInt64(f), kind: .pan, value: Float(f % 7) / 3 - 1)) }
            f += period
        }
        let run = CountingRenderThread(harness: h, events: events, frames: frames, period: period, out: out)
        let thread = Thread { run.main() }
        thread.start()
        run.finished.wait()
        let (rendered, peak, counted) = (run.rendered, run.peak, run.counted)
        XCTAssertEqual(rendered, frames)
        XCTAssertGreaterThan(peak, 0.1, "the voices sounded")
        XCTAssertEqual(h.mixer.activeVoices, 64)
        XCTAssertEqual(counted, 0, "heap allocations on the render thread")
    }

    /// The interposer works: a Swift array allocation on a watched thread is counted.
    func testCounterSeesAllocations() {
        alloc_counter_reset()
        alloc_counter_watch_this_thread(1)
        let a = [Int](repeating: 1, count: 1000 + Int(alloc_counter_count()))
        alloc_counter_watch_this_thread(0)
        XCTAssertEqual(a.count, 1000)
        XCTAssertGreaterThanOrEqual(alloc_counter_count(), 1)
    }
}

/// The render thread of the test: the harness pushes due events and runs the period
/// step; allocations are counted around it.
private final class CountingRenderThread: @unchecked Sendable {
    let harness: RenderHarness, events: [EngineEvent], frames: Int, period: Int
    let out: UnsafeMutablePointer<Float>
    let finished = DispatchSemaphore(value: 0)
    var rendered = 0, peak: Float = 0, counted: UInt64 = .max

    init(harness: RenderHarness, events: [EngineEvent], frames: Int, period: Int, out: UnsafeMutablePointer<Float>) {
        (self.harness, self.events, self.frames, self.period, self.out) = (harness, events, frames, period, out)
    }

    func main() {
        let harness = self.harness, mixer = harness.mixer
        _ = harness.ring  // the raw source exists before counting starts
        events.withUnsafeBufferPointer { ev in
            var next = 0
            alloc_counter_reset()
            alloc_counter_watch_this_thread(1)
            var done = 0
            var peak: Float = 0
            while done < frames {
                harness.renderPeriod(into: out, frames: period, events: ev, next: &next)
                peak = max(peak, mixer.peak)
                done += period
            }
            alloc_counter_watch_this_thread(0)
            self.counted = alloc_counter_count()
            self.peak = peak
            self.rendered = done
        }
        finished.signal()
    }
}
