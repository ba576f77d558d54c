// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendEngine
import BendInstrument
import BendSystem
import Foundation

/// Settings shared by every command that makes sound: tone, rate, polyphony, pitch map,
/// scale and rounding.
struct SoundOptions {
    /// Tone file; nil means the default asset.
    var tone: String?
    /// Output rate, frames per second.
    var rate = 48_000
    /// Polyphony.
    var voices = 64
    var pitchMapName = SoundDefaults.exponential ? "exp" : "linear"
    var octaves = SoundDefaults.octaves
    var octavesGiven = false
    /// How voices read the tone (`--interp`).
    var interpolation = Interpolation.bandLimited
    /// The mix bus limiter (`--limiter`).
    var limiter = true
    /// Master gain, dB (`-g`).
    var gainDB = SoundDefaults.gainDB
    /// `--scale`: lays the pad out exponentially around its root and gives the guides.
    var scale: Scale?
    /// `--scale-root`: the root's pitch in Hz; nil: the tone's pitch.
    var scaleRootHz: Double?
    /// `--kbm`: a Scala keyboard mapping for MIDI notes (the scale's root and pitch too).
    var keyboardMap: KeyboardMap?
    /// An Ableton scale's (`--scale FILE.ascl`) own keys and reference pitch, used when
    /// `--kbm` is not given.
    var scaleKeyboardMap: KeyboardMap?
    /// `--kbm-rule`: how a mapping's patterns repeat; nil: not given (the tuning library's).
    var keyboardRule: KeyboardMap.Rule?
    var roundMode = SoundDefaults.padRounding
    /// `--round-rate`, seconds.
    var roundRate = 0.08
    var roundRateGiven = false
    /// MIDI note of the tone's pitch (ratio 1), fine tune included, for MIDI files, MIDI
    /// in/out and the scale's note names, 0…127: `--tone-note`, else the tone's root
    /// (`resolveRoot()`, before anything reads it).
    var toneNote = 69.0
    var toneNoteGiven = false
    /// The envelope (`--attack`, `--decay`, `--sustain`, `--release`): seconds, and the
    /// sustain level in dB (0: no decay).
    var attackSeconds = 0.004
    var decaySeconds = 0.0
    var sustainDB = 0.0
    var releaseSeconds = 0.008
    /// `--loop-crossfade`: a tone's sustain loop seam crossfaded over this long, seconds.
    var loopCrossfadeSeconds: Double?
    /// The voices' low-pass filter (`--filter`, or `--y-map cutoff`), its Q (`--resonance`)
    /// and what a pad touch's y plays (`--y-map`).
    var filter = false
    var resonance = 0.5.squareRoot()
    var resonanceGiven = false
    var yMap = PadYMap.gain
    /// The send effects (`EffectOptions`).
    var effects = EffectOptions()
    /// The tempo clock and the arpeggiator (`TempoOptions`).
    var tempo = TempoOptions()

