// SPDX-License-Identifier: GPL-3.0-or-later
import BendEngine
import BendSystem
import CALSA
import Glibc
import Synchronization

/// Stereo playback through an alsa-lib PCM, fed by a render thread.
///
/// `init` opens and configures the PCM (interleaved, 2 channels, FLOAT_LE or else
/// S16_LE, rate/period/buffer "near" the request, start threshold one period,
/// avail_min one period); `start` runs the ALSA sink (the render driver's period
/// step, then a write) on a `SystemThread` ("bendsynth alsa", SCHED_FIFO when granted);
/// `stop` ends it and closes the PCM. Counters are readable from any thread.
public final class ALSAOutput: @unchecked Sendable {
    /// The PCM name it was opened with, e.g. "default" or "hw:0,0".
    public let device: String
    /// What the device granted.
    public let granted: ALSASettings

    private var pcm: OpaquePointer?
    /// The configuration tree given to `snd_pcm_open_lconf`, kept until the PCM closes.
    private var config: OpaquePointer?
    private let counters = ALSAPlaybackCounters()
    private let stopFlag: UnsafeMutablePointer<Atomic<Bool>>
    private let floats: UnsafeMutablePointer<Float>
    private let shorts: UnsafeMutablePointer<Int16>?
    private var thread: SystemThread?
    private var started = false
    var policy = ALSAWritePolicy()
    /// How `start` reaches the PCM; tests put a mock here.
    var makePort: (OpaquePointer) -> ALSAPCMPort = ALSAPCMPort.alsa

    /// Opens and configures a playback PCM.
    /// - Parameters:
    ///   - device: PCM name ("default", "hw:0,0", "null", or one defined in `configText`).
    ///   - rate: requested frames per second (the device may grant another: see `granted`).
    ///   - periodFrames: requested period size, frames.
    ///   - periods: requested buffer size in periods (≥ 2).
    ///   - configText: alsa-lib configuration text loaded on top of the system's
    ///     configuration, e.g. to define a `type file` PCM; nil for the system's alone.
    /// - Throws: `ALSAError` naming the failing call and the device (e.g. "snd_pcm_open"
    ///   with ENOENT for an unknown PCM; "snd_pcm_hw_params_set_format" when the device
    ///   takes neither FLOAT_LE nor S16_LE).
    /// - Thread: setup.
    public init(device: String = "default", rate: Int = 48000, periodFrames: Int = 256, periods: Int = 3,
                configText: String? = nil) throws {
        precondition(rate > 0 && periodFrames > 0 && periods >= 1, "rate, period and periods must be positive")
        self.device = device
        // alsa-lib guards each PCM with a mutex (its "thread-safe" API). This PCM is only
        // ever used by one thread at a time — opened here, written by the render thread
        // alone, closed after that thread is joined — so the mutex only adds a lock to
        // every write on the render thread. LIBASOUND_THREAD_SAFE=0 (read by alsa-lib when
        // a PCM is opened) turns it off; a value the user set is kept.
        setenv("LIBASOUND_THREAD_SAFE", "0", 0)
        var handle: OpaquePointer?
        var tree: OpaquePointer?
        do {
            let mode = Int32(SND_PCM_NONBLOCK)
            if let configText {
                tree = try ALSAOutput.loadConfig(configText, device: device)
                try alsaCheck(snd_pcm_open_lconf(&handle, device, SND_PCM_STREAM_PLAYBACK, mode, tree),
                              "snd_pcm_open_lconf", device: device)
            } else {
                try alsaCheck(snd_pcm_open(&handle, device, SND_PCM_STREAM_PLAYBACK, mode), "snd_pcm_open", device: device)
            }
            granted = try ALSAOutput.configure(handle!, device: device, rate: rate,
                                               periodFrames: periodFrames, periods: periods)
        } catch {
            if let handle { snd_pcm_close(handle) }
            if let tree { snd_config_delete(tree) }
            throw error
        }
        pcm = handle
        config = tree
        stopFlag = .allocate(capacity: 1)
        stopFlag.initialize(to: Atomic(false))
        floats = .allocate(capacity: 2 * granted.periodFrames)
        floats.initialize(repeating: 0, count: 2 * granted.periodFrames)
        if granted.format == .s16 {
            let s = UnsafeMutablePointer<Int16>.allocate(capacity: 2 * granted.periodFrames)
            s.initialize(repeating: 0, count: 2 * granted.periodFrames)
            shorts = s
        } else {
            shorts = nil
        }
    }

