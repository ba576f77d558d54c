// SPDX-License-Identifier: GPL-3.0-or-later
/// Envelope, smoothing and polyphony settings of a `Mixer`.
public struct MixerConfiguration: Sendable {
    /// Output rate, frames per second.
    public var rate: Double
    /// Largest period the render call is given, frames.
    public var maxPeriodFrames: Int
    /// Polyphony: voices that can sound at once (1…65536).
    public var voices: Int
    /// Attack fade-in, seconds (at least one frame; `Envelope`).
    public var attackSeconds: Double = 0.004
    /// Decay from full level to `sustainLevel`, seconds (0: none; the attack then rises
    /// to the sustain level).
    public var decaySeconds: Double = 0
    /// Sustain level, linear gain 0…1 (1: no decay).
    public var sustainLevel: Double = 1
    /// Release fade-out, seconds (at least one frame).
    public var releaseSeconds: Double = 0.008
    /// Fade of a voice stolen for a new touch, seconds.
    public var stealSeconds: Double = 0.001
    /// Crossfade of a voice bending from one zone of a sound into the next
    /// (`ZoneCrossfade.swift`), seconds: long enough that the change of sample is not
    /// heard as a step in timbre, short enough that the two stay in phase while the
    /// finger moves on.
    public var zoneCrossfadeSeconds: Double = 0.03
    /// Glide time of pitch ratio and gain to each new target (a linear ramp per
    /// sample, restarted from the current value by every move), seconds; at most
    /// `EngineLimits.maximumGlideFrames` frames.
    public var smoothingSeconds: Double = 0.003
    /// Glide time of the pan to each new target (linear, per sample), seconds; at most
    /// `EngineLimits.maximumGlideFrames` frames.
    public var panSmoothingSeconds: Double = 0.005
    /// Input sources (event rings) the mixer can take.
    public var maxSources: Int = 32
    /// Events each source's ring holds.
    public var eventsPerSource: Int = 4096
    /// How a voice reads between tone frames.
    public var interpolation: Interpolation = .cubic
    /// The mix bus limiter (`Limiter`: peaks ≤ −0.5 dBFS, 1 ms look-ahead and latency,
    /// 100 ms release) after the pan stage; off by default in the engine (the app turns
    /// it on).
    public var limiter = false
    /// The per-voice low-pass filter whose cutoff follows each touch's timbre
    /// (`EngineEvent.Kind.timbre`); nil: none (the voices take the plain path).
    public var filter: FilterSettings?
    /// The send effects (reverb, delay, chorus; `SendEffects`); nil: none (no buffers, the
    /// mix as without them).
    public var effects: EffectSettings?
    /// Master gain, linear (≥ 0), applied to the mix before the limiter.
    public var gain: Float = 1
    /// The internal tempo, BPM (`--bpm`): the clock until a source publishes another
    /// (`Mixer.publishTempo`).
    public var tempo: Double = 120
    /// The arpeggiator (`Arpeggiator`; its pattern `.off`: touches sound as played).
    public var arpeggiator = ArpSettings()

    /// The envelope of a plain tone's voices, at `rate`.
    public var envelope: Envelope {
        Envelope(rate: rate, attackSeconds: attackSeconds, decaySeconds: decaySeconds, sustain: sustainLevel, releaseSeconds: releaseSeconds)
    }

    public init(rate: Double = 48_000, maxPeriodFrames: Int = 4096, voices: Int = 64) {
        self.rate = rate
        self.maxPeriodFrames = maxPeriodFrames
        self.voices = voices
    }
}
