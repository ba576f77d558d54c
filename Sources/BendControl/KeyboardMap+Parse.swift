// SPDX-License-Identifier: GPL-3.0-or-later

extension KeyboardMap {
    /// Most keys a pattern may hold.
    public static let maximumSize = 2048

    /// The keyboard mapping in `bytes` (with the default rule, the tuning library's);
    /// `path` names the file in errors.
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
                      "the formal octave (the scale degree a pattern spans, 0…\(ScalaFile.maximumPitches))"]
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
        if size > 0 && map.mapping[map.place(ofKey: map.referenceKey).entry] == nil {
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
