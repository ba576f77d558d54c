/// What `MIDIInterpreter` keeps of one channel.
struct ChannelState: Sendable {
    /// Pitch bend, −8192…+8191.
    var bend = 0
    /// Bend range, semitones (RPN 0).
    var bendRange = 2.0
    /// Channel fine tuning (RPN 1), the 14-bit value: 8192 = 0, ±100 cents.
    var fineTuning = 8192
    /// Channel coarse tuning (RPN 2), semitones, −64…+63.
    var coarseSemitones = 0
    /// Scale/octave tuning (MTS, GS scale tune) of each pitch class C…B, cents from 12-TET.
    var keyCents = [Double](repeating: 0, count: 12)
    /// The selected RPN (CC 101, CC 100); (127, 127) = none.
    var rpn: (msb: Int, lsb: Int) = (127, 127)
    /// The latest CC 74, 0…1; nil before the first.
    var timbre: Double?
    /// CC 64 ≥ 64: the pedal is down.
    var sustain = false

    /// Bend in semitones.
    var bendSemitones: Double { Double(bend) / 8192 * bendRange }

    /// RPN 1 and 2 together, semitones.
    var tuningSemitones: Double { Double(coarseSemitones) + Double(fineTuning - 8192) / 8192 }

    /// The state after reset-all-controllers (CC 121): bend, pressure, CC 74 and the
    /// pedal back to rest; the bend range and the tunings kept (they are RPN values,
    /// which GM2's reset-all-controllers leaves alone).
    var afterResetAllControllers: ChannelState {
        var c = ChannelState()
        c.bendRange = bendRange
        c.fineTuning = fineTuning
        c.coarseSemitones = coarseSemitones
        c.keyCents = keyCents
        return c
    }
}

/// A note that sounds.
struct HeldNote: Sendable {
    var channel: Int
    var note: Int
    var id: UInt32
    /// velocity/127.
    var velocity: Double
    /// pressure/127 of the latest pressure message since the note-on.
    var pressure: Double?
    /// Its pitch class's scale/octave tuning, cents: the channel's when the note began,
    /// changed later only by a real-time retuning (MTS 7F, GS).
    var keyCents = 0.0
}
