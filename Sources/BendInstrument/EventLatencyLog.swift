// SPDX-License-Identifier: GPL-3.0-or-later
import BendAudio
import BendControl
import BendSystem
import Synchronization

/// `play --load-stats`: the time from an event entering its source's queue to the
/// render of the first frame it affects. Each event's monotonic time (read just after
/// the push) and stamped stream frame are kept here; after play the frame is looked up
/// in the render thread's period log (`RenderLoadMeter.renderNanos`): its period's
/// render start plus its offset in the period.
/// - Thread: `observe` from any source thread; `summary` at setup, after the output stopped.
public final class EventLatencyLog: ControlEventObserver, @unchecked Sendable {
    /// Events kept (the first ones; 16 bytes each).
    static let capacity = 2_000_000
    private let entries = Mutex<[(nanos: UInt64, frame: UInt64)]>([])

    /// Sources (`ControlPort.source`) whose events are not live; set before they start.
    let skipped: Set<UInt32>

    public init(skipped: Set<UInt32>) {
        self.skipped = skipped
        entries.withLock { $0.reserveCapacity(Self.capacity) }
    }

    public func observe(_ event: ControlEvent, source: UInt32, streamFrame: UInt64) {
        if skipped.contains(source) { return }
        let now = MonotonicClock.nanos()
        entries.withLock { if $0.count < Self.capacity { $0.append((now, streamFrame)) } }
    }

    /// One line: events measured, median, 99th percentile and maximum latency in ms;
    /// nil when no event could be matched to a rendered period.
    public func summary(meter: RenderLoadMeter, rate: Int, periodFrames: Int) -> String? {
        let all = entries.withLock { $0 }
        var ms: [Double] = []
        ms.reserveCapacity(all.count)
        for e in all {
            guard let t = meter.renderNanos(ofFrame: e.frame, rate: Double(rate), periodFrames: periodFrames) else { continue }
            ms.append((t - Double(e.nanos)) * 1e-6)
        }
        guard !ms.isEmpty else { return nil }
        ms.sort()
        let n = ms.count
        return String(format: "event queue → first affected frame rendered, %d events: median %.3f ms, p99 %.3f ms, max %.3f ms (min %.3f ms)",
                      n, ms[n / 2], ms[min(n - 1, n * 99 / 100)], ms[n - 1], ms[0])
    }
}
