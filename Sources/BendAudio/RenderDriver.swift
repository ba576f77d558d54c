// SPDX-License-Identifier: GPL-3.0-or-later
import BendEngine
import BendSystem

/// Where one period's samples go, in the sink's format. Plain pointers: the sink owns
/// (or is handed) the memory, sized for the frames asked of `RenderDriver.period`.
/// A sink with another layout adds a case here and its conversion to the step, as S16
/// and JACK's planar ports do.
public enum PeriodBuffer: @unchecked Sendable {
    /// Interleaved stereo float (left, right, …), 2 × frames samples: rendered in place.
    /// An offline file, the clock-paced sink, a FLOAT_LE PCM, or a buffer a pull-driven
    /// sink (a JACK-style process callback) was handed.
    case float(UnsafeMutablePointer<Float>)
    /// Interleaved stereo S16, 2 × frames samples, for a PCM that granted S16_LE:
    /// rendered into `scratch` (2 × frames floats, what the record ring gets), then
    /// converted (clamped, × 32767, rounded to nearest, NaN → 0).
    case s16(UnsafeMutablePointer<Int16>, scratch: UnsafeMutablePointer<Float>)
    /// One float buffer per channel, `frames` samples each (JACK's ports): rendered into
    /// `scratch` (2 × frames floats, interleaved: what the record ring gets), then
    /// deinterleaved into `left` and `right`.
    case planar(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>)

    /// The float samples the mixer renders into.
    var floats: UnsafeMutablePointer<Float> {
        @_noLocks get {
            switch self {
            case .float(let f): return f
            case .s16(_, let scratch): return scratch
            case .planar(_, _, let scratch): return scratch
            }
        }
    }
}

/// What `RenderDriver.period` did: the period's first stream frame and when the step
/// finished.
public struct RenderedPeriod: Sendable, Equatable {
    /// Stream frame of the period's first frame (the mixer's position before it).
    public var frame: UInt64
    /// Monotonic ns when the step ended (after render, record and conversion); 0 when
    /// neither a clock nor a meter asked for the time.
    public var endNanos: UInt64
}

/// The render driver: the one period step every sink calls — publish the stream clock,
/// render the mixer, copy to the record ring, convert to the sink's format, meter the
/// load. OpenAL Soft's model: each backend thread (ALSA's writer, the clock-paced
/// sleeper, the offline file loop, a pull-driven process callback) owns its own wait or
/// write and calls this one mix entry, so all of them sound and measure alike.
///
/// Plain values and pointers allocated at setup (the mixer, the clock and the ring are
/// structs of pointers; the meter's probe too): no class reference, so the render
/// thread does no reference counting. Copy it freely; every copy drives the same
/// engine, and only one thread may run `period` at a time.
public struct RenderDriver: @unchecked Sendable {
    /// The engine rendered each period. Owned by the `Instrument` (or the caller).
    public let mixer: Mixer
    /// Published at the start of each period (its first frame, monotonic ns), or nil
    /// (offline: events carry their frames).
    public let clock: StreamClock?
    /// Receives every rendered period (interleaved float, whole periods; a full ring
    /// drops and counts them), or nil.
    public let record: SPSCRing<Float>?
    /// Load per period and first-period time, set by the sink that measures it.
    var meter: RenderLoadMeter.Probe?

    /// - Parameters:
    ///   - mixer: the engine; each `period` asks it for at most `maxPeriodFrames` frames.
    ///   - clock: published each period, or nil.
    ///   - record: the recording ring, or nil.
    /// - Thread: setup.
    public init(mixer: Mixer, clock: StreamClock? = nil, record: SPSCRing<Float>? = nil) {
        self.mixer = mixer
        self.clock = clock
        self.record = record
    }

    /// This driver, also measuring each period into `meter`. - Thread: setup.
    func measured(by meter: RenderLoadMeter.Probe?) -> RenderDriver {
        var copy = self
        copy.meter = meter
        return copy
    }

