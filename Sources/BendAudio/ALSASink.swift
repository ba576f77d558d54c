// SPDX-License-Identifier: GPL-3.0-or-later
import Synchronization

/// The ALSA sink: a push-driven render thread that calls the render driver's period
/// step and writes each period to the PCM (`writePeriod`: waits, xrun recovery).
/// Everything it touches is a plain value or a pointer allocated at setup: no class
/// reference, so the loop needs no reference counting.
struct ALSASink: @unchecked Sendable {
    let port: ALSAPCMPort
    let policy: ALSAWritePolicy
    let counters: ALSAPlaybackCounters
    /// Set by `ALSAOutput.stop()`; read once per period and while waiting.
    let stop: UnsafeMutablePointer<Atomic<Bool>>
    /// The period step (mixer, clock, record ring, load meter).
    let driver: RenderDriver
    /// The period in the device's format: float, or S16 (with a float scratch) when the
    /// device granted S16.
    let buffer: PeriodBuffer
    /// Frames per period.
    let periodFrames: Int
    /// The loop ends by itself once the mixer's position reaches this frame.
    let frameLimit: UInt64

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

    /// Renders (through the driver) and writes one period: nil when it was written,
    /// else why the loop must end. `ALSAOutput.start` runs the first ones on the setup
    /// thread (the first write starts the PCM), the render thread all the others.
    /// - Thread: render, or setup before the render thread starts.
    @_noLocks
    func period() -> PeriodWriteResult? {
        if driver.mixer.position >= frameLimit { return .stopped }
        _ = driver.period(frames: periodFrames, into: buffer)
        let data: UnsafeRawPointer
        let frameBytes: Int
        switch buffer {
        case .float(let floats): data = UnsafeRawPointer(floats); frameBytes = 8
        case .s16(let shorts, _): data = UnsafeRawPointer(shorts); frameBytes = 4
        // Never made for a PCM (it takes interleaved frames); the interleaved scratch is the period.
        case .planar(_, _, let scratch): data = UnsafeRawPointer(scratch); frameBytes = 8
        }
        let result = writePeriod(data, frames: periodFrames, frameBytes: frameBytes, port: port,
                                 policy: policy, counters: counters, stop: stop)
        if case .written = result { driver.periodDelivered(); return nil }
        return result
    }
}
