// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// A Scala file — a scale (`.scl`, `ScalaFile`) or a keyboard mapping (`.kbm`,
/// `KeyboardMap`) — that does not parse: where, and what was expected there.
public struct ScalaFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file as named on the command line.
    public var path: String
    /// 1-based line number (the line after the last at the end of the file).
    public var line: Int
    /// What the line should have held.
    public var expected: String
    /// What it held (at most 40 characters, control characters as '?'), or "end of file".
    public var found: String

    public var description: String { "\(path):\(line): expected \(expected), got \(found)" }
}

/// Reads Scala `.scl` files as the Scala scale archive writes them
/// (huygens-fokker.org/scala/scl_format.html):
///
///     ! meantone-quarter-comma.scl       ← lines starting with '!' are comments, anywhere
///     !
///     Quarter-comma meantone             ← the description (may be empty)
///      12                                ← the number of pitches that follow
///     !
///      76.04900                          ← a value with a '.': cents
///      5/4  pure major third             ← otherwise a ratio a/b, or a whole number (a/1);
///      ...                                  text after the value is ignored
///      2/1                               ← the last pitch is the period (3/1 for Bohlen–Pierce)
///
/// Lines may end in CR LF; bytes that are not UTF-8 (old Latin-1 descriptions) are
/// kept as U+FFFD in the description. Lines after the last pitch are ignored. A pure
/// function of the bytes: fuzzed in the tests.
public enum ScalaFile {
    /// Most pitches a file may list (the archive's largest scales have a few thousand).
    public static let maximumPitches = 100_000
    /// The largest pitch taken, cents either way (100 octaves).
    public static let maximumCents = 120_000.0

    /// The scale in `bytes`; `path` names the file in errors.
    public static func parse(_ bytes: [UInt8], path: String) throws(ScalaFileError) -> Scale {
        var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { line -> ArraySlice<UInt8> in
            line.last == UInt8(ascii: "\r") ? line.dropLast() : line
        }
        if bytes.isEmpty || bytes.last == UInt8(ascii: "\n") { lines.removeLast() }
        var description: String?
        var count: Int?
        var pitches: [Double] = []
        var number = 0
        for line in lines {
            number += 1
            if line.first == UInt8(ascii: "!") { continue }
            guard let name = description else {
                description = String(decoding: line, as: UTF8.self).trimmingSpaces
                continue
            }
            let token = firstToken(line)
            guard let n = count else {
                guard let value = wholeNumber(token), value >= 1, value <= Double(maximumPitches) else {
                    throw ScalaFileError(path: path, line: number,
                                         expected: "the number of pitches (a whole number, 1…\(maximumPitches)) after the description '\(name.prefix(40))'",
                                         found: shown(line))
                }
                count = Int(value)
                continue
            }
            let index = pitches.count + 1
            let what = "pitch \(index) of \(n)" + (index == n ? " (the period)" : "")
                + ": cents with a '.' (e.g. 701.955), a ratio a/b (e.g. 3/2) or a whole number"
            guard let cents = pitchCents(token) else {
                throw ScalaFileError(path: path, line: number, expected: what, found: shown(line))
            }
            guard cents.isFinite else {
                throw ScalaFileError(path: path, line: number, expected: what + " (a positive ratio of numbers below 10^308)", found: shown(line))
            }
            // Far beyond any instrument, and where a period's cents would swallow its
            // degrees' (found by `make fuzz`: a 7.8·10^105-cent period).
            guard abs(cents) <= maximumCents else {
                throw ScalaFileError(path: path, line: number, expected: what + " (within ±\(Int(maximumCents)) cents, 100 octaves)", found: shown(line))
            }
            if index == n {
                guard cents > 0 else {
                    throw ScalaFileError(path: path, line: number,
                                         expected: "the period (the last pitch) above the root: more than 0 cents, a ratio above 1",
                                         found: shown(line))
                }
                pitches.append(cents)
                return Scale(name: description ?? "", pitches: pitches)!
            }
            pitches.append(cents)
        }
        let expected: String
        if description == nil {
            expected = "a description line (it may be empty), then the number of pitches and the pitches"
        } else if let n = count {
            expected = "pitch \(pitches.count + 1) of \(n)" + (pitches.count + 1 == n ? " (the period)" : "")
        } else {
            expected = "the number of pitches (a whole number)"
        }
        throw ScalaFileError(path: path, line: number + 1, expected: expected, found: "end of file")
    }

