// SPDX-License-Identifier: GPL-3.0-or-later
/// An opcode's value read as the SFZ format's types, as sfizz reads them (`Opcode.cpp`):
/// a number is its leading sign and digits (and a fraction for a real), text after them
/// ignored; a key is a number or a note name (a letter a…g in either case, `#` or `b`,
/// an octave: c4 = 60, c#4 = db4 = 61).
enum SFZValue {
    /// The whole number at the start of `text`, or nil when it has none.
    static func integer(_ text: String) -> Int? {
        let b = Array(text.utf8)
        var i = 0
        if i < b.count && (b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-")) { i += 1 }
        let digits = i
        while i < b.count && b[i] >= UInt8(ascii: "0") && b[i] <= UInt8(ascii: "9") && i - digits < 18 { i += 1 }
        guard i > digits else { return nil }
        return Int(String(decoding: b[0..<i], as: UTF8.self))
    }

    /// The real number at the start of `text` (sign, digits, a '.' and digits), or nil.
    static func real(_ text: String) -> Double? {
        let b = Array(text.utf8)
        var i = 0
        if i < b.count && (b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-")) { i += 1 }
        let start = i
        while i < b.count && b[i] >= UInt8(ascii: "0") && b[i] <= UInt8(ascii: "9") { i += 1 }
        var digits = i - start
        if i < b.count && b[i] == UInt8(ascii: ".") {
            i += 1
            let fraction = i
            while i < b.count && b[i] >= UInt8(ascii: "0") && b[i] <= UInt8(ascii: "9") { i += 1 }
            digits += i - fraction
        }
        guard digits > 0, let value = Double(String(decoding: b[0..<i], as: UTF8.self)), value.isFinite else { return nil }
        return value
    }

    /// A MIDI key 0…127: a number or a note name; nil when it is neither or out of range.
    static func key(_ text: String) -> Int? {
        if let n = integer(text) { return (0...127).contains(n) ? n : nil }
        let b = Array(text.utf8)
        guard let first = b.first else { return nil }
        let letter = first | 0x20  // lower case
        let offsets: [UInt8: Int] = [UInt8(ascii: "c"): 0, UInt8(ascii: "d"): 2, UInt8(ascii: "e"): 4, UInt8(ascii: "f"): 5,
                                     UInt8(ascii: "g"): 7, UInt8(ascii: "a"): 9, UInt8(ascii: "b"): 11]
        guard var note = offsets[letter] else { return nil }
        var i = 1
        if i < b.count && b[i] == UInt8(ascii: "#") {
            guard "cdfga".utf8.contains(letter) else { return nil }
            note += 1; i += 1
        } else if i < b.count && b[i] == UInt8(ascii: "b") && i + 1 < b.count && (b[i + 1] == UInt8(ascii: "-") || (b[i + 1] >= UInt8(ascii: "0") && b[i + 1] <= UInt8(ascii: "9"))) {
            guard "degab".utf8.contains(letter) else { return nil }
            note -= 1; i += 1
        }
        guard let octave = integer(String(decoding: b[i...], as: UTF8.self)), i < b.count else { return nil }
        // (Only digits may follow: "c4x" is not a note.)
        let rest = b[i...].drop { $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "+") }.drop { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        guard rest.isEmpty, (-1...10).contains(octave) else { return nil }  // (an octave of 18 digits overflowed: found by make fuzz)
        let key = note + (octave + 1) * 12
        return (0...127).contains(key) ? key : nil
    }
}
