// SPDX-License-Identifier: GPL-3.0-or-later
import Synchronization

/// Maps the monotonic clock of control threads to the render thread's stream position
/// (frames), so an input event is applied at the frame offset matching the moment it
/// happened: the render thread publishes (period start frame, monotonic ns) at each
/// period; a control thread stamps an event one period ahead of the moment it saw it,
/// which lands it at the same place inside the next period (constant latency of one
/// period, no jitter), and never later than the period after the current one.
///
/// Published as a sequence lock over three atomics; readers retry on a torn read.
public struct StreamClock: @unchecked Sendable {
    private let seq: UnsafeMutablePointer<Atomic<UInt64>>
    private let frame: UnsafeMutablePointer<Atomic<UInt64>>
    private let nanos: UnsafeMutablePointer<Atomic<UInt64>>
    /// Frames per second.
    public let rate: Double
    /// Period size in frames (the stamping latency); a pull-driven sink whose server
    /// changes its period (JACK's buffer size) updates it with `setPeriodFrames`.
    public var periodFrames: Int { period.pointee.load(ordering: .relaxed) }
    private let period: UnsafeMutablePointer<Atomic<Int>>

    /// - Thread: setup.
    public init(rate: Double, periodFrames: Int) {
        self.rate = rate
        period = .allocate(capacity: 1); period.initialize(to: Atomic(max(periodFrames, 1)))
        seq = .allocate(capacity: 1); seq.initialize(to: Atomic(0))
        frame = .allocate(capacity: 1); frame.initialize(to: Atomic(0))
        nanos = .allocate(capacity: 1); nanos.initialize(to: Atomic(0))
    }

    /// Publishes that the period starting at stream frame `frame` began at monotonic
    /// time `nanos`. - Thread: render (the one writer).
    @_noLocks
    public func publish(frame f: UInt64, nanos n: UInt64) {
        let s = seq.pointee.load(ordering: .relaxed)
        seq.pointee.store(s &+ 1, ordering: .relaxed)
        atomicMemoryFence(ordering: .releasing)
        frame.pointee.store(f, ordering: .relaxed)
        nanos.pointee.store(n, ordering: .relaxed)
        seq.pointee.store(s &+ 2, ordering: .releasing)
    }

    /// The period is now `frames` long (the stamping latency follows it).
    /// - Thread: render (the one writer), or setup.
    @_noLocks
    public func setPeriodFrames(_ frames: Int) {
        period.pointee.store(max(frames, 1), ordering: .relaxed)
    }

    /// The last published (frame, nanos), or nil before the first period.
    /// - Thread: any.
    public func snapshot() -> (frame: UInt64, nanos: UInt64)? {
        while true {
            let s1 = seq.pointee.load(ordering: .acquiring)
            if s1 & 1 == 1 { continue }
            let f = frame.pointee.load(ordering: .relaxed)
            let n = nanos.pointee.load(ordering: .relaxed)
            atomicMemoryFence(ordering: .acquiring)
            let s2 = seq.pointee.load(ordering: .relaxed)
            if s1 == s2 { return s1 == 0 ? nil : (f, n) }
        }
    }

    /// The stream frame at which an event seen at monotonic time `nanos` takes effect:
    /// one period after the matching position, at most two periods after the last
    /// published period start; 0 (at once) before the first period.
    /// - Thread: any control thread.
    public func stamp(nanos now: UInt64) -> UInt64 {
        guard let (f, n) = snapshot() else { return 0 }
        let elapsed = now > n ? Double(now - n) * 1e-9 : 0
        let periodFrames = self.periodFrames
        let offset = min(Int(elapsed * rate), periodFrames - 1)
        return f + UInt64(periodFrames + offset)
    }

    /// Frees the storage. - Thread: setup, after all threads stopped.
    public func deallocate() {
        seq.deallocate(); frame.deallocate(); nanos.deallocate(); period.deallocate()
    }
}
