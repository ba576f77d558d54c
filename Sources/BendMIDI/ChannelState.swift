// SPDX-License-Identifier: GPL-3.0-or-later
/// What `MIDIInterpreter` keeps of one channel: a plain value, inline (its pitch
/// classes' tuning too), so the interpreter's state needs no heap.
struct ChannelState: Sendable {
    /// Pitch bend, −8192…+8191.
    var bend = 0
    /// Bend range, semitones (RPN 0, an MCM's default, or the interpreter's default).
    var bendRange = 2.0
    /// The bend range was set by RPN 0 or an MCM (the interpreter's default no longer
    /// applies).
    var bendRangeSet = false
    /// Channel fine tuning (RPN 1), the 14-bit value: 8192 = 0, ±100 cents.
    var fineTuning = 8192
    /// Channel coarse tuning (RPN 2), semitones, −64…+63.
    var coarseSemitones = 0
    /// Scale/octave tuning (MTS, GS scale tune) of each pitch class C…B, cents from 12-TET.
    var keyCents = KeyCents()
    /// The selected RPN (CC 101, CC 100); (127, 127) = none.
    var rpn: (msb: Int, lsb: Int) = (127, 127)
    /// The latest CC 74, 0…1; nil before the first.
    var timbre: Double?
    /// CC 64 ≥ 64: the pedal is down.
    var sustain = false
    /// The latest CC 91 (reverb send) and CC 93 (chorus send), 0…1; nil before the first
    /// (the instrument's default send).
    var reverbSend: Double?
    var chorusSend: Double?

    @_noLocks
    init() {}

    /// Bend in semitones.
    var bendSemitones: Double { @_noLocks get { Double(bend) / 8192 * bendRange } }

    /// RPN 1 and 2 together, semitones.
    var tuningSemitones: Double { @_noLocks get { Double(coarseSemitones) + Double(fineTuning - 8192) / 8192 } }

    /// The state after reset-all-controllers (CC 121): bend, pressure, CC 74 and the
    /// pedal back to rest; the bend range and the tunings kept (they are RPN values,
    /// which GM2's reset-all-controllers leaves alone).
    var afterResetAllControllers: ChannelState {
        @_noLocks get {
            var c = ChannelState()
            c.bendRange = bendRange
            c.bendRangeSet = bendRangeSet
            c.fineTuning = fineTuning
            c.coarseSemitones = coarseSemitones
            c.keyCents = keyCents
            // Effect depths are not controllers reset-all-controllers resets (RP-015).
            c.reverbSend = reverbSend
            c.chorusSend = chorusSend
            return c
        }
    }
}

/// A note that sounds (a plain value: the interpreter keeps them inline).
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

    @_noLocks
    init(channel: Int, note: Int, id: UInt32, velocity: Double, pressure: Double? = nil, keyCents: Double = 0) {
        self.channel = channel
        self.note = note
        self.id = id
        self.velocity = velocity
        self.pressure = pressure
        self.keyCents = keyCents
    }
}

/// Cents from 12-TET of each pitch class C…B (a scale/octave tuning), inline.
public struct KeyCents: Sendable, Equatable, ExpressibleByArrayLiteral {
    private var cents = InlineArray<12, Double>(repeating: 0)

    @_noLocks
    public init() {}

    /// The first 12 values of `values` (0 for the rest).
    public init(_ values: [Double]) {
        for i in 0..<min(12, values.count) { cents[i] = values[i] }
    }

    public init(arrayLiteral values: Double...) { self.init(values) }

    /// Pitch class `i`'s cents, 0…11.
    public subscript(i: Int) -> Double {
        @_noLocks get { cents[i] }
        @_noLocks set { cents[i] = newValue }
    }

    /// `values`' cents for the pitch classes whose bits are set in `keys` (bit 0 = C), the
    /// others kept (a GS scale tune of some notes).
    @_noLocks
    mutating func set(_ values: KeyCents, keys: UInt16) {
        var k = 0
        while k < 12 { if keys & (1 << k) != 0 { cents[k] = values[k] }; k += 1 }
    }

    public static func == (a: KeyCents, b: KeyCents) -> Bool { (0..<12).allSatisfy { a[$0] == b[$0] } }
}
