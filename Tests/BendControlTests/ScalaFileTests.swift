// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendTestSupport
import Foundation
import XCTest

/// Scala `.scl` files: every form the Scala archive writes, each kind of malformed
/// file (an error naming the file, the line and what was expected), the real-world file
/// of RW-50, and 100 000 random inputs.
final class ScalaFileTests: XCTestCase {
    func parse(_ text: String) throws -> Scale {
        try ScalaFile.parse(Array(text.utf8), path: "t.scl")
    }

    func error(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> ScalaFileError? {
        do {
            let s = try parse(text)
            XCTFail("parsed as \(s)", file: file, line: line)
            return nil
        } catch let e as ScalaFileError {
            return e
        } catch {
            XCTFail("\(error)", file: file, line: line)
            return nil
        }
    }

    /// Cents, ratios, whole numbers, comments anywhere, text after values, CR LF.
    func testFormsOfPitches() throws {
        let s = try parse("! a comment\r\n!\r\nMixed forms\r\n 5\r\n! between\r\n 100.0 cents\r\n 5/4 major third\r\n3/2\r\n 1200.\r\n2\r\n")
        XCTAssertEqual(s.name, "Mixed forms")
        XCTAssertEqual(s.periodCents, 1200, accuracy: 1e-9)
        XCTAssertEqual(s.degrees.count, 4)  // 1200. folds onto the root's degree 0
        XCTAssertEqual(s.degrees[1], 100, accuracy: 1e-9)
        XCTAssertEqual(s.degrees[2], 386.3137139, accuracy: 1e-6)
        XCTAssertEqual(s.degrees[3], 701.9550009, accuracy: 1e-6)
    }

    /// An empty description line is a description, not the count.
    func testEmptyDescription() throws {
        let s = try parse("!\n\n 2\n 700.0\n 2/1\n")
        XCTAssertEqual(s.name, "")
        XCTAssertEqual(s.degrees.map { ($0 * 1000).rounded() / 1000 }, [0, 700])
    }

    /// Bohlen–Pierce: 13 steps of 3/1; steps in the next period add 1901.955 cents.
    func testNonOctavePeriod() throws {
        var text = "Bohlen-Pierce equal\n13\n"
        for k in 1...12 { text += " \(String(format: "%.5f", 1901.955000865 * Double(k) / 13))\n" }
        text += " 3/1\n"
        let s = try parse(text)
        XCTAssertEqual(s.periodCents, 1901.955000865, accuracy: 1e-6)
        XCTAssertEqual(s.degrees.count, 13)
        XCTAssertEqual(s.cents(ofStep: 13), 1901.955000865, accuracy: 1e-6)
        XCTAssertEqual(s.cents(ofStep: -1), -1901.955000865 / 13, accuracy: 1e-4)
        XCTAssertEqual(s.nearestStep(cents: 1901.955 + 150), 14)
        XCTAssertNil(s.noteNames(rootNote: 69), "not 12-note: step numbers")
    }

    /// No newline at the end; lines after the last pitch are ignored; Latin-1 bytes
    /// in the description are kept as U+FFFD.
    func testLooseEnds() throws {
        XCTAssertEqual(try parse("x\n1\n2/1").periodCents, 1200, accuracy: 1e-9)
        XCTAssertEqual(try parse("x\n1\n3/1\nanything after\n").periodCents, 1901.955, accuracy: 1e-3)
        let latin1: [UInt8] = Array("Gamme de Pythagore, ".utf8) + [0xE9] + Array("\n 1\n 2/1\n".utf8)
        XCTAssertTrue(try ScalaFile.parse(latin1, path: "p.scl").name.hasSuffix("\u{FFFD}"))
    }

    /// Each kind of malformed file: the line and what was expected.
    func testMalformedFiles() {
        let cases: [(text: String, line: Int, expected: String)] = [
            ("", 1, "a description line"),
            ("! only comments\n", 2, "a description line"),
            ("desc\n", 2, "the number of pitches"),
            ("desc\ntwelve\n", 2, "the number of pitches (a whole number"),
            ("desc\n-3\n2/1\n", 2, "the number of pitches"),
            ("desc\n0\n", 2, "the number of pitches (a whole number, 1…"),
            ("desc\n3\n100.0\n", 4, "pitch 2 of 3"),
            ("desc\n2\n100.0\n", 4, "pitch 2 of 2 (the period)"),
            ("desc\n2\nabc\n2/1\n", 3, "pitch 1 of 2: cents with a '.'"),
            ("desc\n2\n\n2/1\n", 3, "pitch 1 of 2"),
            ("desc\n2\n3/0\n2/1\n", 3, "a positive ratio"),
            ("desc\n2\n0/5\n2/1\n", 3, "a positive ratio"),
            ("desc\n2\n3/2/1\n2/1\n", 3, "pitch 1 of 2"),
            ("desc\n2\n1.2.3\n2/1\n", 3, "pitch 1 of 2"),
            ("desc\n2\n0x1.8p1\n2/1\n", 3, "pitch 1 of 2"),
            ("desc\n2\n700.0\n1/2\n", 4, "the period (the last pitch) above the root"),
            ("desc\n1\n0.0\n", 3, "the period (the last pitch) above the root"),
            ("desc\n1\n" + String(repeating: "9", count: 400) + "/1\n", 3, "below 10^308"),
            // Found by `make fuzz` (a 7.8·10^105-cent period swallowed its degrees' cents).
            ("desc\n2\n100.0\n" + String(repeating: "7", count: 100) + "438.8\n", 4, "within ±120000 cents"),
            ("desc\n2\n-200000.0\n2/1\n", 3, "within ±120000 cents"),
            ("desc\n1\n1" + String(repeating: "0", count: 40) + "/1\n", 3, "within ±120000 cents"),
        ]
        for c in cases {
            guard let e = error(c.text) else { continue }
            XCTAssertEqual(e.path, "t.scl")
            XCTAssertEqual(e.line, c.line, "\(c.text.debugDescription): \(e)")
            XCTAssertTrue(e.expected.contains(c.expected), "\(c.text.debugDescription): \(e)")
            XCTAssertTrue(e.description.hasPrefix("t.scl:\(c.line): expected "), e.description)
        }
    }

    /// RW-50: the archive's quarter-comma meantone; step 4 is the pure 5/4 (386.31371
    /// cents), 550.0 Hz over a 440 Hz root.
    func testRealWorldMeantone() throws {
        let path = RealWorldScales.path("meantone-quarter-comma.scl")
        let scale = try ScalaFile.parse(Array(try Data(contentsOf: URL(fileURLWithPath: path))), path: path)
        XCTAssertEqual(scale.name, "Quarter-comma meantone, 12 notes from C")
        XCTAssertEqual(scale.degrees.count, 12)
        XCTAssertEqual(scale.periodCents, 1200, accuracy: 1e-9)
        XCTAssertEqual(scale.cents(ofStep: 4), 386.31371, accuracy: 1e-9)
        XCTAssertEqual(Tuning(scale: scale).ratio(cents: scale.cents(ofStep: 4)) * 440, 550, accuracy: 550 * 1e-6)
        XCTAssertEqual(Tuning(scale: scale).noteNames, ["A", "A#", "B", "C", "C#", "D", "D#", "E", "F", "F#", "G", "G#"])
    }

    /// 100 000 random inputs (random bytes, and valid files with bytes changed, cut or
    /// inserted): each parses to a sane scale or fails with a line inside the file.
    func testFuzz() {
        var rng = SplitMix(seed: 0x5CA1A)
        let seeds: [[UInt8]] = [
            Array("! x.scl\n!\nDescription\n 4\n!\n 100.0\n 5/4 third\n 3\n 2/1\n".utf8),
            Array("\n2\n701.955\r\n3/1\r\n".utf8),
            Array("desc\n 3\n -50.5\n 99999999999999999999/3\n 1200.\n".utf8),
        ]
        let alphabet = Array("0123456789./!- \t\r\n+e".utf8)
        var parsed = 0, failed = 0
        for _ in 0..<100_000 {
            var bytes: [UInt8]
            if Bool.random(using: &rng) {
                bytes = (0..<Int.random(in: 0...40, using: &rng)).map { _ in
                    Bool.random(using: &rng) ? alphabet.randomElement(using: &rng)! : UInt8.random(in: 0...255, using: &rng)
                }
            } else {
                bytes = seeds.randomElement(using: &rng)!
                for _ in 0..<Int.random(in: 1...4, using: &rng) {
                    let i = Int.random(in: 0...bytes.count, using: &rng)
                    switch Int.random(in: 0..<3, using: &rng) {
                    case 0 where i < bytes.count: bytes[i] = Bool.random(using: &rng) ? alphabet.randomElement(using: &rng)! : UInt8.random(in: 0...255, using: &rng)
                    case 1: bytes.insert(alphabet.randomElement(using: &rng)!, at: i)
                    default: bytes = Array(bytes.prefix(i))
                    }
                }
            }
            let lines = bytes.filter { $0 == 10 }.count + 1
            do {
                let s = try ScalaFile.parse(bytes, path: "f.scl")
                parsed += 1
                XCTAssertTrue(s.periodCents > 0 && s.periodCents.isFinite)
                XCTAssertEqual(s.degrees.first, 0)
                XCTAssertTrue(zip(s.degrees, s.degrees.dropFirst()).allSatisfy { $0 < $1 } && s.degrees.last! < s.periodCents)
                XCTAssertTrue((0..<s.degrees.count).allSatisfy { s.nearestStep(cents: s.degrees[$0]) == $0 })
            } catch let e as ScalaFileError {
                failed += 1
                XCTAssertTrue((1...lines + 1).contains(e.line), "\(e)")
            } catch {
                XCTFail("\(error)")
            }
        }
        XCTAssertGreaterThan(parsed, 1000)
        XCTAssertGreaterThan(failed, 1000)
    }
}

/// The scale files of `realworld/scales/` (LOG.md section E).
enum RealWorldScales {
    /// `$BENDSYNTH_REALWORLD/scales/NAME`, else `../shared/realworld/scales/NAME` beside the package.
    static func path(_ name: String) -> String {
        if let path = ProcessInfo.processInfo.environment["BENDSYNTH_REALWORLD"] {
            return path + "/scales/" + name
        }
        return URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("shared/realworld/scales/" + name).path
    }
}
