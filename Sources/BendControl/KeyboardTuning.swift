// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// How MIDI keys 0…127 become pitch ratios to the tone's pitch: 12-TET from the tone's
/// note (key `toneNote` is ratio 1), or a scale laid on the keys by a keyboard map
/// (`--scale`, `--kbm`). MIDI in and MIDI files play their notes through it
/// (`MIDIInterpreter`); bends and MIDI tuning messages move a note from its key's pitch
/// in 12-TET semitones.
///
/// A plain value with its 128 keys inline (no heap), so a plugin's render thread reads
/// and replaces it (`ratio(ofKey:)`, `withToneNote` are `@_noLocks`).
public struct KeyboardTuning: Sendable, Equatable {
    /// MIDI note of the tone's pitch in 12-TET (ratio 1), 0…127, fractional for a tone
    /// between keys (its fine tune: 64.02 is 2 cents above E4).
    public let toneNote: Double
    /// True for 12-TET (`ratios` unused).
    private let equal: Bool
    /// Each key's ratio to the tone's pitch, 0 for a key that plays nothing.
    private var ratios = InlineArray<128, Double>(repeating: 0)

    /// 12-TET: key k at ratio 2^((k − toneNote)/12).
    @_noLocks
    public init(toneNote: Double = 69) {
        self.toneNote = min(max(toneNote, 0), 127)
        equal = true
    }

    /// `scale` through `keyboard`: each key at the frequency the map gives it, over the
    /// tone's pitch (`toneNote` in 12-TET at A4 = 440 Hz).
    public init(toneNote: Double, scale: Scale, keyboard: KeyboardMap) {
        self.toneNote = min(max(toneNote, 0), 127)
        equal = false
        let toneHz = KeyboardTuning.hz(ofNote: self.toneNote)
        for (key, hz) in keyboard.frequencies(scale: scale).enumerated() where key < 128 { ratios[key] = hz.map { $0 / toneHz } ?? 0 }
    }

    /// The same keys with the tone's pitch at `note` (a plugin's tone note changed): every
    /// key keeps its frequency, so its ratio scales by 2^((toneNote − note)/12).
    @_noLocks
    public func withToneNote(_ note: Double) -> KeyboardTuning {
        guard !equal else { return KeyboardTuning(toneNote: note) }
        var copy = KeyboardTuning(toneNote: note, keeping: self)
        let exponent = (toneNote - copy.toneNote) / 12
        let factor = _unsafePerformance { pow(2, exponent) }
        var k = 0
        while k < 128 { copy.ratios[k] = ratios[k] * factor; k += 1 }
        return copy
    }

    @_noLocks
    private init(toneNote: Double, keeping other: KeyboardTuning) {
        self.toneNote = min(max(toneNote, 0), 127)
        equal = other.equal
        ratios = other.ratios
    }

    /// `scale` on every key, 12 keys a period (the default without a `.kbm`): the root at
    /// `rootHz` on the key nearest it in 12-TET (the tone's note, rounded, when the root
    /// is the tone's pitch); the key j semitones above it (j = 0…11) plays the step
    /// nearest j/12 of the period — degree j as the file lists it in a 12-note scale —
    /// and 12 keys up is the next period. A scale of more than 12 steps reaches 12 of
    /// them a period so (a linear `.kbm`, map size 0, gives one key a step); a scale of
    /// fewer repeats a step on the keys between (a black key plays its lower neighbour
    /// at a tie).
    public init(toneNote: Double, scale: Scale, rootHz: Double) {
        let key = min(max(Int((69 + 12 * log2(rootHz / 440)).rounded()), 0), 127)
        self.init(toneNote: toneNote, scale: scale, keyboard: KeyboardTuning.twelveKeys(scale: scale, rootKey: key, rootHz: rootHz))
    }

    /// The default map: 12 keys a period from `rootKey` (at `rootHz`), each the step
    /// nearest its 12-TET place in the period (read by Scala's rule: each pattern one
    /// period up, whatever step is nearest).
    public static func twelveKeys(scale: Scale, rootKey: Int, rootHz: Double) -> KeyboardMap {
        let n = scale.listed.count
        let mapping: [Int?] = (0..<12).map { j in n == 12 ? j : scale.nearestListedStep(cents: Double(j) * scale.periodCents / 12) }
        return KeyboardMap(size: 12, firstKey: 0, lastKey: 127, middleKey: rootKey, referenceKey: rootKey,
                           referenceHz: rootHz, formalOctave: n, mapping: mapping, rule: .scala)
    }

    /// The ratio of `key` (0…127) to the tone's pitch; nil when the key plays nothing.
    @_noLocks
    public func ratio(ofKey key: Int) -> Double? {
        if equal {
            // pow (libm): no lock, no allocation.
            let exponent = (Double(key) - toneNote) / 12
            return _unsafePerformance { pow(2, exponent) }
        }
        guard key >= 0 && key <= 127 else { return nil }
        let r = ratios[key]
        return r > 0 ? r : nil
    }

    /// True for plain 12-TET (no scale).
    public var isEqualTemperament: Bool { equal }

    public static func == (a: KeyboardTuning, b: KeyboardTuning) -> Bool {
        a.toneNote == b.toneNote && a.equal == b.equal && (0..<128).allSatisfy { a.ratios[$0] == b.ratios[$0] }
    }

    /// A MIDI note's frequency in 12-TET at A4 = 440 Hz (fractional: between keys).
    public static func hz(ofNote note: Double) -> Double { 440 * pow(2, (note - 69) / 12) }
}
