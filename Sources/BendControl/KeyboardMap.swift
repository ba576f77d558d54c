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
///     7          ← map size: the pattern repeats every so many keys (0: linear, no entries)
///     0          ← first MIDI key retuned     (keys outside first…last play nothing)
///     127        ← last MIDI key retuned
///     60         ← middle key: the first entry is for it (scale degree 0 when mapped so)
///     69         ← reference key, whose frequency follows
///     440.0      ← the reference key's frequency, Hz
///     7          ← formal octave: the scale degree one pattern spans (0: the scale's size)
///     0          ← the entries: the scale degree of the middle key, of the next key up, …
///     x          ← 'x': the key is not mapped (plays nothing)
///     ...
///
/// Key k plays step `mapping[(k − middle) mod size] + ⌊(k − middle)/size⌋ · octave` of the
/// scale (`Scale.cents(ofStep:)`: degrees past the scale's size reach into the next
/// periods), or step k − middle for a linear map; the reference key sounds at the
/// reference frequency and every other key at its step's interval from it. A pure
/// function of the bytes, fuzzed in the tests.
public struct KeyboardMap: Sendable, Equatable {
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
    /// The scale degree one pattern spans; 0: the scale's own size (one period).
    public let formalOctave: Int
    /// The scale degree of each key of the pattern (`size` entries); nil: not mapped.
    public let mapping: [Int?]

    /// A linear map over every key: `middleKey` plays the scale's root, `referenceKey`
    /// sounds at `referenceHz`.
    public static func linear(middleKey: Int, referenceKey: Int, referenceHz: Double) -> KeyboardMap {
        KeyboardMap(size: 0, firstKey: 0, lastKey: 127, middleKey: middleKey, referenceKey: referenceKey,
                    referenceHz: referenceHz, formalOctave: 0, mapping: [])
    }

    /// A map from its fields (as a `.kbm` lists them); `mapping` has `size` entries.
    public init(size: Int, firstKey: Int, lastKey: Int, middleKey: Int, referenceKey: Int, referenceHz: Double,
                formalOctave: Int, mapping: [Int?]) {
        precondition(mapping.count == size && firstKey <= lastKey && referenceHz > 0)
        self.size = size
        self.firstKey = firstKey
        self.lastKey = lastKey
        self.middleKey = middleKey
        self.referenceKey = referenceKey
        self.referenceHz = referenceHz
        self.formalOctave = formalOctave
        self.mapping = mapping
    }

    /// The step of `scale` that `key` plays, or nil when it plays nothing (outside
    /// first…last, or an `x` entry). `inRange` false: the pattern's step even outside
    /// first…last (for the reference key).
    public func step(ofKey key: Int, scaleSize: Int, inRange: Bool = true) -> Int? {
        guard !inRange || (firstKey...lastKey).contains(key) else { return nil }
        let offset = key - middleKey
        guard size > 0 else { return offset }
        let pattern = offset >= 0 ? offset / size : -((-offset + size - 1) / size)
        guard let degree = mapping[offset - pattern * size] else { return nil }
        return degree + pattern * (formalOctave == 0 ? scaleSize : formalOctave)
    }

    /// The frequency of `scale`'s root (step 0), Hz: the reference frequency moved down
    /// by the reference key's step.
    public func rootHz(scale: Scale) -> Double {
        let reference = step(ofKey: referenceKey, scaleSize: scale.degrees.count, inRange: false) ?? 0
        return referenceHz * pow(2, -scale.cents(ofStep: reference) / 1200)
    }

    /// The frequency of every MIDI key 0…127 through `scale`, Hz; nil for a key that
    /// plays nothing. Each is the reference frequency moved by the key's interval from
    /// the reference key (finite cents: never NaN; a step far beyond hearing gives 0 or
    /// infinity, which the port clamps).
    public func frequencies(scale: Scale) -> [Double?] {
        let n = scale.degrees.count
        let reference = scale.cents(ofStep: step(ofKey: referenceKey, scaleSize: n, inRange: false) ?? 0)
        return (0...127).map { key in
            step(ofKey: key, scaleSize: n).map { referenceHz * pow(2, (scale.cents(ofStep: $0) - reference) / 1200) }
        }
    }
}

extension KeyboardMap {
    /// Most keys a pattern may hold.
    public static let maximumSize = 2048