    deinit {
        stop()
        stopFlag.deallocate()
        floats.deallocate()
        shorts?.deallocate()
        counters.deallocate()
    }

    /// e.g. `ALSA 'default': 48000 Hz, period 256 frames, buffer 768 frames (16.0 ms), FLOAT_LE stereo`.
    public var description: String { "ALSA '\(device)': \(granted.summary)" }

    /// The PCM's plugin type as alsa-lib names it ("HW", "PLUG", "FILE", "NULL", …),
    /// "" once closed. - Thread: setup.
    public var pcmType: String {
        guard let pcm else { return "" }
        return String(cString: snd_pcm_type_name(snd_pcm_type(pcm)))
    }

    // MARK: - Counters (any thread)

    /// Underruns and suspends met so far (each −EPIPE/−ESTRPIPE or XRUN/SUSPENDED state). - Thread: any.
    public var xruns: Int { counters.get(.xruns) }
    /// Periods completely written. - Thread: any.
    public var periodsWritten: Int { counters.get(.periodsWritten) }
    /// The last error a write or recover returned (negative errno), 0 if none. - Thread: any.
    public var lastError: Int32 { Int32(truncatingIfNeeded: counters.get(.lastError)) }
    /// The error that stopped the render loop, nil while it runs or after a normal stop.
    /// The loop then has ended by itself; call `stop()` to release the thread and PCM.
    /// - Thread: any.
    public var failure: ALSAError? {
        let code = Int32(truncatingIfNeeded: counters.get(.failure))
        guard code != 0 else { return nil }
        let call = ALSAFailedCall(rawValue: counters.get(.failedCall)) ?? .writei
        var detail: String?
        switch code {
        case -ETIMEDOUT: detail = "the device took no frames for \(policy.maxWaits) waits of \(policy.waitTimeoutMs) ms"
        case -EPIPE, -ESTRPIPE: detail = "still failing after \(policy.maxRetries) recoveries in a row"
        case -ENODEV, -EBADFD, -ESHUTDOWN: detail = "the device is gone"
        default: detail = call == .writei ? "still failing after \(policy.maxRetries) retries" : nil
        }
        return ALSAError(call: call.name, code: code, device: device, detail: detail)
    }
    /// Why real-time scheduling or memory locking was refused at `start`, to print once;
    /// nil when granted or not asked for. - Thread: setup.
    public private(set) var realtimeNote: String?
    /// The render thread's load per period and first-period time, made at `start`.
    public private(set) var loadMeter: RenderLoadMeter?

    // MARK: - Start / stop

    /// Starts the render thread on a render driver made of these parts; see `start(_:frameLimit:priority:lockMemory:)`.
    /// - Thread: setup.
    public func start(mixer: Mixer, clock: StreamClock?, record: SPSCRing<Float>?, frameLimit: UInt64? = nil,
                      priority: Int32? = 70, lockMemory: Bool = true) throws {
        try start(RenderDriver(mixer: mixer, clock: clock, record: record), frameLimit: frameLimit,
                  priority: priority, lockMemory: lockMemory)
    }

