import BendControl
import BendEngine

/// How an instrument sounds, as a plain value: the tone, the output rate, the polyphony,
/// how voices read the tone, the mix bus, and how touches become pitches (pitch map,
/// scale, rounding, the tone's MIDI note). Every front end makes one — `play` and
/// `render` from their options, the LV2 plugin from its controls and state — and the
/// assembly (`LiveInstrument`, `OfflineInstrument`, `HostedInstrument`) builds the same
/// instrument from it.
public struct SoundSettings: Sendable {
    /// The tone file (WAV, CAF, AIFF, FLAC, …); nil: the default tone asset.
    public var tone: String?
    /// Output rate, frames per second (the device may grant another: the tone is then
    /// loaded again at the granted rate).
    public var rate = 48_000
    /// Polyphony: voices at once (1…4096); a new touch steals the oldest.
    public var voices = 64
    /// How voices read the tone.
    public var interpolation = Interpolation.bandLimited
    /// The mix bus limiter (peaks ≤ −0.5 dBFS).
    public var limiter = true
    /// Master gain, linear (≥ 0), before the limiter.
    public var gain: Float = 1
    /// x → pitch ratio of pad touches.
    public var pitchMap = PitchMap.linear
    /// The scale at its root (guides, rounding), nil without.
    public var tuning: Tuning?
    /// Rounding of pad touches onto the tuning's steps, nil when off.
    public var rounding: PitchRounding?
    /// MIDI note the tone sounds at as recorded (ratio 1), 0…127 with cents as the
    /// fraction: MIDI in and out, MIDI files.
    public var toneNote = 69.0
    /// Each MIDI key's pitch: the tone's note, and the scale and keyboard map MIDI notes
    /// go through (`--scale`, `--kbm`).
    public var keys = KeyboardTuning(toneNote: 69)
    /// The envelope: attack, decay (to `sustainLevel`) and release times, seconds.
    public var attackSeconds = 0.004
    public var decaySeconds = 0.0
    public var releaseSeconds = 0.008
    /// Linear level held after the decay (1: no decay).
    public var sustainLevel = 1.0
    /// A tone's sustain loop seam crossfaded over this long, seconds (0: none).
    public var loopCrossfadeSeconds = 0.0
    /// The voices' low-pass filter following each touch's timbre; nil: none.
    public var filter: FilterSettings?

    public init() {}

    /// The mixer's settings at `rate` for periods of at most `periodFrames` frames.
    public func configuration(rate: Double, periodFrames: Int) -> MixerConfiguration {
        var c = MixerConfiguration(rate: rate, maxPeriodFrames: periodFrames, voices: voices)
        configure(&c)
        return c
    }

    /// Sets the mixer's interpolation, limiter and master gain.
    public func configure(_ configuration: inout MixerConfiguration) {
        configuration.interpolation = interpolation
        configuration.limiter = limiter
        configuration.gain = gain
        configuration.attackSeconds = attackSeconds
        configuration.decaySeconds = decaySeconds
        configuration.sustainLevel = sustainLevel
        configuration.releaseSeconds = releaseSeconds
        configuration.filter = filter
    }
}
