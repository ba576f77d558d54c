// SPDX-License-Identifier: GPL-3.0-or-later
/// The delay send's effect: a stereo delay line with feedback, in one of three modes,
/// its time in milliseconds or a note value of the tempo (`DelayTime`).
///
/// - **mono**: the send's two sides summed, one line, its echoes on both sides;
/// - **stereo**: each side its own line, its echoes on its own side;
/// - **ping-pong**: the sides summed into the left line, whose echoes feed the right line
///   and back: echoes alternate left, right, left…
///
/// The feedback path has a one-pole high-cut (`DelaySettings.highCutHz`; 0: none), so
/// each repeat is `feedback` times the one before (−6.02 dB at 0.5) and, with the default
/// 8 kHz high-cut, a 1 kHz tone loses a further 0.07 dB per repeat.
///
/// A time change never jumps the read point (which clicks) or slides it (which bends the
/// pitch): the delay reads at the old and the new time and crossfades between them over
/// `crossfadeSeconds` (equal-gain: the two reads are the same signal a moment apart), so no
/// output step is larger than the signal's own. A change that comes during a crossfade
/// waits for it to end.
///
/// Plain pointers allocated at setup for `DelaySettings.longestSeconds` at the rate (at least
/// 192 kHz's)
/// (5.9 MB); `process` is `@_noLocks`.
public struct EchoDelay: @unchecked Sendable {
    public static var crossfadeSeconds: Double { @_noLocks @inline(__always) get { 0.04 } }
    public let rate: Double
    /// The line, stereo interleaved, `frames` frames; a ring.
    let line: UnsafeMutablePointer<Float>
    let frames: Int
    let state: UnsafeMutablePointer<State>

    struct State {
        var write = 0
        /// The delay now, and the one a crossfade heads to, frames (1…frames − 1).
        var delay = 1
        var next = 1
        /// The crossfade's place 0…1 and its step per frame; 0 step: none.
        var place: Float = 0
        var placeStep: Float = 0
        /// The time asked for, frames, kept while a crossfade runs.
        var wanted = 1
        var feedback: Float = 0
        var feedbackTarget: Float = 0
        /// The high-cut's pole (0: none) and its state per side.
        var pole: Float = 0
        var lowL: Float = 0, lowR: Float = 0
        var mode = DelayMode.stereo
        /// The largest absolute sample written into the line in this window and the one
        /// before (windows of `delay` frames): what is left to echo.
        var windowPeak: Float = 0, lastWindowPeak: Float = 0, windowLeft = 0
        /// Frames written since the delay last woke (`forget`), at most the line's: a read
        /// further back than this is silence.
        var written = 0
    }

    /// - Thread: setup.
    public init(rate: Double, settings: DelaySettings, tempo: Double) {
        self.rate = rate
        frames = Int(DelaySettings.longestSeconds * max(rate, 192_000)) + 2
        line = .allocate(capacity: 2 * frames)
        line.initialize(repeating: 0, count: 2 * frames)
        state = .allocate(capacity: 1)
        state.initialize(to: State())
        set(settings, tempo: tempo)
        state.pointee.delay = state.pointee.wanted
        state.pointee.next = state.pointee.wanted
        state.pointee.placeStep = 0
        state.pointee.feedback = state.pointee.feedbackTarget
    }

    public func deallocate() { line.deallocate(); state.deallocate() }

    /// The delay's time now, frames.
    public var delayFrames: Int { @_noLocks get { state.pointee.wanted } }

    /// The delay wakes after a sleep: nothing it holds from before is echoed (a later,
    /// longer time would read it back).
    /// - Thread: render.
    @_noLocks
    public func forget() {
        state.pointee.written = 0
        state.pointee.lowL = 0
        state.pointee.lowR = 0
    }

    /// New settings at `tempo` (BPM): the time crossfades, the feedback glides over the
    /// next period, the mode and high-cut apply at once.
    /// - Thread: render (between periods), or setup.
    @_noLocks
    public func set(_ settings: DelaySettings, tempo: Double) {
        let asked = settings.time.seconds(tempo: tempo.isNaN ? 120 : tempo)
        let seconds = asked.isNaN ? 0.375 : min(max(asked, 0.001), DelaySettings.longestSeconds)
        state.pointee.wanted = min(max(1, Int(seconds * rate + 0.5)), frames - 2)
        state.pointee.feedbackTarget = settings.feedback.isNaN ? 0 : Float(min(max(settings.feedback, 0), 0.98))
        state.pointee.mode = settings.mode
        let cut = settings.highCutHz
        // One-pole low-pass y = (1 − p)·x + p·y₋₁ with p = e^(−2π·fc/rate).
        state.pointee.pole = cut > 0 && cut < rate / 2 ? Float(Reverb.exp(-2 * Double.pi * cut / rate)) : 0
    }

