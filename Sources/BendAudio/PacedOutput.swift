import BendEngine
import BendSystem
import Glibc
import Synchronization

/// Plays into nothing but the recording, paced in real time by the monotonic clock:
/// `play --record` keeps working when no ALSA device opens. Each period is rendered,
/// copied to the record ring, and the thread sleeps until the period's deadline
/// (clock_nanosleep, absolute), so touches land where they would on a device.
public final class PacedOutput: AudioOutput, @unchecked Sendable {
    public let rate: Int
    public let periodFrames: Int
    private let stopFlag: UnsafeMutablePointer<Atomic<Bool>>
    private let late: UnsafeMutablePointer<Atomic<Int>>
    private let floats: UnsafeMutablePointer<Float>
    private var thread: RealtimeThread?
    public private(set) var realtimeNote: String?
    public private(set) var loadMeter: RenderLoadMeter?

    /// - Parameters:
    ///   - rate: frames per second.
    ///   - periodFrames: frames per period.
    public init(rate: Int, periodFrames: Int) {
        self.rate = rate
        self.periodFrames = periodFrames
        stopFlag = .allocate(capacity: 1); stopFlag.initialize(to: Atomic(false))
        late = .allocate(capacity: 1); late.initialize(to: Atomic(0))
        floats = .allocate(capacity: 2 * periodFrames)
    }

    deinit {
        stop()
        stopFlag.deallocate(); late.deallocate(); floats.deallocate()
    }

    public var description: String {
        String(format: "no sound device: rendering in real time into the recording only, %d Hz, period %d frames (%.1f ms)",
               rate, periodFrames, Double(periodFrames) * 1000 / Double(rate))
    }

    /// Periods that started after their deadline (the render thread fell behind).
    public var xruns: Int { late.pointee.load(ordering: .relaxed) }
    public var failureDescription: String? { nil }

    public func start(mixer: Mixer, clock: StreamClock?, record: SPSCRing<Float>?) throws {
        let periodNanos = UInt64(periodFrames) * 1_000_000_000 / UInt64(rate)
        let meter = RenderLoadMeter(periodNanos: periodNanos)
        loadMeter = meter
        let loop = PacedLoop(stop: stopFlag, late: late, mixer: mixer, clock: clock, record: record,
                             floats: floats, periodFrames: periodFrames,
                             periodNanos: periodNanos, meter: meter.probe)
        stopFlag.pointee.store(false, ordering: .relaxed)
        let t = try RealtimeThread(priority: 70, lockMemory: true) {
            FloatEnvironment.flushDenormalsOnThisThread()
            RenderThreadWatch.begin()  // counts only under make bench's render_watch.so
            loop.run()
        }
        thread = t
        realtimeNote = t.note
    }

    public func stop() {
        stopFlag.pointee.store(true, ordering: .relaxed)
        thread?.join()
        thread = nil
    }
}

/// The render thread of `PacedOutput`: plain values and pointers, no class reference.
private struct PacedLoop: @unchecked Sendable {
    let stop: UnsafeMutablePointer<Atomic<Bool>>
    let late: UnsafeMutablePointer<Atomic<Int>>
    let mixer: Mixer
    let clock: StreamClock?
    let record: SPSCRing<Float>?
    let floats: UnsafeMutablePointer<Float>
    let periodFrames: Int
    let periodNanos: UInt64
    let meter: RenderLoadMeter.Probe

    @_noLocks
    func run() {
        // The clock reads and the sleep stand where a device's write/wait would be.
        var deadline = _unsafePerformance { MonotonicClock.nanos() }
        while !stop.pointee.load(ordering: .relaxed) {
            let position = mixer.position
            if let clock { clock.publish(frame: position, nanos: deadline) }
            let start = _unsafePerformance { MonotonicClock.nanos() }
            mixer.render(into: floats, frames: periodFrames)
            if let record { record.write(floats, count: 2 * periodFrames) }
            deadline &+= periodNanos
            let now = _unsafePerformance { MonotonicClock.nanos() }
            meter.record(frame: position, start: start, end: now)
            meter.periodWritten()
            if now > deadline {
                late.pointee.add(1, ordering: .relaxed)
                deadline = now
            } else {
                _unsafePerformance { PacedLoop.sleep(until: deadline) }
            }
        }
    }

    static func sleep(until nanos: UInt64) {
        var ts = timespec(tv_sec: Int(nanos / 1_000_000_000), tv_nsec: Int(nanos % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil) == EINTR {}
    }
}
