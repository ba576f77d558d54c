// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// An Ableton scale file (`.ascl`): a Scala scale whose `! @ABL` comment lines extend it
/// (Ableton's "ASCL Specification", help.ableton.com), read as Surge XT's tuning-library
/// reads it (`Tunings::readASCLFile`, `Tuning(AbletonScale)`):
///
///     ! @ABL REFERENCE_PITCH 4 9 440.0      ← octave (−2…8), note index (0…n−1), Hz
///
/// Degree `index` of the scale (as listed, 0 the root) sounds at the frequency; without
/// the directive, degree 0 at 261.6256 Hz (middle C; octave 3, Ableton's name for it).
/// The keys play one step each (`keyboardMap`), the step nearest 261.6256 Hz on key 60.
/// The octave only names notes in Ableton (it moves no pitch) and is checked, not used;
/// the other directives (NOTE_NAMES, NOTE_RANGE_BY_FREQUENCY, NOTE_RANGE_BY_INDEX,
/// SOURCE, LINK) are read as comments. A file with directives must be UTF-8, as the
/// specification requires. A pure function of the bytes.
public struct AbletonScale: Sendable, Equatable {
    public var scale: Scale
    /// REFERENCE_PITCH's octave, −2…8 (3 without the directive).
    public var referenceOctave: Int
    /// REFERENCE_PITCH's note index: the listed degree whose frequency is given, 0…n−1.
    public var referenceIndex: Int
    /// REFERENCE_PITCH's frequency, Hz, > 0.
    public var referenceHz: Double
    /// The line of the REFERENCE_PITCH directive (1-based); nil: the file has none.
    public var referenceLine: Int?

    /// Middle C in 12-TET at A4 = 440 Hz: where the reference sits without a directive,
    /// and the pitch whose nearest step goes on key 60.
    public static let middleCHz = 440 * pow(2, -9.0 / 12)

    /// MIDI keys through the scale, one key a step (a map of n keys, entries 0…n−1):
    /// the step nearest 261.6256 Hz (the nearer in Hz of the steps around it, found from
    /// the root outwards as the tuning library walks) on key 60, the reference degree's
    /// key at the reference frequency; keys kept within 0…127.
    public var keyboardMap: KeyboardMap {
        let n = scale.listed.count
        let nearest = stepNearest(hz: Self.middleCHz)
        func key(ofStep p: Int) -> Int { min(max(60 + p - nearest, 0), 127) }
        return KeyboardMap(size: n, firstKey: 0, lastKey: 127, middleKey: key(ofStep: 0), referenceKey: key(ofStep: referenceIndex),
                           referenceHz: referenceHz, formalOctave: n, mapping: Array(0..<n))
    }

    /// The frequency of listed step `p`, Hz.
    public func hz(ofStep p: Int) -> Double {
        referenceHz * pow(2, (scale.cents(ofListedStep: p) - scale.cents(ofListedStep: referenceIndex)) / 1200)
    }

    /// The step nearest `hz`: from step 0 towards it one step at a time until a step
    /// passes it (at most 128 periods' steps), the nearest in Hz of those met (the first
    /// of equals).
    func stepNearest(hz target: Double) -> Int {
        var step = 0, best = 0
        var bestDistance = abs(target - hz(ofStep: 0))
        guard bestDistance > Double.ulpOfOne else { return 0 }
        let direction = target > hz(ofStep: 0) ? 1 : -1
        for _ in 0..<(128 * scale.listed.count) {
            step += direction
            let f = hz(ofStep: step)
            if abs(target - f) < bestDistance { best = step; bestDistance = abs(target - f) }
            if direction > 0 ? f > target : f < target { break }
        }
        return best
    }
}

extension AbletonScale {
    /// The Ableton scale in `bytes`; `path` names the file in errors.
    /// - Throws: `ScalaFileError` naming the line and what was expected there: the
    ///   scale's own (`ScalaFile.parse`), or a REFERENCE_PITCH without its three values
    ///   in range, a second REFERENCE_PITCH, bytes that are not UTF-8 in a file with
    ///   directives.
    public static func parse(_ bytes: [UInt8], path: String) throws(ScalaFileError) -> AbletonScale {
        let scale = try ScalaFile.parse(bytes, path: path)
        var result = AbletonScale(scale: scale, referenceOctave: 3, referenceIndex: 0, referenceHz: middleCHz, referenceLine: nil)
        let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { line -> ArraySlice<UInt8> in
            line.last == UInt8(ascii: "\r") ? line.dropLast() : line
        }
        var directives = false
        for (i, line) in lines.enumerated() where line.first == UInt8(ascii: "!") {
            let words = ScalaFile.tokens(line.dropFirst())
            guard words.first?.elementsEqual("@ABL".utf8) == true else { continue }
            directives = true
            guard words.count > 1, words[1].elementsEqual("REFERENCE_PITCH".utf8) else { continue }
            let number = i + 1
            if let first = result.referenceLine {
                throw ScalaFileError(path: path, line: number, expected: "one REFERENCE_PITCH (the first is on line \(first))",
                                     found: ScalaFile.shown(line))
            }
            try result.readReference(words.dropFirst(2), line: line, number: number, path: path)
        }
        if directives, let bad = lines.firstIndex(where: { String(validating: $0, as: UTF8.self) == nil }) {
            throw ScalaFileError(path: path, line: bad + 1,
                                 expected: "UTF-8 text (a file with @ABL directives must be UTF-8, as Ableton's ASCL specification requires)",
                                 found: "bytes that are not UTF-8")
        }
        return result
    }

    /// REFERENCE_PITCH's three values from `values` (the words after it).
    mutating func readReference(_ values: ArraySlice<ArraySlice<UInt8>>, line: ArraySlice<UInt8>, number: Int,
                                path: String) throws(ScalaFileError) {
        let n = scale.listed.count
        let fields = ["REFERENCE_PITCH's octave (a whole number −2…8)",
                      "REFERENCE_PITCH's note index (the degree whose frequency follows: a whole number 0…\(n - 1), 0 the root)",
                      "REFERENCE_PITCH's frequency in Hz (a number above 0, e.g. 440.0)"]
        func fail(_ field: Int) -> ScalaFileError {
            ScalaFileError(path: path, line: number, expected: fields[field], found: ScalaFile.shown(line))
        }
        let words = Array(values)
        guard words.count >= 1, let octave = Self.integer(words[0]), (-2...8).contains(octave) else { throw fail(0) }
        guard words.count >= 2, let index = ScalaFile.wholeNumber(words[1]), index < Double(n) else { throw fail(1) }
        guard words.count >= 3, let hz = KeyboardMap.decimal(words[2]), hz > 0, hz <= 1_000_000 else { throw fail(2) }
        guard words.count == 3 else {
            throw ScalaFileError(path: path, line: number, expected: "the end of the line after REFERENCE_PITCH's frequency",
                                 found: ScalaFile.shown(line))
        }
        referenceOctave = octave
        referenceIndex = Int(index)
        referenceHz = hz
        referenceLine = number
    }

    /// A whole number with an optional '-' (an octave).
    static func integer(_ token: ArraySlice<UInt8>) -> Int? {
        let negative = token.first == UInt8(ascii: "-")
        guard let value = ScalaFile.wholeNumber(negative ? token.dropFirst() : token), value < 1000 else { return nil }
        return negative ? -Int(value) : Int(value)
    }
}
