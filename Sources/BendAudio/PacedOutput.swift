// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem
import Glibc
import Synchronization

/// Plays into nothing but the recording, paced in real time by the monotonic clock:
/// `play --record` keeps working when no ALSA device opens. Each period goes through the
/// render driver's period step (rendered, copied to the record ring, measured), and the
/// thread sleeps until the period's deadline (clock_nanosleep, absolute), so touches
/// land where they would on a device.
public final class PacedOutput: AudioOutput, @unchecked Sendable {
    public var isPaced: Bool { true }
    public let rate: Int
    public let periodFrames: Int
    private let stopFlag: UnsafeMutablePointer<Atomic<Bool>>
    private let late: UnsafeMutablePointer<Atomic<Int>>
    private let floats: UnsafeMutablePointer<Float>
    private var thread: SystemThread?
    public private(set) var realtimeNote: String?
    public private(set) var loadMeter: RenderLoadMeter?
    /// What this output stands for, e.g. "no sound device: … into the recording only".
    public let label: String

    /// - Parameters:
    ///   - rate: frames per second.
    ///   - periodFrames: frames per period.
    ///   - label: what it stands for, first in `description` (default: no sound device,
    ///     the recording only).
    public init(rate: Int, periodFrames: Int, label: String = "no sound device: rendering in real time into the recording only") {
        self.label = label
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
        label + String(format: ", %d Hz, period %d frames (%.1f ms)",
               rate, periodFrames, Double(periodFrames) * 1000 / Double(rate))
    }

    /// Periods that started after their deadline (the render thread fell behind).
    public var xruns: Int { late.pointee.load(ordering: .relaxed) }
    public var failureDescription: String? { nil }

    /// Starts the render thread (the clock-paced sink) on `driver`, adding this
    /// output's load meter. - Thread: setup.
    public func start(_ driver: RenderDriver) throws {
        let periodNanos = UInt64(periodFrames) * 1_000_000_000 / UInt64(rate)
        let meter = RenderLoadMeter(periodNanos: periodNanos)
        loadMeter = meter
        let loop = PacedSink(stop: stopFlag, late: late, driver: driver.measured(by: meter.probe),
                             floats: floats, periodFrames: periodFrames, periodNanos: periodNanos)
        stopFlag.pointee.store(false, ordering: .relaxed)
        let t = try SystemThread(name: "bendsynth paced", priority: 70, lockMemory: true) {
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

/// The clock-paced sink, `PacedOutput`'s render thread: the driver's period step, then
/// an absolute sleep to the period's deadline where a device would block in its write.
/// Plain values and pointers, no class reference.
private struct PacedSink: @unchecked Sendable {
    let stop: UnsafeMutablePointer<Atomic<Bool>>
    let late: UnsafeMutablePointer<Atomic<Int>>
    /// The period step, measured (its meter is set).
    let driver: RenderDriver
    /// Interleaved stereo float period, 2 × `periodFrames` samples.
    let floats: UnsafeMutablePointer<Float>
    let periodFrames: Int
    /// One period, nanoseconds.
    let periodNanos: UInt64

    /// - Thread: render.
    @_noLocks
    func run() {
        // The clock reads and the sleep stand where a device's write/wait would be: the
        // clock is published with each period's deadline, the time it "plays".
        var deadline = _unsafePerformance { MonotonicClock.nanos() }
        while !stop.pointee.load(ordering: .relaxed) {
            let now = driver.period(frames: periodFrames, into: .float(floats), publishing: deadline).endNanos
            deadline &+= periodNanos
            driver.periodDelivered()
            if now > deadline {
                late.pointee.add(1, ordering: .relaxed)
                deadline = now
            } else {
                _unsafePerformance { PacedSink.sleep(until: deadline) }  // runtime-exception: the device's stand-in paces the period
            }
        }
    }

    static func sleep(until nanos: UInt64) {
        var ts = timespec(tv_sec: Int(nanos / 1_000_000_000), tv_nsec: Int(nanos % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil) == EINTR {}  // runtime-exception: a device's clock, on the render thread
    }
}