    /// The keyboard mapping in `bytes`; `path` names the file in errors.
    /// - Throws: `ScalaFileError` naming the line and what was expected there: a blank
    ///   or garbled line where a number belongs, a value out of range, fewer entries than
    ///   the map's size, an unmapped reference key.
    public static func parse(_ bytes: [UInt8], path: String) throws(ScalaFileError) -> KeyboardMap {
        var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { line -> ArraySlice<UInt8> in
            line.last == UInt8(ascii: "\r") ? line.dropLast() : line
        }
        if bytes.isEmpty || bytes.last == UInt8(ascii: "\n") { lines.removeLast() }
        let fields = ["the map size (keys in the pattern, 0…\(maximumSize); 0: linear)",
                      "the first MIDI key to retune (0…127)", "the last MIDI key to retune (0…127)",
                      "the middle key, where the first entry is mapped (0…127)",
                      "the reference key, whose frequency follows (0…127)",
                      "the reference frequency in Hz (a number above 0, e.g. 440.0)",
                      "the formal octave (the scale degree a pattern spans, 0…\(ScalaFile.maximumPitches); 0: the scale's size)"]
        var values: [Double] = []
        var mapping: [Int?] = []
        var referenceEntryLine = 0
        var number = 0
        func fail(_ expected: String, _ line: ArraySlice<UInt8>) -> ScalaFileError {
            ScalaFileError(path: path, line: number, expected: expected, found: ScalaFile.firstToken(line).isEmpty ? "a blank line" : ScalaFile.shown(line))
        }
        for line in lines {
            number += 1
            if line.first == UInt8(ascii: "!") { continue }
            let token = ScalaFile.firstToken(line)
            if values.count < fields.count {
                let what = fields[values.count]
                let value: Double?
                if values.count == 5 {
                    value = decimal(token).flatMap { $0 > 0 && $0 <= 1_000_000 ? $0 : nil }
                } else {
                    let limit = values.count == 0 ? Double(maximumSize) : values.count == 6 ? Double(ScalaFile.maximumPitches) : 127
                    value = ScalaFile.wholeNumber(token).flatMap { $0 <= limit ? $0 : nil }
                }
                guard let value else { throw fail(what, line) }
                if values.count == 2 && value < values[1] {
                    throw fail("the last MIDI key to retune, at or above the first (\(Int(values[1])))", line)
                }
                values.append(value)
                continue
            }
            let size = Int(values[0])
            guard mapping.count < size else { break }  // lines after the last entry: ignored
            let what = "entry \(mapping.count + 1) of \(size) (a scale degree 0…\(ScalaFile.maximumPitches), or x for a key not mapped)"
            if token.elementsEqual("x".utf8) || token.elementsEqual("X".utf8) {
                mapping.append(nil)
            } else if let degree = ScalaFile.wholeNumber(token), degree <= Double(ScalaFile.maximumPitches) {
                mapping.append(Int(degree))
            } else {
                throw fail(what, line)
            }
            let referenceIndex = ((Int(values[4]) - Int(values[3])) % size + size) % size
            if mapping.count == referenceIndex + 1 { referenceEntryLine = number }
        }
        guard values.count == fields.count else {
            number += 1
            throw ScalaFileError(path: path, line: number, expected: fields[values.count], found: "end of file")
        }
        let size = Int(values[0])
        guard mapping.count == size else {
            number += 1
            throw ScalaFileError(path: path, line: number,
                                 expected: "entry \(mapping.count + 1) of \(size) (the map size asks for \(size); write x for a key not mapped)",
                                 found: "end of file")
        }
        let map = KeyboardMap(size: size, firstKey: Int(values[1]), lastKey: Int(values[2]), middleKey: Int(values[3]),
                              referenceKey: Int(values[4]), referenceHz: values[5], formalOctave: Int(values[6]), mapping: mapping)
        if map.step(ofKey: map.referenceKey, scaleSize: 1, inRange: false) == nil {
            throw ScalaFileError(path: path, line: referenceEntryLine,
                                 expected: "a scale degree for the reference key \(map.referenceKey), whose frequency the map gives",
                                 found: "'x' (not mapped)")
        }
        return map
    }

    /// A decimal number: digits with at most one '.', at least one digit (no sign, no
    /// exponent: a frequency as Scala writes it).
    static func decimal(_ token: ArraySlice<UInt8>) -> Double? {
        let dots = token.filter { $0 == UInt8(ascii: ".") }.count
        guard dots <= 1, token.contains(where: ScalaFile.isDigit),
              token.allSatisfy({ ScalaFile.isDigit($0) || $0 == UInt8(ascii: ".") }) else { return nil }
        return Double(String(decoding: token, as: UTF8.self))
    }
}
