// SPDX-License-Identifier: GPL-3.0-or-later
/// Identifies one touch across the whole instrument: the input source's index in the
/// upper 32 bits and the source's own touch id (a tracking ID, a mouse button, a key code)
/// in the lower 32 bits, so two sources can never move or end each other's touches.
public struct TouchKey: Hashable, BitwiseCopyable, Sendable {
    /// The input source's index (one event ring each, `Mixer.addSource`).
    public var source: UInt32
    /// The source's own touch id.
    public var touch: UInt32

    @_noLocks
    public init(source: UInt32, touch: UInt32) {
        self.source = source
        self.touch = touch
    }

    /// Field-wise equality usable on the render thread (the synthesized `==` is not
    /// checked-safe in unoptimized builds).
    @_noLocks @inline(__always)
    public func matches(_ other: TouchKey) -> Bool {
        source == other.source && touch == other.touch
    }
}

/// One command from a control thread to the render thread: a fixed-size plain value,
/// copied through an `SPSCRing` and applied at its `frame` (sample-accurate).
public struct EngineEvent: BitwiseCopyable, Sendable {
    public enum Kind: UInt8, BitwiseCopyable, Sendable {
        /// Start a voice for `key` with `ratio` and `gain` (attack fade-in).
        case down
        /// Bend the voice of `key` to `ratio` and `gain` (smoothed over `glide` frames, or
        /// the mixer's glide; never restarted).
        case move
        /// Release the voice of `key` (release fade-out, then the voice is freed).
        case up
        /// Set the pan of every voice to `value` (−1 left … +1 right, equal-power).
        case pan
        /// Release every voice whose key belongs to `key.source` (a source went away).
        case releaseSource
        /// Release every voice.
        case releaseAll
        /// The timbre of the voice of `key` glides to `value` (0…1; the low-pass filter's
        /// cutoff, `FilterSettings`; ignored without a filter). The first after a touch's
        /// down is taken at once.
        case timbre
        /// The send of the voice of `key` to bus `bus` (`SendBus`) glides to `value`
        /// (linear 0…1): the voice takes a send group of its own (`SendEffects`).
        /// Ignored without effects.
        case send
        /// The instrument's default send to bus `bus` (every voice without a send of its
        /// own) glides to `value` (linear 0…1). Ignored without effects.
        case sendDefault
    }

    /// Stream position in frames at which the event takes effect. Frames before the
    /// current period are applied at its first frame.
    public var frame: UInt64
    public var kind: Kind
    /// For `.send` and `.sendDefault`: the bus (`SendBus.rawValue`). (It fills padding:
    /// the event stays 32 bytes.)
    public var bus: UInt8 = 0
    /// For `.move`: frames the pitch and gain glide over, 1…65535 (1.4 s at 48 kHz); 0
    /// (every other event): the mixer's glide (`MixerConfiguration.smoothingSeconds`). A
    /// source whose reports come coarser than the sound should move (a terminal's
    /// mouse, cell by cell) glides over the time between them. (Padding too.)
    public var glide: UInt16 = 0
    public var key: TouchKey
    /// Pitch ratio (playback rate, 1 = as recorded), 0…`EngineLimits.maximumRatio` (8;
    /// larger values are clamped, NaN counts as 0) — the pitch maps give 0…
    /// `EngineLimits.padMaximumRatio` (4); for `.pan`, the pan −1 (left)…+1 (right); for `.timbre`, the timbre 0…1.
    public var value: Float
    /// Linear gain 0…1.
    public var gain: Float

    @_noLocks
    public init(frame: UInt64, kind: Kind, key: TouchKey = TouchKey(source: 0, touch: 0), value: Float = 0, gain: Float = 0) {
        self.frame = frame
        self.kind = kind
        self.key = key
        self.value = value
        self.gain = gain
    }

    /// A `.send` (for `key`) or `.sendDefault` (no key) event.
    @_noLocks
    public static func send(frame: UInt64, key: TouchKey?, bus: SendBus, level: Float) -> EngineEvent {
        var e = EngineEvent(frame: frame, kind: key == nil ? .sendDefault : .send, key: key ?? TouchKey(source: 0, touch: 0), value: level)
        e.bus = bus.index
        return e
    }
}
