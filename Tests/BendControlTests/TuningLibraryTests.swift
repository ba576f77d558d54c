// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import Foundation
import XCTest

/// Issue 38, item 8: keys tuned as Surge XT's tuning-library (`Tunings.h`) tunes them, on
/// files made like its tests' (Tests/BendMIDITests/Fixtures/kbm/tuning-library): a
/// white-keys map whose formal octave (7) is neither its size (12) nor its scale's (12),
/// maps that wrap past a 4-note scale, a scale listed out of order, and Ableton `.ascl`
/// reference pitches. Each expected number is the library's own test assertion where it
/// has one (named), else its formula worked out by hand (shown); a line-by-line
/// transcription of its `Tuning` constructor and `readASCLStream` (run apart, not kept
/// here) gives every key 0…127 of every pair below within 1e-9 cents of bendsynth's.
/// Scala's literal rule (`--kbm-rule scala`) gives the numbers the issue measured.
final class TuningLibraryTests: XCTestCase {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../BendMIDITests/Fixtures/kbm").standardized

    func bytes(_ name: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: Self.folder.appendingPathComponent(name))) }
    func map(_ name: String) throws -> KeyboardMap { try KeyboardMap.parse(try bytes(name), path: name) }
    func scale(_ name: String) throws -> Scale { try ScalaFile.parse(try bytes(name), path: name) }
    func ascl(_ name: String) throws -> AbletonScale { try AbletonScale.parse(try bytes("tuning-library/" + name), path: name) }

    /// Asserts each key's frequency within 0.01 cent (nil: silent).
    func assertKeys(_ hz: [Double?], _ want: [Int: Double?], _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        for (key, w) in want.sorted(by: { $0.key < $1.key }) {
            guard let w else {
                XCTAssertNil(hz[key], "\(what): key \(key) plays nothing", file: file, line: line)
                continue
            }
            guard let got = hz[key] else { return XCTFail("\(what): key \(key) silent, wanted \(w) Hz", file: file, line: line) }
            XCTAssertEqual(1200 * log2(got / w), 0, accuracy: 0.01, "\(what): key \(key) at \(got) Hz, wanted \(w)", file: file, line: line)
        }
    }

    /// 12-TET, A4 = 440 Hz, 12 − k semitones down: the 12-TET frequency of key 69 − k.
    func tet(_ key: Int) -> Double { 440 * pow(2, Double(key - 69) / 12) }

    /// The white-keys map (size 12, formal octave 7, entries 0 x 1 x 2 3 x 4 x 5 x 6,
    /// middle key 60, key 69 at 440 Hz) over 12-TET. Each pattern rises by the scale's
    /// period; entry 0 is degree 7 a period down (700 − 1200 = −500 cents); the reference,
    /// entry 5, is degree 5 (500 cents). So key 60 is −1000 cents from A4: 246.94 Hz, the
    /// library's assertion ("Skipped Note and Root", "Tuning from 60 works":
    /// 246.9416506281 ± 0.01); key 62 degree 1 (−400 cents), 64 degree 2, 65 degree 3, 67
    /// degree 4, 71 degree 6, 72 degree 7 (+200). The same map from key 48 ("Tuning from
    /// 48 works") plays the same. Scala's rule: key 60 degree 0, −500 cents, 329.63 Hz.
    func testWhiteKeysFormalOctave7OverTwelveEqual() throws {
        let twelve = try scale("tuning-library/12-intune.scl")
        let white: [Int: Double?] = [48: tet(59 - 12), 57: tet(69 - 12), 58: nil, 59: tet(70 - 12), 60: 246.9416506281, 61: nil,
                                     62: tet(65), 63: nil, 64: tet(66), 65: tet(67), 66: nil, 67: tet(68), 68: nil,
                                     69: 440, 70: nil, 71: tet(70), 72: tet(71), 74: tet(65 + 12), 84: tet(71 + 12)]
        for name in ["whitekeys-a440.kbm", "whitekeys-from-48-a440.kbm"] {
            let m = try map("tuning-library/" + name)
            XCTAssertEqual(m.rule, .tuningLibrary, "the default")
            let hz = m.frequencies(scale: twelve)
            assertKeys(hz, white, name)
            let mapped = (0...127).compactMap { hz[$0] }
            XCTAssertEqual(mapped.count, 75)
            XCTAssertTrue(zip(mapped, mapped.dropFirst()).allSatisfy { $0 < $1 }, "\(name): the mapped keys rise")
            XCTAssertEqual(m.rootHz(scale: twelve), 440 * pow(2, -5.0 / 12), accuracy: 1e-9, "\(name): the root is 500 cents below A4")
        }
        var literal = try map("tuning-library/whitekeys-a440.kbm")
        literal.rule = .scala
        assertKeys(literal.frequencies(scale: twelve), [60: 329.6275569, 69: 440, 72: 440 * pow(2, 2.0 / 12)], "Scala's rule")

        // whitekeys-c261.kbm (middle = reference = 60, 261.625565 Hz) over 12-TET: the
        // library's "KBMs with Gaps": key 60 sounds as 12-TET's 60, 62 as 61, 64 as 62, 65
        // as 63, 67 as 64, 69 as 65, 71 as 66. The reference's entry is 0, its degree 0
        // (the root at 261.63 Hz); other entry-0 keys play degree 7 a period down: key 72
        // is 700 cents (392.00 Hz), 48 is −1700.
        let c261 = try map("whitekeys-c261.kbm")
        let c4 = 261.625565
        assertKeys(c261.frequencies(scale: twelve), [60: c4, 62: tet(61) * c4 / tet(60), 64: tet(62) * c4 / tet(60),
                                                     65: tet(63) * c4 / tet(60), 67: tet(64) * c4 / tet(60), 69: tet(65) * c4 / tet(60),
                                                     71: tet(66) * c4 / tet(60), 72: c4 * pow(2, 7.0 / 12), 48: c4 * pow(2, -17.0 / 12)],
                   "whitekeys-c261 over 12-TET")
    }

    /// Maps of 4, 6, 8 and 12 keys from key 60 = 100 Hz over exact4.scl (5/4 3/2 7/4
    /// 2/1), formal octave 4, entries 0…size−1 (6 keys: 0 1 3 4 5 7): entries past 4 reach
    /// into the next periods, the scale read as that many periods long. The library's
    /// "Wrapped KBMs": key 60 at 100 Hz, each key up to 75 higher than the one before, by
    /// 25 Hz to key 64, 50 to 68, 100 to 72, 200 to 75 (harmonics 4…14 of 25 Hz); "Skipper
    /// Long" (6 keys): keys 60…66 at 100, 125, 175, 200, 250, 350, 400. Scala's rule folds
    /// each back: key 60 + size plays degree 4, 200 Hz, after a higher key.
    func testWrappedMapsRise() throws {
        let exact4 = try scale("exact4.scl")
        var linear: [Int: Double?] = [60: 100]
        var f = 100.0
        for key in 61..<76 {
            f += key <= 64 ? 25 : key <= 68 ? 50 : key <= 72 ? 100 : 200
            linear[key] = f
        }
        let six: [Int: Double?] = [60: 100, 61: 125, 62: 175, 63: 200, 64: 250, 65: 350, 66: 400, 67: 500, 72: 1600, 54: 25]
        for (name, want, size) in [("fournote-c-100.kbm", linear, 4), ("eightnote-c-100.kbm", linear, 8),
                                   ("twelve-c-100.kbm", linear, 12), ("sixnote-c-100.kbm", six, 6)] {
            var m = try map("tuning-library/" + name)
            let hz = m.frequencies(scale: exact4)
            assertKeys(hz, want, name)
            let played = (36...96).map { hz[$0]! }
            XCTAssertTrue(zip(played, played.dropFirst()).allSatisfy { $0 < $1 }, "\(name): keys 36…96 rise")
            m.rule = .scala
            let literal = m.frequencies(scale: exact4)
            if size > 4 {
                XCTAssertEqual(try XCTUnwrap(literal[60 + size]), 200, accuracy: 1e-9, "\(name), Scala's rule: key \(60 + size) folds back")
            } else {
                assertKeys(literal, linear, name + ", Scala's rule: the same when the formal octave is the map's size")
            }
        }
    }

    /// 12-shuffled.scl lists 200, 100, 300, 500, 400, 600, 700, 800, 1000, 900, 1100
    /// cents: Scala numbers degrees in file order, so over a linear map from key 60 the
    /// keys 60…72 play 0, 2, 1, 3, 5, 4, 6, 7, 8, 10, 9, 11, 12 semitones (the library's
    /// "Non Monotonic 12 note": log2 steps order/12); with key 60 at 100 Hz, key 61 at
    /// 100·2^(2/12) = 112.25 Hz. The default map (no .kbm, 12 keys a period) plays them
    /// so too. The pad's steps (`degrees`) stay sorted.
    func testScaleDegreesPlayInFileOrder() throws {
        let shuffled = try scale("tuning-library/12-shuffled.scl")
        let order = [0, 2, 1, 3, 5, 4, 6, 7, 8, 10, 9, 11, 12]
        XCTAssertEqual(shuffled.listed.map { Int(($0 / 100).rounded()) }, Array(order.prefix(12)))
        XCTAssertEqual(shuffled.degrees, (0..<12).map { Double($0) * 100 })
        let middleC = 440 * pow(2, -9.0 / 12)
        let atC = KeyboardMap.linear(middleKey: 60, referenceKey: 60, referenceHz: middleC)
        var want: [Int: Double?] = [:]
        for (i, o) in order.enumerated() { want[60 + i] = middleC * pow(2, Double(o) / 12) }
        want[59] = middleC / 2 * pow(2, 11.0 / 12)
        assertKeys(atC.frequencies(scale: shuffled), want, "12-shuffled, linear from C4")
        let at100 = KeyboardMap.linear(middleKey: 60, referenceKey: 60, referenceHz: 100).frequencies(scale: shuffled)
        assertKeys(at100, [60: 100, 61: 112.2462048, 62: 105.9463094], "12-shuffled, key 60 at 100 Hz")
        let twelveKeys = KeyboardTuning(toneNote: 60, scale: shuffled, rootHz: middleC)
        for (i, o) in order.enumerated() {
            XCTAssertEqual(try XCTUnwrap(twelveKeys.ratio(ofKey: 60 + i)), pow(2, Double(o) / 12), accuracy: 1e-12, "12 keys a period: key \(60 + i)")
        }
        // A pitch listed past the period stays there on its key (the library does not fold).
        let wide = try XCTUnwrap(Scale(name: "wide", pitches: [1300, 700, 1200]))
        XCTAssertEqual(wide.listed, [0, 1300, 700])
        XCTAssertEqual(KeyboardMap.linear(middleKey: 60, referenceKey: 60, referenceHz: 100).frequencies(scale: wide)[61]!,
                       100 * pow(2, 13.0 / 12), accuracy: 1e-9)
    }

    /// `! @ABL REFERENCE_PITCH octave index Hz`: the listed degree `index` sounds at Hz,
    /// the keys one step each with the step nearest 261.63 Hz on key 60 (the library's
    /// `readASCLStream`: its "Tuning read with ASCL" asserts the reference key at the
    /// reference frequency). just-a440.ascl (4 9 440): A4 = 440, the root 440·3/5 = 264
    /// Hz on key 60, key 72 528, 59 its 15/8 an octave down (247.5). Without the directive
    /// degree 0 is at 261.6256 Hz on key 60 (A4 = 261.63·5/3 = 436.04); with 3 0 256,
    /// 256 Hz: the reference moves the root.
    func testAsclReferencePitchMovesTheRoot() throws {
        let a440 = try ascl("just-a440.ascl")
        XCTAssertEqual([a440.referenceOctave, a440.referenceIndex, a440.referenceLine], [4, 9, 20])
        XCTAssertEqual(a440.referenceHz, 440)
        let k = a440.keyboardMap
        XCTAssertEqual([k.size, k.middleKey, k.referenceKey, k.formalOctave], [12, 60, 69, 12])
        assertKeys(k.frequencies(scale: a440.scale), [59: 247.5, 60: 264, 61: 281.6, 64: 330, 67: 396, 69: 440, 72: 528], "just-a440.ascl")
        XCTAssertEqual(k.rootHz(scale: a440.scale), 264, accuracy: 1e-9)

        let none = try ascl("just-noreference.ascl")
        XCTAssertNil(none.referenceLine)
        XCTAssertEqual([none.keyboardMap.middleKey, none.keyboardMap.referenceKey], [60, 60])
        assertKeys(none.keyboardMap.frequencies(scale: none.scale), [60: 261.6255653, 69: 261.6255653 * 5 / 3, 72: 2 * 261.6255653],
                   "without REFERENCE_PITCH")
        let c256 = try ascl("just-c256.ascl")
        assertKeys(c256.keyboardMap.frequencies(scale: c256.scale), [60: 256, 64: 320, 69: 256 * 5 / 3, 48: 128], "just-c256.ascl")
        XCTAssertEqual(c256.keyboardMap.rootHz(scale: c256.scale), 256, accuracy: 1e-9)

        // The same file read as a plain .scl ignores its directives: the scale alone.
        XCTAssertEqual(try scale("tuning-library/just-a440.ascl"), a440.scale)
        // 12-TET with 4 9 440: the step nearest 261.63 Hz is the root, on key 60, A4 on 69.
        let head = "12-TET\n12\n" + (1...11).map { "\($0 * 100).0\n" }.joined() + "2/1\n"
        let tet = try AbletonScale.parse(Array((head + "! @ABL REFERENCE_PITCH 4 9 440.0\n").utf8), path: "t.ascl")
        XCTAssertEqual([tet.keyboardMap.middleKey, tet.keyboardMap.referenceKey], [60, 69])
        // A root two octaves above middle C (on key 84): the step nearest 261.63 Hz goes on key 60.
        let high = try AbletonScale.parse(Array((head + "!@ABL REFERENCE_PITCH 5 0 1046.5\n").utf8), path: "t.ascl")
        XCTAssertEqual([high.keyboardMap.middleKey, high.keyboardMap.referenceKey], [84, 84])
        XCTAssertEqual(high.keyboardMap.frequencies(scale: high.scale)[60]!, 1046.5 / 4, accuracy: 1e-9)
    }

    /// A REFERENCE_PITCH that is not three values in range, a second one, or an .ascl with
    /// directives that is not UTF-8: the file, its line, the field and what belonged there.
    func testAsclErrorsNameTheLineAndField() {
        let head = "12-TET\n12\n" + (1...11).map { "\($0 * 100).0\n" }.joined() + "2/1\n"
        let cases: [(String, Int, String)] = [
            ("! @ABL REFERENCE_PITCH 9 0 440.0\n", 15, "REFERENCE_PITCH's octave (a whole number −2…8)"),
            ("! @ABL REFERENCE_PITCH 4 12 440.0\n", 15, "REFERENCE_PITCH's note index (the degree whose frequency follows: a whole number 0…11, 0 the root)"),
            ("! @ABL REFERENCE_PITCH 4 9\n", 15, "REFERENCE_PITCH's frequency in Hz (a number above 0, e.g. 440.0)"),
            ("! @ABL REFERENCE_PITCH 4 9 A440\n", 15, "REFERENCE_PITCH's frequency in Hz (a number above 0, e.g. 440.0)"),
            ("! @ABL REFERENCE_PITCH 4 9 440.0 Hz\n", 15, "the end of the line after REFERENCE_PITCH's frequency"),
            ("! @ABL REFERENCE_PITCH 4 9 440.0\n!\n! @ABL REFERENCE_PITCH -1 0 100.0\n", 17, "one REFERENCE_PITCH (the first is on line 15)"),
        ]
        for (tail, line, expected) in cases {
            XCTAssertThrowsError(try AbletonScale.parse(Array((head + tail).utf8), path: "bad.ascl"), tail) { error in
                guard let e = error as? ScalaFileError else { return XCTFail("\(error)") }
                XCTAssertEqual(e.line, line, "\(e)")
                XCTAssertEqual(e.expected, expected)
                XCTAssertTrue(e.description.hasPrefix("bad.ascl:\(line): expected "), e.description)
            }
        }
        XCTAssertEqual(try AbletonScale.parse(Array((head + "! @ABL REFERENCE_PITCH -2 3 100.5\n").utf8), path: "t.ascl").referenceOctave, -2)
        let latin1 = Array(("! caf" as String).utf8) + [0xE9, 0x0A] + Array((head + "! @ABL REFERENCE_PITCH 4 9 440.0\n").utf8)
        XCTAssertThrowsError(try AbletonScale.parse(latin1, path: "l.ascl")) { error in
            XCTAssertEqual("\(error)", "l.ascl:1: expected UTF-8 text (a file with @ABL directives must be UTF-8, as Ableton's ASCL specification requires), got bytes that are not UTF-8")
        }
        XCTAssertNoThrow(try AbletonScale.parse(Array(("! caf" as String).utf8) + [0xE9, 0x0A] + Array(head.utf8), path: "l.ascl"),
                         "no directives: read as Scala reads it")
    }
}