    /// Adds the echoes of `input` (interleaved stereo) into `out`, and `toReverb` times
    /// them into `reverbIn` (when given). Returns the largest sample left in the line's last
    /// two windows (the tail still to come).
    /// - Thread: render.
    @_noLocks
    public func process(_ input: UnsafePointer<Float>, into out: UnsafeMutablePointer<Float>, frames count: Int,
                        reverbIn: UnsafeMutablePointer<Float>?, toReverb: Float) -> Float {
        var s = state.pointee
        let size = frames
        let fbStep = (s.feedbackTarget - s.feedback) / Float(count)
        var n = 0
        while n < count {
            if s.placeStep == 0 && s.wanted != s.delay {
                s.next = s.wanted
                s.place = 0
                s.placeStep = Float(1 / (EchoDelay.crossfadeSeconds * rate))
            }
            var r = s.write &- s.delay
            if r < 0 { r &+= size }
            let heard: Float = s.delay <= s.written ? 1 : 0
            var l = line[2 &* r] * heard, rr = line[2 &* r &+ 1] * heard
            if s.placeStep != 0 {
                var q = s.write &- s.next
                if q < 0 { q &+= size }
                s.place = min(s.place + s.placeStep, 1)
                let next: Float = s.next <= s.written ? 1 : 0
                l += (line[2 &* q] * next - l) * s.place
                rr += (line[2 &* q &+ 1] * next - rr) * s.place
                if s.place >= 1 { s.delay = s.next; s.placeStep = 0 }
            }
            s.feedback += fbStep
            // The loop's high-cut, on what is fed back.
            s.lowL = l + (s.lowL - l) * s.pole
            s.lowR = rr + (s.lowR - rr) * s.pole
            let xl = input[2 &* n], xr = input[2 &* n &+ 1]
            var wl: Float, wr: Float
            switch s.mode {
            case .mono:
                let m = (xl + xr) * 0.5 + s.feedback * s.lowL
                wl = m; wr = m
            case .stereo:
                wl = xl + s.feedback * s.lowL
                wr = xr + s.feedback * s.lowR
            case .pingPong:
                wl = (xl + xr) * 0.5 + s.feedback * s.lowR
                wr = s.feedback * s.lowL
            }
            // Keeps the loop out of denormals on a thread without flush-to-zero.
            wl += 1e-20; wr += 1e-20
            line[2 &* s.write] = wl
            line[2 &* s.write &+ 1] = wr
            s.windowPeak = max(s.windowPeak, max(abs(wl), abs(wr)))
            s.windowLeft -= 1
            if s.windowLeft <= 0 { s.lastWindowPeak = s.windowPeak; s.windowPeak = 0; s.windowLeft = max(s.delay, s.next) }
            s.write &+= 1
            if s.write == size { s.write = 0 }
            if s.written < size { s.written &+= 1 }
            out[2 &* n] += l
            out[2 &* n &+ 1] += rr
            if let reverbIn {
                reverbIn[2 &* n] += l * toReverb
                reverbIn[2 &* n &+ 1] += rr * toReverb
            }
            n &+= 1
        }
        s.feedback = s.feedbackTarget
        state.pointee = s
        return max(s.windowPeak, s.lastWindowPeak)
    }
}

/// How the delay's sides echo (`EchoDelay`).
public enum DelayMode: Sendable, CaseIterable, BitwiseCopyable {
    case mono, stereo, pingPong

    var index: Int {
        @_noLocks @inline(__always) get {
            switch self {
            case .mono: 0
            case .stereo: 1
            case .pingPong: 2
            }
        }
    }
}

/// A delay time: milliseconds, or a note value of the tempo (`1/8.`, `1/4t`).
public enum DelayTime: Sendable, Equatable {
    case milliseconds(Double)
    /// `beats` quarter notes: a note 1/d is 4/d beats, dotted ×1.5, triplet ×2/3.
    case beats(Double)

    /// Seconds at `tempo` (BPM, quarter notes per minute).
    @_noLocks
    public func seconds(tempo: Double) -> Double {
        switch self {
        case .milliseconds(let ms): ms / 1000
        case .beats(let b): b * 60 / max(tempo, 1)
        }
    }
}

/// The delay's controls.
public struct DelaySettings: Sendable, Equatable {
    /// The longest delay, seconds.
    public static var longestSeconds: Double { @_noLocks @inline(__always) get { 4.0 } }
    public var time = DelayTime.beats(0.75)
    /// Feedback, linear gain per repeat 0…0.98.
    public var feedback = 0.35
    public var mode = DelayMode.pingPong
    /// The feedback loop's high-cut, Hz (0: none).
    public var highCutHz = 8000.0
    /// How much of the echoes goes on into the reverb's send, linear 0…1.
    public var toReverb = 0.3

    @_noLocks public init() {}

    /// Some control differs from `other`'s.
    @_noLocks
    public func differs(from other: DelaySettings) -> Bool {
        var timeDiffers = true
        switch (time, other.time) {
        case let (.milliseconds(a), .milliseconds(b)): timeDiffers = a != b
        case let (.beats(a), .beats(b)): timeDiffers = a != b
        default: break
        }
        return timeDiffers || feedback != other.feedback || highCutHz != other.highCutHz || toReverb != other.toReverb
            || mode.index != other.mode.index
    }
}