    /// One period: publishes `(mixer.position, time)` to the clock, renders `frames`
    /// frames into `buffer`, copies them to the record ring, converts to the sink's
    /// format and records the load (start of the step → its end) with the meter.
    /// - Parameters:
    ///   - frames: 1…`mixer.configuration.maxPeriodFrames`; a pull-driven sink passes the
    ///     count it was handed (it may vary between calls).
    ///   - buffer: where the samples go (2 × `frames` samples).
    ///   - publishing: the monotonic ns published with the period's first frame; nil
    ///     publishes the clock reading at the start of the step (a device sink: the
    ///     period is rendered as it is needed). The clock-paced sink gives its deadline.
    /// - Returns: the period's first frame and the time the step ended.
    /// - Thread: render (a sink's thread or callback), or setup before that thread runs.
    @_noLocks
    public func period(frames: Int, into buffer: PeriodBuffer, publishing: UInt64? = nil) -> RenderedPeriod {
        let position = mixer.position
        // MonotonicClock.nanos (BendSystem, not inlinable here): clock_gettime(CLOCK_MONOTONIC)
        // through the vDSO, no lock, no allocation.
        let timed = clock != nil || meter != nil
        let start: UInt64 = timed ? _unsafePerformance { MonotonicClock.nanos() } : 0
        if let clock { clock.publish(frame: position, nanos: publishing ?? start) }
        let floats = buffer.floats
        mixer.render(into: floats, frames: frames)
        if let record { record.write(floats, count: 2 * frames) }
        switch buffer {
        case .float: break
        case .s16(let shorts, _): RenderDriver.convertToS16(floats, shorts, count: 2 * frames)
        case .planar(let left, let right, _): RenderDriver.deinterleave(floats, left, right, frames: frames)
        }
        var end: UInt64 = 0
        if timed {
            end = _unsafePerformance { MonotonicClock.nanos() }
            if let meter { meter.record(frame: position, start: start, end: end) }
        }
        return RenderedPeriod(frame: position, endNanos: end)
    }

    /// A host's block — a JACK period, an LV2 `run`, a CLAP `process` — which may be
    /// longer than the mixer's bound: rendered in steps of at most `step` frames, each a
    /// `period` into its place in the host's two channel buffers (`PeriodBuffer.planar`).
    /// Each step publishes the time its first frame is due: the block's start (read here,
    /// when there is a clock) plus the frames before it at the mixer's rate.
    /// - Parameters:
    ///   - frames: the block's length, frames (0 renders nothing).
    ///   - left, right: the host's buffers, `frames` floats each.
    ///   - scratch: 2 × `step` floats.
    ///   - step: 1…`mixer.configuration.maxPeriodFrames`, frames.
    /// - Thread: render (the host's process thread).
    @_noLocks
    public func block(frames: Int, left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>,
                      scratch: UnsafeMutablePointer<Float>, step: Int) {
        // MonotonicClock.nanos: clock_gettime(CLOCK_MONOTONIC) through the vDSO.
        let start: UInt64 = clock != nil ? _unsafePerformance { MonotonicClock.nanos() } : 0
        let rate = max(UInt64(mixer.configuration.rate), 1)  // frames per second
        var done = 0
        while done < frames {
            let n = min(step, frames - done)
            _ = period(frames: n, into: .planar(left: left + done, right: right + done, scratch: scratch),
                       publishing: start &+ UInt64(done) &* 1_000_000_000 / rate)
            done += n
        }
    }

    /// Tells the meter a period reached the sink (it notes the first one's wall time).
    /// - Thread: render.
    @_noLocks
    public func periodDelivered() {
        if let meter { meter.periodWritten() }
    }

    /// Interleaved stereo → one buffer per channel.
    /// - Thread: render.
    @_noLocks
    static func deinterleave(_ input: UnsafePointer<Float>, _ left: UnsafeMutablePointer<Float>,
                             _ right: UnsafeMutablePointer<Float>, frames: Int) {
        var i = 0
        while i < frames {
            left[i] = input[2 * i]
            right[i] = input[2 * i + 1]
            i += 1
        }
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
