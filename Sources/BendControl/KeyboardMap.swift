// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// A Scala keyboard mapping (`.kbm`): which scale step each MIDI key plays, and the
/// pitch that fixes the scale in Hz, as the Scala format defines it
/// (huygens-fokker.org/scala/help.htm#mappings) and synthesizers with a tuning library
/// read it (Surge's tuning-library: a blank line or a stray character where a number
/// belongs, or fewer entries than the map's size, is an error; lines after the last
/// entry are ignored):
///
///     ! white keys: a 7-note scale on C D E F G A B      ← '!' lines are comments
///     12         ← map size: the pattern repeats every so many keys (0: linear, no entries)
///     0          ← first MIDI key retuned     (keys outside first…last play nothing)
///     127        ← last MIDI key retuned
///     60         ← middle key: the first entry is for it (scale degree 0 when mapped so)
///     60         ← reference key, whose frequency follows
///     261.625565 ← the reference key's frequency, Hz
///     7          ← formal octave: the scale degree one pattern spans
///     0          ← the entries: the scale degree of the middle key, of the next key up, …
///     x          ← 'x': the key is not mapped (plays nothing)
///     ...
///
/// Entries name degrees as the scale file lists them (`Scale.listed`, in file order).
/// How the patterns repeat is the map's `rule`: Surge XT's tuning-library's by default
/// (what it computes and its tests assert, so a file sounds as in the synthesizers built
/// on it), or Scala's literal one (`Rule`). The reference key sounds at the reference
/// frequency and every other key at its step's interval from the reference's step
/// (`referenceStep`). A pure function of the bytes, fuzzed in the tests.
public struct KeyboardMap: Sendable, Equatable {
    /// How the patterns of a map repeat: they differ only for a map whose formal octave
    /// is neither its size nor its scale's size (or 0), or whose entries reach past the
    /// scale's period, or (unequal scales only) whose reference key is not in the middle
    /// key's pattern.
    public enum Rule: String, Sendable, CaseIterable {
        /// Surge XT's tuning-library (`Tunings::Tuning`): the pattern holding the
        /// reference key is pattern 0 (the middle key moved by whole patterns to it).
        /// Entries past the scale's size make the scale w = ⌈largest entry / n⌉ periods
        /// long and the formal octave F w times as many degrees (0: w·n). Then a formal
        /// octave of 0 or of the map's size s: key k plays step `entry + p·s` (p the
        /// pattern); any other F: each pattern rises by w periods, step
        /// `entry + p·w·n`, and an entry 0 stands for degree F a pattern down (step
        /// `F − w·n + p·w·n`). The reference's frequency belongs to its entry's degree
        /// in pattern 0, as written (0: the root).
        case tuningLibrary = "tuning-library"
        /// The Scala format read literally: key k plays step `entry + p·F` (F 0: the
        /// scale's size), patterns counted from the middle key; the reference's frequency
        /// belongs to the step its key plays.
        case scala
    }

    /// Keys in one pattern; 0: linear (each key the next step).
    public let size: Int
    /// MIDI keys retuned, 0…127: `firstKey…lastKey`.
    public let firstKey: Int
    public let lastKey: Int
    /// The key of the pattern's first entry (scale degree 0 for a linear map), 0…127.
    public let middleKey: Int
    /// The key whose frequency is given, 0…127.
    public let referenceKey: Int
    /// The reference key's frequency, Hz, > 0.
    public let referenceHz: Double
    /// The scale degree one pattern spans, as the file gives it (0 included; `Rule`
    /// says how each rule reads it).
    public let formalOctave: Int
    /// The scale degree of each key of the pattern (`size` entries); nil: not mapped.
    public let mapping: [Int?]
    /// How the patterns repeat (`--kbm-rule`); the tuning library's by default.
    public var rule: Rule

    /// A linear map over every key: `middleKey` plays the scale's root, `referenceKey`
    /// sounds at `referenceHz`.
    public static func linear(middleKey: Int, referenceKey: Int, referenceHz: Double) -> KeyboardMap {
        KeyboardMap(size: 0, firstKey: 0, lastKey: 127, middleKey: middleKey, referenceKey: referenceKey,
                    referenceHz: referenceHz, formalOctave: 0, mapping: [])
    }

