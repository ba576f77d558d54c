// SPDX-License-Identifier: GPL-3.0-or-later
import BendEngine
import CALSA
import Glibc
import Synchronization

/// The four alsa-lib calls the write loop makes, as C function pointers over an opaque
/// handle, so tests can inject faults (RW-41: −EPIPE, −ESTRPIPE, short writes, −EAGAIN,
/// −ENODEV, XRUN state) without a sound card. `alsa(_:)` is the real one.
struct ALSAPCMPort {
    /// The `snd_pcm_t *` (or a mock's state).
    var handle: UnsafeMutableRawPointer
    /// `snd_pcm_writei(pcm, buffer, frames)`: frames written (≥ 0) or a negative errno.
    var writei: @convention(c) (UnsafeMutableRawPointer, UnsafeRawPointer, Int) -> Int
    /// `snd_pcm_recover(pcm, err, silent)`: 0 when recovered, else a negative errno.
    var recover: @convention(c) (UnsafeMutableRawPointer, Int32, Int32) -> Int32
    /// `snd_pcm_wait(pcm, timeout ms)`: 1 ready, 0 timed out, negative errno.
    var wait: @convention(c) (UnsafeMutableRawPointer, Int32) -> Int32
    /// `snd_pcm_state(pcm)`: a `snd_pcm_state_t` value.
    var state: @convention(c) (UnsafeMutableRawPointer) -> Int32

    static func alsa(_ pcm: OpaquePointer) -> ALSAPCMPort {
        ALSAPCMPort(
            handle: UnsafeMutableRawPointer(pcm),
            writei: { h, buffer, frames in
                Int(snd_pcm_writei(OpaquePointer(h), buffer, snd_pcm_uframes_t(frames)))
            },
            recover: { h, err, silent in snd_pcm_recover(OpaquePointer(h), err, silent) },
            wait: { h, timeout in snd_pcm_wait(OpaquePointer(h), timeout) },
            state: { h in Int32(bitPattern: snd_pcm_state(OpaquePointer(h)).rawValue) })
    }

    static let stateXRun = Int32(bitPattern: SND_PCM_STATE_XRUN.rawValue)
    static let stateSuspended = Int32(bitPattern: SND_PCM_STATE_SUSPENDED.rawValue)
    static let stateDisconnected = Int32(bitPattern: SND_PCM_STATE_DISCONNECTED.rawValue)
}

/// Bounds on retrying one period, so a broken device never makes the loop spin.
struct ALSAWritePolicy: Sendable {
    /// Failed writes in a row on one period (xruns, EINTR, other errors) before the
    /// loop gives up with that error (RW-41 step 4: "e.g. 5").
    var maxRetries = 5
    /// Waits in a row without progress before the loop gives up with −ETIMEDOUT (the
    /// device consumed nothing for `maxWaits` × `waitTimeoutMs`).
    var maxWaits = 8
    /// Timeout of one `snd_pcm_wait`, milliseconds.
    var waitTimeoutMs: Int32 = 250
}

/// The ALSA output's counters (`AtomicCounters`): what the render thread counts and
/// any thread reads.
typealias ALSAPlaybackCounters = AtomicCounters<ALSACounter>

/// The slots of `ALSAPlaybackCounters`.
enum ALSACounter: Int, CaseIterable { case xruns, periodsWritten, lastError, waits, retries, failure, failedCall }

extension AtomicCounters where Slot == ALSACounter {
    /// - Thread: any.
    @_noLocks @inline(__always) func add(_ slot: ALSACounter, _ n: Int = 1) { add(at: slot.rawValue, n) }
    /// - Thread: any.
    @_noLocks @inline(__always) func set(_ slot: ALSACounter, _ value: Int) { set(at: slot.rawValue, value) }
    /// - Thread: any.
    @_noLocks @inline(__always) func get(_ slot: ALSACounter) -> Int { get(at: slot.rawValue) }
}

/// The call whose error stopped the loop (stored in `.failedCall`).
enum ALSAFailedCall: Int {
    case writei, recover, state, wait

    var name: String {
        switch self {
        case .writei: return "snd_pcm_writei"
        case .recover: return "snd_pcm_recover"
        case .state: return "snd_pcm_state"
        case .wait: return "snd_pcm_wait"
        }
    }
}

