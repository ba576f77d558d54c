// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendEngine
import Foundation

/// How an instrument sounds, as a plain value: the tone, the output rate, the polyphony,
/// how voices read the tone, the mix bus, and how touches become pitches (pitch map,
/// scale, rounding, the tone's MIDI note). Every front end makes one — `play` and
/// `render` from their options, the LV2 plugin from its controls and state — and the
/// assembly (`PlaySession`, `OfflineInstrument`, `HostedInstrument`) builds the same
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
    /// A tone's loop seam crossfaded over this long, seconds (0: none); nil (not given):
    /// a loop of the file's own is not crossfaded, a tone that loops whole is, over
    /// `wholeLoopCrossfadeSeconds`.
    public var loopCrossfadeSeconds: Double?
    /// The seam crossfade of a tone that loops whole when `--loop-crossfade` is not given.
    public static let wholeLoopCrossfadeSeconds = 0.010
    /// The voices' low-pass filter following each touch's timbre; nil: none.
    public var filter: FilterSettings?
    /// The send effects (reverb, delay, chorus) and their default sends; nil:
    /// none at all (no buffers). With every send 0 they cost nothing and change nothing.
    public var effects: EffectSettings? = EffectSettings()
    /// The internal tempo, BPM (`--bpm`), and where the tempo comes from (nil: auto,
    /// `TempoSource`'s order; docs/TEMPO.md).
    public var tempo = 120.0
    public var tempoSource: TempoSource?
    /// The arpeggiator (pattern `.off`: none).
    public var arpeggiator = ArpSettings()

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
        configuration.effects = effects
        configuration.tempo = tempo
        configuration.arpeggiator = arpeggiator
    }
}

extension SoundSettings {
    /// The tone's pitch in Hz (`toneNote` in 12-TET, A4 = 440 Hz).
    public var toneHz: Double { 440 * pow(2, (toneNote - 69) / 12) }

    /// Works out how touches become pitches from a player's choices — play's and render's
    /// options, the LV2 plugin's controls — at `toneNote` (set it first):
    /// - `tuning`: the scale at its root (the keyboard map's reference, else `scaleRootHz`,
    ///   else the tone's pitch); chromatic for rounding without a scale; nil with neither;
    /// - `keys`: MIDI keys through the keyboard map (12-TET with a map alone), else 12
    ///   keys a period from the scale's root on the tone's note, else 12-TET;
    /// - `rounding` of pad touches (`roundMode` off: none);
    /// - `pitchMap`: linear, or `octaves` octaves centred on the scale's root when
    ///   `exponential`.
    public mutating func choosePitch(scale: Scale?, scaleRootHz: Double?, keyboardMap: KeyboardMap?, exponential: Bool,
                                     octaves: Double, roundMode: PitchRounding.Mode, roundRate: Double) {
        if scale != nil || roundMode != .off {
            let s = scale ?? Scale.builtIn("chromatic")!
            let ratio = (keyboardMap.map { $0.rootHz(scale: s) } ?? scaleRootHz).map { $0 / toneHz } ?? 1
            tuning = Tuning(scale: s, rootRatio: ratio, toneNote: toneNote)
        } else {
            tuning = nil
        }
        if let keyboardMap {
            keys = KeyboardTuning(toneNote: toneNote, scale: scale ?? Scale.builtIn("chromatic")!, keyboard: keyboardMap)
        } else if let scale {
            keys = KeyboardTuning(toneNote: toneNote, scale: scale, rootHz: scaleRootHz ?? toneHz)
        } else {
            keys = KeyboardTuning(toneNote: toneNote)
        }
        rounding = roundMode != .off && tuning != nil ? PitchRounding(mode: roundMode, rate: roundRate, tuning: tuning!) : nil
        if exponential {
            let centre = scale != nil ? (tuning?.rootRatio ?? 1) : 1
            pitchMap = centre == 1 ? .exponential(octaves: octaves) : .exponentialAround(octaves: octaves, centre: centre)
        } else {
            pitchMap = .linear
        }
    }
}
