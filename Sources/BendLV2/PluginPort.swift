// SPDX-License-Identifier: GPL-3.0-or-later
/// The plugin's ports, by `lv2:index`: bendsynth.ttl lists the same indices, symbols and
/// ranges (LV2PluginTests reads them back through lilv and compares). Computed, so the
/// render thread reads them without a global's lazy initialisation.
enum PluginPort {
    /// atom:Sequence in: MIDI/MPE (midi:MidiEvent) and patch:Set of the tone and scale
    /// files (lv2:designation lv2:control).
    static var eventsIn: Int { @_noLocks @inline(__always) get { 0 } }
    /// atom:Sequence out: MIDI/MPE of every touch the plugin plays, and patch:Set of the
    /// files it uses now.
    static var eventsOut: Int { @_noLocks @inline(__always) get { 1 } }
    /// Audio out, left and right.
    static var left: Int { @_noLocks @inline(__always) get { 2 } }
    static var right: Int { @_noLocks @inline(__always) get { 3 } }
    /// Control out: the output's lag behind the input, frames (the limiter's look-ahead;
    /// lv2:reportsLatency).
    static var latency: Int { @_noLocks @inline(__always) get { 4 } }
    /// Control in: master gain, dB (−60…+24; −60 is silence), before the limiter.
    static var gain: Int { @_noLocks @inline(__always) get { 5 } }
    /// Control in: the mix bus limiter, 0 off / 1 on.
    static var limiter: Int { @_noLocks @inline(__always) get { 6 } }
    /// Control in: interpolation, 0 band-limited, 1 cubic, 2 linear.
    static var interpolation: Int { @_noLocks @inline(__always) get { 7 } }
    /// Control in: pitch bend range of a channel outside an MPE zone, semitones (0…96).
    static var bendRange: Int { @_noLocks @inline(__always) get { 8 } }
    /// Control in: MIDI note of the tone's pitch (0…127; 69 = A4).
    static var toneNote: Int { @_noLocks @inline(__always) get { 9 } }
    /// Control in: the pad's x → pitch, 0 linear / 1 exponential.
    static var pitchMap: Int { @_noLocks @inline(__always) get { 10 } }
    /// Control in: octaves across the pad of the exponential map (0.1…8).
    static var octaves: Int { @_noLocks @inline(__always) get { 11 } }
    /// Control in: the scale's root, Hz; 0: the tone's pitch.
    static var scaleRoot: Int { @_noLocks @inline(__always) get { 12 } }
    /// Control in: rounding of pad touches, 0 off / 1 initial / 2 hold.
    static var round: Int { @_noLocks @inline(__always) get { 13 } }
    /// Control in: the time `hold` takes to draw a resting touch onto its step, ms (1…2000).
    static var roundRate: Int { @_noLocks @inline(__always) get { 14 } }
    /// Control in: the phone pad's web server, 0 off / 1 on.
    static var web: Int { @_noLocks @inline(__always) get { 15 } }
    /// Control in: polyphony, voices at once (1…`maximumVoices`, default 64): the mixer
    /// is allocated for the maximum, the port sets its voice limit.
    static var voices: Int { @_noLocks @inline(__always) get { 16 } }
    /// The send effects (`SendEffects`).
    /// Control in: the voices' default reverb send (0…1).
    static var reverbSend: Int { @_noLocks @inline(__always) get { 17 } }
    /// Control in: the reverb's RT60, seconds (0.2…20).
    static var reverbDecay: Int { @_noLocks @inline(__always) get { 18 } }
    /// Control in: the reverb's width (0…1).
    static var reverbWidth: Int { @_noLocks @inline(__always) get { 19 } }
    /// Control in: the voices' default delay send (0…1).
    static var delaySend: Int { @_noLocks @inline(__always) get { 20 } }
    /// Control in: the delay's time, ms (1…4000).
    static var delayTime: Int { @_noLocks @inline(__always) get { 21 } }
    /// Control in: the delay's feedback (0…0.98).
    static var delayFeedback: Int { @_noLocks @inline(__always) get { 22 } }
    /// Control in: the voices' default chorus send (0…1).
    static var chorusSend: Int { @_noLocks @inline(__always) get { 23 } }

    /// The arpeggiator (`ArpSettings`; docs/TEMPO.md), on the host's tempo (time:Position).
    /// Control in: the pattern, 0 off, 1 up, 2 down, 3 up-down, 4 random, 5 as played.
    static var arp: Int { @_noLocks @inline(__always) get { 24 } }
    /// Control in: the step, 0 1/4, 1 1/8, 2 1/8 dotted, 3 1/8 triplet, 4 1/16, 5 1/16
    /// triplet, 6 1/32 (`arpRates`).
    static var arpRate: Int { @_noLocks @inline(__always) get { 25 } }
    /// Control in: octaves the arpeggio spans (1…4).
    static var arpOctaves: Int { @_noLocks @inline(__always) get { 26 } }
    /// Control in: each note's length, a fraction of its step (0.05…1).
    static var arpGate: Int { @_noLocks @inline(__always) get { 27 } }
    /// Control in: swing (0…1: every second step late by half that of a step).
    static var arpSwing: Int { @_noLocks @inline(__always) get { 28 } }
    /// Control in: latch, 0 off / 1 on.
    static var arpLatch: Int { @_noLocks @inline(__always) get { 29 } }
    /// Control in: the delay's time as a note value of the host's tempo, 0 off (the
    /// `delayTime` port's milliseconds), 1 1/4, 2 1/8 dotted, 3 1/8, 4 1/8 triplet,
    /// 5 1/16, 6 1/4 dotted, 7 1/2 (`delayNoteBeats`).
    static var delaySync: Int { @_noLocks @inline(__always) get { 30 } }

    /// The `arpRate` port's steps: (1/division, dotted, triplet).
    @_noLocks
    static func arpRate(_ index: Int) -> (division: Int, dotted: Bool, triplet: Bool) {
        switch index {
        case 0: (4, false, false)
        case 1: (8, false, false)
        case 2: (8, true, false)
        case 3: (8, false, true)
        case 5: (16, false, true)
        case 6: (32, false, false)
        default: (16, false, false)
        }
    }

    /// The `delaySync` port's note values in quarter notes (0: off).
    @_noLocks
    static func delayNoteBeats(_ index: Int) -> Double {
        switch index {
        case 1: 1
        case 2: 0.75
        case 3: 0.5
        case 4: 1.0 / 3
        case 5: 0.25
        case 6: 1.5
        case 7: 2
        default: 0
        }
    }

    /// Ports in all.
    static var count: Int { @_noLocks get { 31 } }
    /// The `voices` port's maximum (bendsynth.ttl's lv2:maximum): the voices allocated.
    static var maximumVoices: Int { @_noLocks get { 1024 } }
}