/// What became of one period.
enum PeriodWriteResult: Equatable, BitwiseCopyable {
    /// Every frame was accepted.
    case written
    /// Stop was requested while waiting for room; the period was abandoned.
    case stopped
    /// The device failed (negative errno, e.g. −ENODEV); playback must stop.
    case failed(Int32)
}

/// Writes one period completely, handling what RW-41 lists:
/// - the stream found in XRUN / SUSPENDED before the write → `recover(−EPIPE / −ESTRPIPE)`
///   (never with 0, which recovers nothing); counts an xrun;
/// - −EPIPE / −ESTRPIPE → count an xrun, `recover(err, silent: 1)`, then retry the SAME
///   remaining frames (nothing dropped, no voice time skipped);
/// - a short count → write the rest;
/// - −EAGAIN or 0 → `wait` (bounded by `policy.maxWaits`), checking `stop`;
/// - −EINTR and other errors → retry, at most `policy.maxRetries` failures in a row;
/// - −ENODEV, −EBADFD, −ESHUTDOWN, or a failed recover → `.failed` at once.
/// - Thread: render.
@_noLocks
func writePeriod(_ data: UnsafeRawPointer, frames: Int, frameBytes: Int, port: ALSAPCMPort,
                 policy: ALSAWritePolicy, counters: ALSAPlaybackCounters,
                 stop: UnsafeMutablePointer<Atomic<Bool>>) -> PeriodWriteResult {
    // snd_pcm_state: reads the stream state, never blocks (RW-41 step 2).
    let state = _unsafePerformance { port.state(port.handle) }
    var pending: Int32 = 0
    if state == ALSAPCMPort.stateXRun { pending = -EPIPE }
    if state == ALSAPCMPort.stateSuspended { pending = -ESTRPIPE }
    if state == ALSAPCMPort.stateDisconnected { return fail(-ENODEV, .state, counters) }
    if pending != 0 {
        counters.add(.xruns)
        counters.set(.lastError, Int(pending))
        // snd_pcm_recover with the state's error (never 0): prepares or resumes the stream.
        let r = _unsafePerformance { port.recover(port.handle, pending, 1) }
        if r < 0 { return fail(r, .recover, counters) }
    }

    var done = 0
    var failures = 0
    var waits = 0
    while done < frames {
        // snd_pcm_writei of the frames not yet accepted; non-blocking, returns at once.
        let r = _unsafePerformance { port.writei(port.handle, data + done * frameBytes, frames - done) }
        if r > 0 {
            done += min(r, frames - done)
            failures = 0
            waits = 0
            continue
        }
        let code = Int32(truncatingIfNeeded: r)
        if r == 0 || code == -EAGAIN {
            if stop.pointee.load(ordering: .relaxed) { return .stopped }
            waits += 1
            if waits > policy.maxWaits { return fail(-ETIMEDOUT, .wait, counters) }
            counters.add(.waits)
            // snd_pcm_wait: sleeps in poll() until a period of room or the timeout. Its
            // errors (xrun, suspend, gone) come back from the next writei as well.
            _ = _unsafePerformance { port.wait(port.handle, policy.waitTimeoutMs) }
            continue
        }
        counters.set(.lastError, Int(code))
        if code == -ENODEV || code == -EBADFD || code == -ESHUTDOWN { return fail(code, .writei, counters) }
        let isXRun = code == -EPIPE || code == -ESTRPIPE
        if isXRun { counters.add(.xruns) }
        failures += 1
        if failures > policy.maxRetries { return fail(code, .writei, counters) }
        counters.add(.retries)
        if isXRun {
            // snd_pcm_recover with the write's error (−EPIPE: prepare; −ESTRPIPE: resume),
            // silent = 1 (alsa-lib would print to stderr otherwise).
            let rr = _unsafePerformance { port.recover(port.handle, code, 1) }
            if rr < 0 { return fail(rr, .recover, counters) }
        }
    }
    counters.add(.periodsWritten)
    return .written
}

@_noLocks
private func fail(_ code: Int32, _ call: ALSAFailedCall, _ counters: ALSAPlaybackCounters) -> PeriodWriteResult {
    counters.set(.lastError, Int(code))
    counters.set(.failedCall, call.rawValue)
    counters.set(.failure, Int(code))
    return .failed(code)
}