    static let specs: [OptionSpec] = [
        OptionSpec("tone", "t", value: "FILE", help: "tone to loop (WAV, CAF, AIFF, FLAC, Ogg; its root note and loop read from the file, DC removed) or an SFZ instrument (FILE.sfz: zones, velocity layers, round robins, bent across zones); default Assets/synth_tone_mono.caf"),
        OptionSpec("rate", "r", value: "HZ", help: "output rate in frames per second (8000…192000, default 48000)"),
        OptionSpec("voices", "n", value: "N", help: "polyphony: voices at once (1…4096, default 64); a new touch steals the oldest"),
        OptionSpec("pitch-map", value: "MAP", help: "x → pitch: 'exp' (octaves evenly spaced around the tone's pitch, or the scale's root; default) or 'linear' (ratio 2·x, the seed's map)"),
        OptionSpec("octaves", value: "N", help: "octaves spanned by --pitch-map exp (0.1…8, default 2)"),
        OptionSpec("interp", value: "MODE", help: "how voices read the tone: 'bandlimited' (alias-free band-limited tables, default), 'cubic' (4-point Hermite) or 'linear'"),
        OptionSpec("limiter", value: "on|off", help: "the mix bus limiter: peaks at most −0.5 dBFS, 1 ms look-ahead and latency (default on)"),
        OptionSpec("gain", "g", value: "DB", help: "master gain in dB (−60…+24, default −11: headroom for an 8-note chord), before the limiter"),
        OptionSpec("scale", value: "NAME|FILE.scl", help: "scale for guides, rounding, the letter keys and MIDI notes (12 keys a period, see --kbm): chromatic, major, minor, harmonic-minor, pentatonic, minor-pentatonic, whole-tone, edo:N, a Scala file, an Ableton .ascl (its keys one a step, its REFERENCE_PITCH the pitch); default chromatic on the tone's pitch"),
        OptionSpec("scale-root", value: "HZ|NOTE", help: "pitch of the scale's root: Hz (1…20000) or a note with its octave (C4, A#3, Bb2; A4 = 440 Hz); default the tone's pitch"),
        OptionSpec("kbm", value: "FILE.kbm", help: "Scala keyboard mapping: which scale degree each MIDI key plays and the reference key's Hz (12-TET without --scale); without it 12 keys a period, the root on --tone-note"),
        OptionSpec("kbm-rule", value: "RULE", help: "how a --kbm's patterns repeat: 'tuning-library' (Surge XT's tuning-library, default: files sound as in the synths built on it) or 'scala' (the format read literally: each pattern the formal octave up from the middle key)"),
        OptionSpec("round", value: "off|initial|hold", help: "pitch rounding of pad touches onto the scale (chromatic without --scale): hold (default: a resting touch is drawn onto its step, vibrato kept), initial (touches start on a step), off; MIDI keys are never rounded"),
        OptionSpec("round-rate", value: "MS", help: "how long --round hold takes to draw a resting touch onto its step (1…2000 ms, default 80)"),
        OptionSpec("tone-note", value: "N", help: "MIDI note the tone sounds at as recorded, for MIDI files, MIDI in/out and the scale (0…127, decimals for cents: 64.02); default the file's root note (smpl/INST), else the pitch found in it at load; 69 = A4 for the default tone"),
        OptionSpec("attack", value: "MS", help: "envelope attack: fade-in time of a touch (1…10000 ms, default 4)"),
        OptionSpec("decay", value: "MS", help: "envelope decay from full level to the --sustain level (0…60000 ms, default 0)"),
        OptionSpec("sustain", value: "DB", help: "envelope sustain level while a touch is held (−100…0 dB, default 0)"),
        OptionSpec("loop-crossfade", value: "MS", help: "crossfade a tone's loop seam over MS (0…1000 ms): for a loop whose ends are not a zero crossing; default 0 for a loop of the file's own, 10 for a tone that loops whole"),
        OptionSpec("filter", value: "on|off", help: "a low-pass filter per voice whose cutoff follows each touch's timbre: MIDI CC 74, the web pad's touch force or radius, a touchscreen's pressure, y with --y-map cutoff (default off)"),
        OptionSpec("resonance", value: "Q", help: "the filter's resonance as its Q (0.5…20, default 0.71: flat); turns the filter on"),
        OptionSpec("y-map", value: "gain|cutoff", help: "what a pad touch's y plays: its gain (default) or the filter's cutoff, 40 Hz…18 kHz (turns the filter on; the gain is then −6 dB)"),
        OptionSpec("release", value: "MS", help: "envelope release: fade-out time after a touch ends (1…60000 ms, default 8)"),
    ] + EffectOptions.specs + TempoOptions.specs

    /// Applies one parsed option; returns false when it is not a sound option.
    mutating func apply(_ name: String, _ value: String?) throws -> Bool {
        if try effects.apply(name, value) { return true }
        if try tempo.apply(name, value) { return true }
        switch name {
        case "tone": tone = value
        case "rate": rate = try OptionValue.integer(value, option: name, in: 8_000...192_000)
        case "voices": voices = try OptionValue.integer(value, option: name, in: 1...4096)
        case "pitch-map":
            guard value == "linear" || value == "exp" else {
                throw AppError.usage("option '--pitch-map': expected 'linear' or 'exp', got '\(value ?? "")'")
            }
            pitchMapName = value!
        case "scale": (scale, scaleKeyboardMap) = try AbletonScale.scaleAndKeys(nameOrFile: value ?? "")
        case "scale-root":
            if let v = value, let note = Tuning.midiNote(named: v) {
                scaleRootHz = 440 * pow(2, Double(note - 69) / 12)
            } else if let v = value, let hz = Double(v), hz.isFinite, (1...20_000).contains(hz) {
                scaleRootHz = hz
            } else {
                throw AppError.usage("option '--scale-root': expected a pitch in Hz (1…20000) or a note with its octave (C4, A#3, Bb2), got '\(value ?? "")'")
            }
        case "kbm": keyboardMap = try KeyboardMap.load(path: value ?? "")
        case "kbm-rule":
            guard let rule = KeyboardMap.Rule(rawValue: value ?? "") else {
                throw AppError.usage("option '--kbm-rule': expected 'tuning-library' or 'scala', got '\(value ?? "")'")
            }
            keyboardRule = rule
        case "round":
            guard let mode = PitchRounding.Mode(rawValue: value ?? "") else {
                throw AppError.usage("option '--round': expected 'off', 'initial' or 'hold', got '\(value ?? "")'")
            }
            roundMode = mode
        case "round-rate":
            roundRate = try OptionValue.number(value, option: name, in: 1...2000) / 1000
            roundRateGiven = true
        case "octaves":
            octaves = try OptionValue.number(value, option: name, in: 0.1...8)
            octavesGiven = true
        case "interp": interpolation = try OptionValues.interpolation(value, option: name)
        case "limiter":
            guard value == "on" || value == "off" else {
                throw AppError.usage("option '--limiter': expected 'on' or 'off', got '\(value ?? "")'")
            }
            limiter = value == "on"
        case "gain": gainDB = try OptionValue.number(value, option: name, in: -60...24)
        case "tone-note":
            toneNote = try OptionValue.number(value, option: name, in: 0...127)
            toneNoteGiven = true
        case "attack": attackSeconds = try OptionValue.number(value, option: name, in: 1...10_000) / 1000
        case "decay": decaySeconds = try OptionValue.number(value, option: name, in: 0...60_000) / 1000
        case "sustain": sustainDB = try OptionValue.number(value, option: name, in: -100...0)
        case "filter":
            guard value == "on" || value == "off" else {
                throw AppError.usage("option '--filter': expected 'on' or 'off', got '\(value ?? "")'")
            }
            filter = value == "on"
        case "resonance":
            resonance = try OptionValue.number(value, option: name, in: 0.5...20)
            resonanceGiven = true
        case "y-map":
            guard let map = PadYMap(rawValue: value ?? "") else {
                throw AppError.usage("option '--y-map': expected 'gain' or 'cutoff', got '\(value ?? "")'")
            }
            yMap = map
        case "loop-crossfade": loopCrossfadeSeconds = try OptionValue.number(value, option: name, in: 0...1000) / 1000
        case "release": releaseSeconds = try OptionValue.number(value, option: name, in: 1...60_000) / 1000
        default: return false
        }
        return true
    }