    /// The first run of non-blank bytes (blanks: space, tab, vertical tab, form feed).
    static func firstToken(_ line: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let isBlank = { (b: UInt8) in b == 0x20 || b == 0x09 || b == 0x0B || b == 0x0C }
        guard let start = line.firstIndex(where: { !isBlank($0) }) else { return line[line.endIndex...] }
        let end = line[start...].firstIndex(where: isBlank) ?? line.endIndex
        return line[start..<end]
    }

    /// Every run of non-blank bytes, in order.
    static func tokens(_ line: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        var rest = line, words: [ArraySlice<UInt8>] = []
        while true {
            let word = firstToken(rest)
            guard !word.isEmpty else { return words }
            words.append(word)
            rest = rest[word.endIndex...]
        }
    }

    static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }

    /// A run of decimal digits as a number (large values lose precision, never wrap).
    static func wholeNumber(_ token: ArraySlice<UInt8>) -> Double? {
        guard !token.isEmpty, token.allSatisfy(isDigit) else { return nil }
        return token.reduce(0.0) { $0 * 10 + Double($1 - 0x30) }
    }

    /// Cents of one pitch: `[+-]digits.digits` (at least one digit) is cents; `a/b` or
    /// `a` a ratio (digits only). nil when it is neither; infinite or NaN for ratios with
    /// a zero or enormous term, so the caller can say so.
    static func pitchCents(_ token: ArraySlice<UInt8>) -> Double? {
        if token.contains(UInt8(ascii: ".")) {
            var body = token
            var sign = 1.0
            if let first = body.first, first == UInt8(ascii: "-") || first == UInt8(ascii: "+") {
                sign = first == UInt8(ascii: "-") ? -1 : 1
                body = body.dropFirst()
            }
            guard let dot = body.firstIndex(of: UInt8(ascii: ".")) else { return nil }
            let whole = body[..<dot], fraction = body[(dot + 1)...]
            guard whole.count + fraction.count > 0, whole.allSatisfy(isDigit), fraction.allSatisfy(isDigit) else { return nil }
            guard let value = Double(String(decoding: body, as: UTF8.self)) else { return nil }
            return sign * value
        }
        let parts = token.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        guard parts.count == 1 || parts.count == 2, let a = wholeNumber(parts[0]) else { return nil }
        let b = parts.count == 2 ? wholeNumber(parts[1]) : 1
        guard let b else { return nil }
        guard a > 0, b > 0 else { return .nan }
        return 1200 * log2(a / b)
    }

    /// The line for an error message: quoted, at most 40 characters, control
    /// characters as '?'.
    static func shown(_ line: ArraySlice<UInt8>) -> String {
        let text = String(decoding: line, as: UTF8.self)
        var out = ""
        for c in text.unicodeScalars.prefix(40) { out.unicodeScalars.append(c.value < 0x20 || c.value == 0x7F ? "?" : c) }
        return "'" + out + (text.unicodeScalars.count > 40 ? "…" : "") + "'"
    }
}

extension String {
    /// Without leading and trailing spaces and tabs.
    var trimmingSpaces: String {
        let scalars = unicodeScalars
        guard let start = scalars.firstIndex(where: { $0 != " " && $0 != "\t" }) else { return "" }
        let end = scalars.lastIndex(where: { $0 != " " && $0 != "\t" })!
        return String(scalars[start...end])
    }
}
