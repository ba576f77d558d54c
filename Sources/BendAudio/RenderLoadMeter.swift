// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// The render thread's load per period: busy time (mix + record copy + format
/// conversion, not the wait for the device) over the period's duration, kept in a
/// histogram of 0.1 % steps (0…409.5 %, higher loads counted in the last step) in memory
/// allocated at setup. Also notes when the first period was handed to the device, as
/// wall-clock time, so start-up can be measured from outside the process.
///
/// The render thread writes through a `Probe` (plain pointers, no reference counting);
/// other threads read the figures only after the render thread has been joined.
public final class RenderLoadMeter: @unchecked Sendable {
    /// Histogram steps: load in per mille, 0…4095.
    static let steps = 4096
    /// Duration of one period, nanoseconds.
    public let periodNanos: UInt64
    let histogram: UnsafeMutablePointer<UInt32>
    /// [0] periods measured, [1] largest busy time ns, [2] summed busy ns,
    /// [3] wall-clock ns (CLOCK_REALTIME) when the first period was written, 0 before.
    let totals: UnsafeMutablePointer<UInt64>
    /// The last `startCapacity` periods' (start frame, monotonic ns at render start), a ring.
    let starts: UnsafeMutablePointer<UInt64>
    /// Periods kept in `starts` (2^16: 87 s of 64-frame periods at 48 kHz).
    static let startCapacity = 1 << 16

    /// - Parameter periodNanos: duration of one period, nanoseconds (> 0).
    /// - Thread: setup.
    public init(periodNanos: UInt64) {
        self.periodNanos = max(periodNanos, 1)
        histogram = .allocate(capacity: Self.steps)
        histogram.initialize(repeating: 0, count: Self.steps)
        totals = .allocate(capacity: 4)
        totals.initialize(repeating: 0, count: 4)
        starts = .allocate(capacity: 2 * Self.startCapacity)
        starts.initialize(repeating: 0, count: 2 * Self.startCapacity)
    }

    deinit {
        histogram.deallocate()
        totals.deallocate()
        starts.deallocate()
    }

    /// The render thread's handle. - Thread: setup.
    var probe: Probe { Probe(histogram: histogram, totals: totals, starts: starts, periodNanos: periodNanos) }

    /// What the render thread writes through: no class reference, no allocation.
    struct Probe: @unchecked Sendable {
        let histogram: UnsafeMutablePointer<UInt32>
        let totals: UnsafeMutablePointer<UInt64>
        let starts: UnsafeMutablePointer<UInt64>
        let periodNanos: UInt64

        /// Counts one period that began at stream frame `frame`, started rendering at
        /// monotonic `start` ns and kept the thread busy until `end` ns.
        /// - Thread: render.
        @_noLocks
        func record(frame: UInt64, start: UInt64, end: UInt64) {
            let busy = end &- start
            let slot = Int(totals[0] & UInt64(RenderLoadMeter.startCapacity - 1))
            starts[2 * slot] = frame
            starts[2 * slot + 1] = start
            let perMille = busy &* 1000 / periodNanos
            let step = perMille < UInt64(RenderLoadMeter.steps) ? Int(perMille) : RenderLoadMeter.steps - 1
            histogram[step] &+= 1
            totals[0] &+= 1
            if busy > totals[1] { totals[1] = busy }
            totals[2] &+= busy
        }

        /// Notes the wall-clock time of the first period written (later calls do nothing).
        /// - Thread: render.
        @_noLocks
        func periodWritten() {
            if totals[3] != 0 { return }
            // clock_gettime(CLOCK_REALTIME) through the vDSO: no lock, no allocation.
            totals[3] = _unsafePerformance { RenderLoadMeter.wallNanos() }
        }
    }

    static func wallNanos() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    /// Periods measured. - Thread: setup, after the render thread was joined.
    public var periods: Int { Int(totals[0]) }

    /// Wall-clock (CLOCK_REALTIME) seconds when the first period was written, nil before.
    /// - Thread: setup, after the render thread was joined.
    public var firstPeriodWallSeconds: Double? { totals[3] == 0 ? nil : Double(totals[3]) * 1e-9 }

    /// Load (busy ÷ period, 1 = 100 %) below which `fraction` (0…1) of the periods fall,
    /// to 0.1 %. - Thread: setup, after the render thread was joined.
    public func loadQuantile(_ fraction: Double) -> Double {
        let n = totals[0]
        guard n > 0 else { return 0 }
        let rank = UInt64(max(1, (fraction * Double(n)).rounded(.up)))
        var seen: UInt64 = 0
        for step in 0..<Self.steps {
            seen += UInt64(histogram[step])
            if seen >= rank { return Double(step) / 1000 }
        }
        return Double(Self.steps - 1) / 1000
    }

    /// When stream frame `frame` was rendered: its period's render start (monotonic ns)
    /// plus its offset in the period at `rate`; nil when the period is not (or no
    /// longer) kept. - Thread: setup, after the join.
    public func renderNanos(ofFrame frame: UInt64, rate: Double, periodFrames: Int) -> Double? {
        let n = Int(totals[0])
        let kept = min(n, Self.startCapacity)
        guard kept > 0 else { return nil }
        // Periods are consecutive: the first kept one starts at frame f0.
        let first = n - kept
        let s0 = (first & (Self.startCapacity - 1))
        let f0 = starts[2 * s0]
        guard frame >= f0 else { return nil }
        let index = Int((frame - f0) / UInt64(periodFrames))
        guard index < kept else { return nil }
        let slot = (first + index) & (Self.startCapacity - 1)
        let start = starts[2 * slot], nanos = starts[2 * slot + 1]
        guard frame >= start, frame - start < UInt64(periodFrames) else { return nil }
        return Double(nanos) + Double(frame - start) * 1e9 / rate
    }

    /// Largest load seen (exact, not stepped). - Thread: setup, after the join.
    public var maxLoad: Double { Double(totals[1]) / Double(periodNanos) }

    /// Mean load. - Thread: setup, after the join.
    public var meanLoad: Double { totals[0] == 0 ? 0 : Double(totals[2]) / Double(totals[0]) / Double(periodNanos) }

    /// One line: periods, median, 99th percentile, maximum and mean load in percent.
    public var summary: String {
        func pct(_ x: Double) -> String { String(format: "%.1f %%", x * 100) }
        return "render load per period (busy ÷ \(String(format: "%.3f", Double(periodNanos) * 1e-6)) ms period) over \(periods) periods: "
            + "median \(pct(loadQuantile(0.5))), p99 \(pct(loadQuantile(0.99))), max \(pct(maxLoad)), mean \(pct(meanLoad))"
    }
}