    /// Starts the render thread (the ALSA sink): each period the driver publishes
    /// `(mixer.position, now)` to its clock, renders `granted.periodFrames` frames,
    /// copies them to its record ring (whole periods; a full ring drops and counts
    /// them), converts to S16 if granted; the sink writes the period (see `writePeriod`
    /// for the xrun handling).
    /// - Parameters:
    ///   - driver: the period step; its mixer renders at `granted.rate` with
    ///     `maxPeriodFrames` ≥ `granted.periodFrames`. This output adds its load meter.
    ///   - frameLimit: stop by itself once the mixer's position reaches this frame
    ///     (whole periods), nil to run until `stop()`; `waitUntilEnded()` waits for it.
    ///   - priority: SCHED_FIFO priority 1…99, nil for normal scheduling.
    ///   - lockMemory: `mlockall` once per process.
    /// - Throws: `ALSAError` (code −EINVAL) when the mixer's rate or period bound does
    ///   not match what was granted, or when already started; `SystemError` from
    ///   `pthread_create`.
    /// - Thread: setup.
    public func start(_ driver: RenderDriver, frameLimit: UInt64? = nil,
                      priority: Int32? = 70, lockMemory: Bool = true) throws {
        let mixer = driver.mixer
        guard let pcm, !started else {
            throw ALSAError(call: "start", code: -EINVAL, device: device,
                            detail: started ? "already started" : "the PCM is closed")
        }
        guard mixer.configuration.maxPeriodFrames >= granted.periodFrames else {
            throw ALSAError(call: "start", code: -EINVAL, device: device,
                            detail: "mixer period bound \(mixer.configuration.maxPeriodFrames) < granted period \(granted.periodFrames) frames")
        }
        guard Int(mixer.configuration.rate.rounded()) == granted.rate else {
            throw ALSAError(call: "start", code: -EINVAL, device: device,
                            detail: "mixer rate \(mixer.configuration.rate) Hz ≠ granted \(granted.rate) Hz")
        }
        let meter = RenderLoadMeter(periodNanos: UInt64(granted.periodFrames) * 1_000_000_000 / UInt64(max(granted.rate, 1)))
        loadMeter = meter
        let buffer: PeriodBuffer = shorts.map { .s16($0, scratch: floats) } ?? .float(floats)
        let loop = ALSASink(port: makePort(pcm), policy: policy, counters: counters, stop: stopFlag,
                            driver: driver.measured(by: meter.probe), buffer: buffer,
                            periodFrames: granted.periodFrames, frameLimit: frameLimit ?? .max)
        stopFlag.pointee.store(false, ordering: .relaxed)
        // The first buffer's worth of periods is written here, on the setup thread: the
        // first write reaches the start threshold and starts the PCM, so a plugin's
        // start (the `jack` PCM takes a mutex there) never runs on the render thread;
        // memory is locked before, and the full buffer covers the render thread's
        // creation. The render thread goes on from the next period; if these already
        // ended the stream (device failure, frame limit), it only returns.
        let memoryNote = lockMemory ? SystemThread.lockMemory() : nil
        let savedFloatEnvironment = FloatEnvironment.flushDenormals()
        var end: PeriodWriteResult? = nil
        var written = 0
        while end == nil && written < max(1, granted.bufferFrames / granted.periodFrames) {
            end = loop.period()
            written += 1
        }
        FloatEnvironment.restore(savedFloatEnvironment)
        let firstEnd = end
        let t = try SystemThread(name: "bendsynth alsa", priority: priority, lockMemory: false) {
            FloatEnvironment.flushDenormalsOnThisThread()
            RenderThreadWatch.begin()  // counts only under make bench's render_watch.so
            if firstEnd == nil { _ = loop.run() }
        }
        started = true
        thread = t
        let notes = [memoryNote, t.note].compactMap { $0 }
        realtimeNote = notes.isEmpty ? nil : notes.joined(separator: "; ")
    }

    /// Waits until the render loop ends by itself (frame limit reached or device failed).
    /// - Thread: setup (not the render thread).
    public func waitUntilEnded() {
        thread?.join()
    }

    /// Stops the render loop (within one period, or one wait of 250 ms at most), joins
    /// its thread, drops the frames still queued and closes the PCM. Later calls do nothing.
    /// - Thread: setup.
    public func stop() {
        stopFlag.pointee.store(true, ordering: .relaxed)
        thread?.join()
        thread = nil
        if let pcm {
            snd_pcm_drop(pcm)
            snd_pcm_close(pcm)
            self.pcm = nil
        }
        if let config {
            snd_config_delete(config)
            self.config = nil
        }
    }

    // MARK: - Setup

    /// The system configuration with `text` loaded on top of it.
    static func loadConfig(_ text: String, device: String) throws -> OpaquePointer {
        var system: OpaquePointer?
        try alsaCheck(snd_config_update_ref(&system), "snd_config_update_ref", device: device)
        defer { snd_config_unref(system) }
        var top: OpaquePointer?
        try alsaCheck(snd_config_copy(&top, system), "snd_config_copy", device: device)
        var input: OpaquePointer?
        let bytes = Array(text.utf8)
        let opened = bytes.withUnsafeBufferPointer { b in
            b.baseAddress!.withMemoryRebound(to: CChar.self, capacity: b.count) {
                snd_input_buffer_open(&input, $0, b.count)
            }
        }
        do {
            try alsaCheck(opened, "snd_input_buffer_open", device: device)
            defer { snd_input_close(input) }
            try alsaCheck(snd_config_load(top, input), "snd_config_load(configText)", device: device)
        } catch {
            snd_config_delete(top)
            throw error
        }
        return top!
    }