    /// A map from its fields (as a `.kbm` lists them); `mapping` has `size` entries.
    public init(size: Int, firstKey: Int, lastKey: Int, middleKey: Int, referenceKey: Int, referenceHz: Double,
                formalOctave: Int, mapping: [Int?], rule: Rule = .tuningLibrary) {
        precondition(mapping.count == size && firstKey <= lastKey && referenceHz > 0)
        self.size = size
        self.firstKey = firstKey
        self.lastKey = lastKey
        self.middleKey = middleKey
        self.referenceKey = referenceKey
        self.referenceHz = referenceHz
        self.formalOctave = formalOctave
        self.mapping = mapping
        self.rule = rule
    }

    /// The key the patterns are counted from: the middle key, or (tuning-library rule)
    /// the key a whole number of patterns from it whose pattern holds the reference key.
    var patternOrigin: Int {
        guard rule == .tuningLibrary, size > 0 else { return middleKey }
        return middleKey + size * Self.floorDivide(referenceKey - middleKey, size)
    }

    /// `key`'s pattern (0: the origin's) and entry (0…size−1).
    func place(ofKey key: Int) -> (pattern: Int, entry: Int) {
        let offset = key - patternOrigin
        let pattern = Self.floorDivide(offset, size)
        return (pattern, offset - pattern * size)
    }

    /// The step of a scale of `scaleSize` listed degrees (`Scale.cents(ofListedStep:)`)
    /// that `key` plays, or nil when it plays nothing (outside first…last, or an `x`
    /// entry). `inRange` false: the pattern's step even outside first…last.
    public func step(ofKey key: Int, scaleSize n: Int, inRange: Bool = true) -> Int? {
        guard !inRange || (firstKey...lastKey).contains(key) else { return nil }
        guard size > 0 else { return key - middleKey }
        let (pattern, entry) = place(ofKey: key)
        guard let degree = mapping[entry] else { return nil }
        switch rule {
        case .scala:
            return degree + pattern * (formalOctave == 0 ? n : formalOctave)
        case .tuningLibrary:
            let (periods, octave) = unwrapped(scaleSize: n)
            if octave == 0 || octave == size { return degree + pattern * size }
            return (degree == 0 ? octave - periods * n : degree) + pattern * periods * n
        }
    }

    /// The tuning library's reading of the scale's length and the formal octave: the
    /// periods w the entries reach (⌈largest entry / n⌉, at least 1) and the formal
    /// octave in degrees of those w periods (F·w; 0 stays 0 when w is 1, else w·n).
    func unwrapped(scaleSize n: Int) -> (periods: Int, octave: Int) {
        let largest = mapping.reduce(0) { max($0, $1 ?? 0) }
        let periods = max(1, (largest + n - 1) / n)
        guard periods > 1 else { return (1, formalOctave) }
        return (periods, formalOctave == 0 ? periods * n : formalOctave * periods)
    }

    /// The step whose pitch the reference frequency is (nil only for an unmapped
    /// reference, which parsing refuses): the step the reference key plays (Scala), or
    /// its entry's degree as written (tuning library).
    public func referenceStep(scaleSize n: Int) -> Int? {
        guard rule == .tuningLibrary, size > 0 else { return step(ofKey: referenceKey, scaleSize: n, inRange: false) }
        return mapping[place(ofKey: referenceKey).entry]
    }

    /// The frequency of `scale`'s root (step 0), Hz: the reference frequency moved down
    /// by the reference's step.
    public func rootHz(scale: Scale) -> Double {
        let reference = referenceStep(scaleSize: scale.listed.count) ?? 0
        return referenceHz * pow(2, -scale.cents(ofListedStep: reference) / 1200)
    }

    /// The frequency of every MIDI key 0…127 through `scale`, Hz; nil for a key that
    /// plays nothing. The reference key sounds at the reference frequency, each other
    /// key at its step's interval from the reference's step (finite cents: never NaN; a
    /// step far beyond hearing gives 0 or infinity, which the port clamps).
    public func frequencies(scale: Scale) -> [Double?] {
        let n = scale.listed.count
        let reference = scale.cents(ofListedStep: referenceStep(scaleSize: n) ?? 0)
        return (0...127).map { key in
            guard let step = step(ofKey: key, scaleSize: n) else { return nil }
            guard key != referenceKey else { return referenceHz }
            return referenceHz * pow(2, (scale.cents(ofListedStep: step) - reference) / 1200)
        }
    }

    /// ⌊a / b⌋ for b > 0.
    static func floorDivide(_ a: Int, _ b: Int) -> Int { a >= 0 ? a / b : -((-a + b - 1) / b) }
}
