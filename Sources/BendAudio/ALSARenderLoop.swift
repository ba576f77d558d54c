import BendEngine
import BendSystem
import Synchronization

/// Everything the render thread touches, as plain values and pointers allocated at
/// setup: no class reference, so the loop needs no reference counting.
struct ALSARenderLoop: @unchecked Sendable {
    let port: ALSAPCMPort
    let policy: ALSAWritePolicy
    let counters: ALSAPlaybackCounters
    /// Set by `ALSAOutput.stop()`; read once per period and while waiting.
    let stop: UnsafeMutablePointer<Atomic<Bool>>
    let mixer: Mixer
    let clock: StreamClock?
    let record: SPSCRing<Float>?
    /// Interleaved stereo float period, 2 × `periodFrames` samples.
    let floats: UnsafeMutablePointer<Float>
    /// Interleaved stereo S16 period when the device granted S16, else nil.
    let shorts: UnsafeMutablePointer<Int16>?
    let periodFrames: Int
    /// The loop ends by itself once the mixer's position reaches this frame.
    let frameLimit: UInt64
    /// Load per period and first-period time, when measured.
    var meter: RenderLoadMeter.Probe? = nil

    /// Renders and writes periods until stop is requested, `frameLimit` is reached
    /// (`.stopped`), or the device fails (`.failed`).
    /// - Thread: render.
    @_noLocks
    func run() -> PeriodWriteResult {
        while !stop.pointee.load(ordering: .relaxed) {
            if let end = period() { return end }
        }
        return .stopped
    }

    /// Renders, records and writes one period: nil when it was written, else why the
    /// loop must end. `ALSAOutput.start` runs the first one on the setup thread (that
    /// write starts the PCM), the render thread all the others.
    /// - Thread: render, or setup before the render thread starts.
    @_noLocks
    func period() -> PeriodWriteResult? {
        let samples = 2 * periodFrames
        let position = mixer.position
        if position >= frameLimit { return .stopped }
        // MonotonicClock.nanos (BendSystem, not inlinable here): clock_gettime(CLOCK_MONOTONIC)
        // through the vDSO, no lock, no allocation.
        let start: UInt64 = clock != nil || meter != nil ? _unsafePerformance { MonotonicClock.nanos() } : 0
        if let clock { clock.publish(frame: position, nanos: start) }
        mixer.render(into: floats, frames: periodFrames)
        if let record { record.write(floats, count: samples) }
        if let shorts { ALSARenderLoop.convertToS16(floats, shorts, count: samples) }
        if let meter {
            let end = _unsafePerformance { MonotonicClock.nanos() }
            meter.record(frame: position, start: start, end: end)
        }
        let data: UnsafeRawPointer = shorts.map { UnsafeRawPointer($0) } ?? UnsafeRawPointer(floats)
        let result = writePeriod(data, frames: periodFrames, frameBytes: shorts == nil ? 8 : 4, port: port,
                                 policy: policy, counters: counters, stop: stop)
        if case .written = result { meter?.periodWritten(); return nil }
        return result
    }

    /// Float −1…+1 → S16: clamped, scaled by 32767, rounded to nearest.
    /// - Thread: render.
    @_noLocks
    static func convertToS16(_ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Int16>, count: Int) {
        var i = 0
        while i < count {
            let x = input[i]
            // NaN compares false both ways and ends up 0.
            let clamped: Float = x > 1 ? 1 : (x < -1 ? -1 : (x == x ? x : 0))
            let scaled = clamped * 32767
            // Round half away from zero (Float.rounded(_:) is not allowed under @_noLocks).
            output[i] = Int16(scaled + (scaled < 0 ? -0.5 : 0.5))
            i += 1
        }
    }
}