    /// Checks options that only make sense together.
    func validate() throws {
        if octavesGiven && !exponential {
            throw AppError.usage("option '--octaves' applies to '--pitch-map exp' only")
        }
        if scaleRootHz != nil && scale == nil {
            throw AppError.usage("option '--scale-root' applies with '--scale' only")
        }
        if scaleRootHz != nil && keyboardMap != nil {
            throw AppError.usage("option '--scale-root' does not apply with '--kbm': the keyboard mapping gives the reference key and its frequency")
        }
        if scaleRootHz != nil && scaleKeyboardMap != nil {
            throw AppError.usage("option '--scale-root' does not apply with an Ableton scale (.ascl): its REFERENCE_PITCH (without one, 261.63 Hz on degree 0) gives the pitch")
        }
        if keyboardRule != nil && keyboardMap == nil {
            throw AppError.usage("option '--kbm-rule' applies with '--kbm' only")
        }
        if roundRateGiven && roundMode != .hold {
            throw AppError.usage("option '--round-rate' applies to '--round hold' only")
        }
    }

    /// Exponential x: the default, unless '--pitch-map linear'.
    var exponential: Bool { pitchMapName == "exp" }

    /// `toneNote` from the tone file when `--tone-note` is not given: its instrument
    /// chunk's root, else the pitch found in the sound (`ToneSource.root`). Call it before
    /// anything reads `toneNote` (MIDI files, MIDI sources, the scale's root).
    /// - Throws: `AppError`-mapped `InstrumentError(.input)` for a tone that does not read.
    mutating func resolveRoot() throws {
        guard !toneNoteGiven, let path = tone else { return }
        if let note = try ToneSource.root(path: path, note: { printErr("note: \($0)") }) { toneNote = note }
    }

    /// The scale at its root; nil without `--scale` and rounding.
    var tuning: Tuning? { settings.tuning }
    /// MIDI keys' pitches (`SoundSettings.choosePitch`).
    var keyboardTuning: KeyboardTuning { settings.keys }
    /// Rounding of pad touches; nil when off.
    var rounding: PitchRounding? { settings.rounding }
    /// x → pitch (`SoundSettings.choosePitch`).
    var pitchMap: PitchMap { settings.pitchMap }

    /// The keyboard mapping MIDI keys play through: `--kbm` (by `--kbm-rule`), else an
    /// Ableton scale's own; nil: none.
    var keys: KeyboardMap? {
        guard var map = keyboardMap else { return scaleKeyboardMap }
        if let keyboardRule { map.rule = keyboardRule }
        return map
    }

    /// The settings the instrument assembly builds from (`BendInstrument`).
    var settings: SoundSettings {
        var s = SoundSettings()
        s.tone = tone
        s.rate = rate
        s.voices = voices
        s.interpolation = interpolation
        s.limiter = limiter
        s.gain = Float(pow(10, gainDB / 20))
        s.toneNote = toneNote
        s.choosePitch(scale: scale, scaleRootHz: scaleRootHz, keyboardMap: keys, exponential: exponential,
                      octaves: octaves, roundMode: roundMode, roundRate: roundRate)
        s.attackSeconds = attackSeconds
        s.decaySeconds = decaySeconds
        s.sustainLevel = pow(10, sustainDB / 20)
        s.releaseSeconds = releaseSeconds
        s.loopCrossfadeSeconds = loopCrossfadeSeconds
        s.effects = effects.settings
        s.tempo = tempo.bpm
        s.tempoSource = tempo.source
        s.arpeggiator = tempo.arpeggiator
        if filter || resonanceGiven || yMap == .cutoff {
            s.filter = FilterSettings(q: resonance, padYIsTimbre: yMap == .cutoff)
        }
        return s
    }
}