    /// Hardware and software parameters; returns what was granted.
    static func configure(_ pcm: OpaquePointer, device: String, rate: Int, periodFrames: Int,
                          periods: Int) throws -> ALSASettings {
        var hw: OpaquePointer?
        try alsaCheck(snd_pcm_hw_params_malloc(&hw), "snd_pcm_hw_params_malloc", device: device)
        defer { snd_pcm_hw_params_free(hw) }
        try alsaCheck(snd_pcm_hw_params_any(pcm, hw), "snd_pcm_hw_params_any", device: device)
        try alsaCheck(snd_pcm_hw_params_set_access(pcm, hw, SND_PCM_ACCESS_RW_INTERLEAVED),
                      "snd_pcm_hw_params_set_access(RW_INTERLEAVED)", device: device)
        try alsaCheck(snd_pcm_hw_params_set_channels(pcm, hw, 2), "snd_pcm_hw_params_set_channels(2)", device: device)
        let format: ALSASettings.SampleFormat
        if snd_pcm_hw_params_test_format(pcm, hw, SND_PCM_FORMAT_FLOAT_LE) == 0 {
            format = .float32
            try alsaCheck(snd_pcm_hw_params_set_format(pcm, hw, SND_PCM_FORMAT_FLOAT_LE),
                          "snd_pcm_hw_params_set_format(FLOAT_LE)", device: device)
        } else {
            format = .s16
            try alsaCheck(snd_pcm_hw_params_set_format(pcm, hw, SND_PCM_FORMAT_S16_LE),
                          "snd_pcm_hw_params_set_format(S16_LE, after FLOAT_LE was refused)", device: device)
        }
        var r = UInt32(rate)
        try alsaCheck(snd_pcm_hw_params_set_rate_near(pcm, hw, &r, nil), "snd_pcm_hw_params_set_rate_near(\(rate))", device: device)
        var period = snd_pcm_uframes_t(periodFrames)
        try alsaCheck(snd_pcm_hw_params_set_period_size_near(pcm, hw, &period, nil),
                      "snd_pcm_hw_params_set_period_size_near(\(periodFrames))", device: device)
        var buffer = period * snd_pcm_uframes_t(max(periods, 2))
        try alsaCheck(snd_pcm_hw_params_set_buffer_size_near(pcm, hw, &buffer),
                      "snd_pcm_hw_params_set_buffer_size_near(\(buffer))", device: device)
        try alsaCheck(snd_pcm_hw_params(pcm, hw), "snd_pcm_hw_params", device: device)
        var dir: Int32 = 0
        try alsaCheck(snd_pcm_hw_params_get_rate(hw, &r, &dir), "snd_pcm_hw_params_get_rate", device: device)
        try alsaCheck(snd_pcm_hw_params_get_period_size(hw, &period, &dir), "snd_pcm_hw_params_get_period_size", device: device)
        try alsaCheck(snd_pcm_hw_params_get_buffer_size(hw, &buffer), "snd_pcm_hw_params_get_buffer_size", device: device)

        var sw: OpaquePointer?
        try alsaCheck(snd_pcm_sw_params_malloc(&sw), "snd_pcm_sw_params_malloc", device: device)
        defer { snd_pcm_sw_params_free(sw) }
        try alsaCheck(snd_pcm_sw_params_current(pcm, sw), "snd_pcm_sw_params_current", device: device)
        // RW-41 step 7: start after one period, not a full buffer (the default), so the
        // stream restarts at once after a recovery instead of waiting ~a buffer of silence.
        try alsaCheck(snd_pcm_sw_params_set_start_threshold(pcm, sw, period),
                      "snd_pcm_sw_params_set_start_threshold(\(period))", device: device)
        try alsaCheck(snd_pcm_sw_params_set_avail_min(pcm, sw, period), "snd_pcm_sw_params_set_avail_min(\(period))", device: device)
        try alsaCheck(snd_pcm_sw_params(pcm, sw), "snd_pcm_sw_params", device: device)
        return ALSASettings(rate: Int(r), periodFrames: Int(period), bufferFrames: Int(buffer), format: format)
    }
}
