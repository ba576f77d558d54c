// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendTestSupport
import Foundation
import XCTest

/// Scala keyboard mappings (`.kbm`, issue 28): the corpus in
/// Tests/BendMIDITests/Fixtures/kbm — linear, white keys, 7 keys to 12 degrees, a partial
/// range with an unmapped key, a shuffled pattern with DOS line endings and a trailing
/// line, and patterns of 3 and 5 keys whose middle key is not the reference key (3 keys
/// from degree 1 of a 4-note scale, the reference in the pattern on its last degree; 5
/// keys, the reference two patterns below the middle, an unmapped key) — read as the
/// Scala format defines, each key at the frequency it implies (worked out here by hand
/// from the scale, not by the parser's code; the last two also agree, to 1e-6 Hz, with a
/// transcription of Surge's tuning library, `Tunings::Tuning(scale, mapping)`), and the
/// malformed ones refused with their line.
final class KeyboardMapTests: XCTestCase {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../BendMIDITests/Fixtures/kbm").standardized

    func load(_ name: String) throws -> KeyboardMap {
        let path = Self.corpus.appendingPathComponent(name).path
        return try KeyboardMap.parse([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))), path: name)
    }

    func scale(_ name: String) throws -> Scale {
        if let s = Scale.builtIn(name) { return s }
        let path = Self.corpus.appendingPathComponent(name).path
        return try ScalaFile.parse([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))), path: name)
    }

    /// Each file's keys and the Hz they must sound at (nil: silent).
    static let expected: [(kbm: String, scale: String, keys: [Int: Double?])] = {
        let c4 = 261.625565
        let just = 440.0 / (5.0 / 3)  // the root, A4 = 440 being its 5/3
        let major442 = 442 * pow(2, -16.0 / 12)  // key 69 is step 16 of the 7-key pattern
        let a440root = 440 * pow(2, -9.0 / 12)
        func edo(_ n: Double, _ k: Double) -> Double { pow(2, k / n) }
        let five = 220 * edo(5, 7)
        return [
            ("linear-60-440-69.kbm", "just-12.scl", [60: just, 64: just * 5 / 4, 67: just * 3 / 2, 69: 440, 72: 2 * just,
                                                     59: just * 15 / 16, 61: just * 16 / 15, 73: 2 * just * 16 / 15]),
            ("whitekeys-c261.kbm", "edo:7", [60: c4, 61: nil, 62: c4 * edo(7, 1), 64: c4 * edo(7, 2), 65: c4 * edo(7, 3),
                                             67: c4 * edo(7, 4), 69: c4 * edo(7, 5), 70: nil, 71: c4 * edo(7, 6), 72: 2 * c4,
                                             59: c4 * edo(7, -1)]),
            ("a442-7-to-12.kbm", "chromatic", [60: major442, 61: major442 * edo(12, 2), 62: major442 * edo(12, 4),
                                               63: major442 * edo(12, 5), 66: major442 * edo(12, 11), 67: major442 * 2,
                                               69: 442, 59: major442 * edo(12, -1), 70: major442 * edo(12, 17)]),
            ("range-48-72-x.kbm", "chromatic", [47: nil, 48: a440root / 2, 60: a440root, 69: 440, 70: a440root * edo(12, 10),
                                                71: nil, 72: 2 * a440root, 73: nil]),
            ("shuffle-dos.kbm", "edo:4", [60: c4, 61: c4 * edo(4, 2), 62: c4 * edo(4, 1), 63: c4 * edo(4, 3), 64: 2 * c4,
                                          59: c4 * edo(4, -1)]),
            // Key 60 is degree 1 (5/4), 61 degree 3 (7/4), 62 degree 4 (2/1: the reference,
            // 200 Hz, so the root is 100 Hz); each pattern 4 degrees (an octave) higher.
            ("threenote-mid60-ref62.kbm", "exact4.scl", [57: 62.5, 58: 87.5, 59: 100, 60: 125, 61: 175, 62: 200, 63: 250,
                                                          64: 350, 65: 400, 69: 1000, 73: 2800]),
            // Key 57 = 64 − 7: pattern −2, entry 3, degree 3 − 10 = −7 at 220 Hz, so the root
            // (key 64) is 220·2^(7/5); entry 2 of each pattern (61, 66, 71) plays nothing.
            ("fivenote-mid64-ref57.kbm", "edo:5", [57: 220, 59: five * edo(5, -5), 60: five * edo(5, -4), 61: nil, 62: 440,
                                                   63: five * edo(5, -1), 64: five, 66: nil, 67: five * edo(5, 3),
                                                   69: five * edo(5, 5), 71: nil, 73: five * edo(5, 9)]),
        ]
    }()

    func testCorpusKeysSoundAtTheFrequenciesTheFilesImply() throws {
        for (kbm, scaleName, keys) in Self.expected {
            let map = try load(kbm), s = try scale(scaleName)
            let hz = map.frequencies(scale: s)
            for (key, want) in keys.sorted(by: { $0.key < $1.key }) {
                if let want {
                    let got = try XCTUnwrap(hz[key], "\(kbm) with \(scaleName): key \(key) plays")
                    XCTAssertEqual(1200 * log2(got / want), 0, accuracy: 1e-9, "\(kbm) with \(scaleName): key \(key), cents off")
                } else {
                    XCTAssertNil(hz[key], "\(kbm) with \(scaleName): key \(key) plays nothing")
                }
            }
        }
        let white = try load("whitekeys-c261.kbm")
        XCTAssertEqual([white.size, white.firstKey, white.lastKey, white.middleKey, white.referenceKey, white.formalOctave], [12, 0, 127, 60, 60, 7])
        XCTAssertEqual(white.mapping, [0, nil, 1, nil, 2, 3, nil, 4, nil, 5, nil, 6])
        XCTAssertEqual(white.referenceHz, 261.625565)
        XCTAssertEqual(try load("linear-60-440-69.kbm").rootHz(scale: try scale("just-12.scl")), 264, accuracy: 1e-9)
    }

    /// A malformed file names its line and what belonged there; an extra line after the
    /// last entry is accepted (shuffle-dos.kbm above has one).
    func testMalformedFilesNameTheirLine() {
        let cases: [(String, Int, String, String)] = [
            ("blank-line.kbm", 5, "the middle key", "a blank line"),
            ("garbage-key.kbm", 11, "entry 4 of 12 (a scale degree", "'3q'"),
            ("missing-entry.kbm", 19, "entry 12 of 12", "end of file"),
            ("bad-frequency.kbm", 6, "the reference frequency in Hz", "'A440'"),
            ("unmapped-reference.kbm", 17, "a scale degree for the reference key 69", "'x' (not mapped)"),
            ("last-before-first.kbm", 3, "the last MIDI key to retune, at or above the first (72)", "'48'"),
            ("header-only.kbm", 7, "the reference frequency", "end of file"),
        ]
        for (name, line, expected, found) in cases {
            XCTAssertThrowsError(try load("bad/" + name), name) { error in
                guard let e = error as? ScalaFileError else { return XCTFail("\(name): \(error)") }
                XCTAssertEqual(e.line, line, "\(name): \(e)")
                XCTAssertTrue(e.expected.hasPrefix(expected), "\(name): \(e)")
                XCTAssertEqual(e.found, found, "\(name): \(e)")
                XCTAssertTrue(e.description.hasPrefix("bad/\(name):\(line): expected "), e.description)
            }
        }
    }

    /// MIDI keys through a scale: `KeyboardTuning` over the tone's pitch; without a map
    /// 12 keys a period from the root on the key nearest it (the tone's note by default),
    /// each key the step nearest its 12-TET place: 17-EDO's steps round(j·17/12), a major
    /// scale's black keys their lower neighbour.
    func testKeyboardTuningLaysAScaleOnTheKeys() throws {
        let seventeen = KeyboardTuning(toneNote: 69, scale: Scale.edo(17), rootHz: 440)
        for key in [52, 57, 60, 68, 69, 70, 74, 81, 86, 100] {
            let j = key - 69, period = j >= 0 ? j / 12 : -((-j + 11) / 12), within = j - 12 * period
            let step = 17 * period + Int((Double(within) * 17 / 12).rounded())
            XCTAssertEqual(try XCTUnwrap(seventeen.ratio(ofKey: key)), pow(2, Double(step) / 17), accuracy: 1e-12, "key \(key)")
        }
        let major = KeyboardTuning(toneNote: 69, scale: Scale.builtIn("major")!, rootHz: 440)
        for (key, semitones) in [69: 0, 70: 0, 71: 2, 72: 2, 73: 4, 74: 5, 75: 5, 76: 7, 80: 11, 81: 12, 68: -1, 66: -3] {
            XCTAssertEqual(try XCTUnwrap(major.ratio(ofKey: key)), pow(2, Double(semitones) / 12), accuracy: 1e-12, "major: key \(key)")
        }
        let tone57 = KeyboardTuning(toneNote: 57, scale: Scale.edo(17), rootHz: 220)
        XCTAssertEqual(try XCTUnwrap(tone57.ratio(ofKey: 59)), pow(2, 3.0 / 17), accuracy: 1e-12, "the root on the tone's note")
        let detuned = KeyboardTuning(toneNote: 64.02, scale: Scale.builtIn("major")!, rootHz: KeyboardTuning.hz(ofNote: 64.02))
        XCTAssertEqual(try XCTUnwrap(detuned.ratio(ofKey: 64)), 1, accuracy: 1e-12, "a tone between keys: its nearest key plays it as recorded")
        let justAtC = KeyboardTuning(toneNote: 69, scale: try scale("just-12.scl"), rootHz: 261.625565)
        XCTAssertEqual(try XCTUnwrap(justAtC.ratio(ofKey: 60)) * 440, 261.625565, accuracy: 1e-9, "the root on its nearest key, 60")
        XCTAssertEqual(try XCTUnwrap(justAtC.ratio(ofKey: 64)) * 440, 261.625565 * 5 / 4, accuracy: 1e-9)
        let plain = KeyboardTuning(toneNote: 69)
        XCTAssertTrue(plain.isEqualTemperament)
        XCTAssertEqual(plain.ratio(ofKey: 81), 2)
        let white = KeyboardTuning(toneNote: 69, scale: Scale.edo(7), keyboard: try load("whitekeys-c261.kbm"))
        XCTAssertNil(white.ratio(ofKey: 61))
        XCTAssertEqual(try XCTUnwrap(white.ratio(ofKey: 72)) * 440, 2 * 261.625565, accuracy: 1e-9)
    }

    /// 50 000 inputs (the corpus's files with bytes changed, inserted or cut, and random
    /// bytes): each parses to a usable map — its fields in range, every key through a
    /// scale silent or at a frequency ≥ 0 (never NaN), the reference key at its
    /// frequency — or fails with a line inside the file (one past it at its end).
    func testFuzz() throws {
        var rng = SplitMix(seed: 0x4B_424D)
        let names = try FileManager.default.subpathsOfDirectory(atPath: Self.corpus.path).filter { $0.hasSuffix(".kbm") }
        let seeds = try names.map { [UInt8](try Data(contentsOf: Self.corpus.appendingPathComponent($0))) }
        XCTAssertEqual(seeds.count, 20)
        let alphabet = Array("0123456789.x!- \t\r\n".utf8)
        var parsed = 0, failed = 0
        for _ in 0..<50_000 {
            var bytes = seeds.randomElement(using: &rng)!
            if Int.random(in: 0..<8, using: &rng) == 0 {
                bytes = (0..<Int.random(in: 0...60, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }
            }
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                let i = Int.random(in: 0...bytes.count, using: &rng)
                switch Int.random(in: 0..<3, using: &rng) {
                case 0 where i < bytes.count: bytes[i] = Bool.random(using: &rng) ? alphabet.randomElement(using: &rng)! : UInt8.random(in: 0...255, using: &rng)
                case 1: bytes.insert(alphabet.randomElement(using: &rng)!, at: i)
                default: bytes = Array(bytes.prefix(i))
                }
            }
            do {
                let map = try KeyboardMap.parse(bytes, path: "f.kbm")
                parsed += 1
                XCTAssertEqual(map.mapping.count, map.size)
                XCTAssertTrue(map.firstKey <= map.lastKey && map.referenceHz > 0 && map.referenceHz.isFinite)
                let hz = map.frequencies(scale: Scale.edo(12))
                XCTAssertFalse(hz.contains { $0.map { !($0 >= 0) } ?? false }, "\(hz)")
                if (map.firstKey...map.lastKey).contains(map.referenceKey) {
                    XCTAssertEqual(try XCTUnwrap(hz[map.referenceKey]), map.referenceHz, accuracy: 1e-9 * map.referenceHz)
                }
            } catch {
                failed += 1
                let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).count
                XCTAssertTrue((0...lines + 1).contains(error.line), "line \(error.line) of \(lines): \(error)")
            }
        }
        XCTAssertGreaterThan(parsed, 1000)
        XCTAssertGreaterThan(failed, 1000)
    }
}
