// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl

/// Where the terminal pad's letter keys play: each key a note of the active scale
/// (chromatic on the tone's pitch without `--scale`), each row a register, every key at
/// one loudness. A key plays its pitch as a ratio (`ControlEvent.pitched`), so it is in
/// tune whatever the pad's map and range, and is never rounded; the pad shows it at the
/// x of that pitch (at the edge when it lies beyond).
///
/// Two layouts, by the scale's size:
/// * **12 steps a period**: the DAWs' "musical typing" (Ableton Live, Bitwig, Ardour's
///   keyboard): the middle row `a s d f g h j k l` plays the white keys C D E F G A B C D
///   of the octave holding the root, the top row `w e t y u o p` the black keys C# D#
///   F# G# A# C# D# between them (`r` and `i` sit over no black key and play nothing),
///   the bottom row `z x c v b n m` the white keys C…B an octave below. "C" is the step
///   that many below the root's pitch class (its nearest 12-TET note), so with A4 = 440
///   and the default tone (A4) `a` is C4, `h` A4, `z` C3; a 12-note Scala scale plays its
///   own degrees on those keys.
/// * **Any other size** (major, pentatonic, edo:19, …): the middle row plays the steps
///   0…8 from the root (`a` the root), the top row `w…p` the same nine a period higher,
///   the bottom row `z…m` seven steps from the root a period lower.
/// `q` quits and plays nothing.
public struct KeyLayout: Sendable, Equatable {
    /// One letter key's note.
    public struct Key: Sendable, Equatable {
        /// Its pitch ratio to the tone's pitch.
        public var ratio: Double
        /// Where the pad shows it (the pitch map's x for `ratio`, clamped to the pad).
        public var x: Double
    }

    /// Every key's gain and y (−1.9 dB: room above for the pad's top edge).
    public static let gain = 0.8

    /// Keys a…z (nil: the key plays nothing).
    public let keys: [Key?]

    /// The key of `letter` (lowercase a…z), nil for one that plays nothing.
    public func key(_ letter: Unicode.Scalar) -> Key? {
        let index = Int(letter.value) &- 0x61
        return index >= 0 && index < 26 ? keys[index] : nil
    }

    /// The layout of `tuning`'s scale at its root, shown through `pitchMap`.
    public init(tuning: Tuning, pitchMap: PitchMap) {
        let steps = tuning.scale.degrees.count == 12 ? Self.pianoSteps(rootNote: tuning.rootNote) : Self.registerSteps(perPeriod: tuning.scale.degrees.count)
        keys = (0..<26).map { i in
            guard let step = steps[i] else { return nil }
            let ratio = tuning.ratio(cents: tuning.scale.cents(ofStep: step))
            return Key(ratio: ratio, x: pitchMap.x(ratio: ratio))
        }
    }

    /// The layout before the reader is given the active scale's: chromatic on A4 (the
    /// default tone's pitch) on the default pad (`SoundDefaults`).
    public static let standard = KeyLayout(toneNote: 69, pitchMap: .exponential(octaves: SoundDefaults.octaves))

    /// The chromatic scale on the tone's pitch (`toneNote`): the layout without `--scale`.
    public init(toneNote: Double, pitchMap: PitchMap) {
        self.init(tuning: Tuning(scale: Scale.builtIn("chromatic")!, toneNote: toneNote), pitchMap: pitchMap)
    }

    /// Each playing key's semitones above the root octave's C (white and black keys as on
    /// a piano).
    static let pianoSemitones: [Unicode.Scalar: Int] = {
        var keys: [Unicode.Scalar: Int] = [:]
        for (letter, semitone) in zip("asdfghjkl".unicodeScalars, [0, 2, 4, 5, 7, 9, 11, 12, 14]) { keys[letter] = semitone }
        for (letter, semitone) in zip("wetyuop".unicodeScalars, [1, 3, 6, 8, 10, 13, 15]) { keys[letter] = semitone }
        for (letter, semitone) in zip("zxcvbnm".unicodeScalars, [0, 2, 4, 5, 7, 9, 11]) { keys[letter] = semitone - 12 }
        return keys
    }()

    /// The step of each key a…z in the piano layout for a root at MIDI note `rootNote`.
    static func pianoSteps(rootNote: Double) -> [Int?] {
        let rounded = rootNote.isFinite ? Int(rootNote.rounded()) : 69
        let pitchClass = ((rounded % 12) + 12) % 12
        return (0..<26).map { i in pianoSemitones[Unicode.Scalar(UInt8(0x61 + i))].map { $0 - pitchClass } }
    }

    /// The step of each key a…z in the register layout of a scale of `n` steps a period.
    static func registerSteps(perPeriod n: Int) -> [Int?] {
        var steps = [Int?](repeating: nil, count: 26)
        for (column, letter) in "asdfghjkl".unicodeScalars.enumerated() { steps[Int(letter.value) - 0x61] = column }
        for (column, letter) in "wertyuiop".unicodeScalars.enumerated() { steps[Int(letter.value) - 0x61] = n + column }
        for (column, letter) in "zxcvbnm".unicodeScalars.enumerated() { steps[Int(letter.value) - 0x61] = column - n }
        return steps
    }
}
