// SPDX-License-Identifier: GPL-3.0-or-later
import BendTestSupport
import Foundation
import XCTest

/// `--scale`, `--scale-root`, `--round` through the `render` command, measured on the
/// WAV it writes; bad scale input exits 2 naming the file and line, and writes nothing.
final class ScaleCommandTests: XCTestCase {
    func renderPeak(_ script: String, _ options: [String], from: Double = 0.1, to: Double = 0.9) throws -> (Double, BinaryRunner.Result) {
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let scriptURL = dir.appendingPathComponent("s.jsonl"), out = dir.appendingPathComponent("o.wav")
        try script.write(to: scriptURL, atomically: true, encoding: .utf8)
        let r = try BinaryRunner.run(["render", scriptURL.path, "-o", out.path] + options)
        guard r.status == 0 else { return (0, r) }
        let (samples, _, _, rate) = try WAVReader.read(out.path)
        let mono = stride(from: Int(from * 48_000) * 2, to: Int(to * 48_000) * 2, by: 2).map { samples[$0] + samples[$0 + 1] }
        return (Measure.peakFrequency(mono, rate: Double(rate)), r)
    }

    func touch(x: Double) -> String {
        """
        {"t":0,"type":"down","id":1,"x":\(x),"y":0.8}
        {"t":1,"type":"up","id":1}

        """
    }

    /// RW-50: quarter-comma meantone from the Scala archive; a touch 20 cents above
    /// step 4 (the pure major third) plays 550.0 Hz (±1 cent) with `--round hold`,
    /// 556.4 Hz without rounding.
    func testRealWorldMeantoneRoundsToThePureThird() throws {
        let scale = BinaryRunner.packageRoot.deletingLastPathComponent().appendingPathComponent("shared/realworld/scales/meantone-quarter-comma.scl").path
        let x = 0.5 + (386.31371 + 20) / 2400
        let (raw, r0) = try renderPeak(touch(x: x), ["--scale", scale, "--round", "off"])
        XCTAssertEqual(r0.status, 0, r0.stderr)
        XCTAssertEqual(1200 * log2(raw / 550), 20, accuracy: 3, "\(raw) Hz")
        let (hz, r) = try renderPeak(touch(x: x), ["--scale", scale, "--round", "hold", "--round-rate", "50"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(1200 * log2(hz / 550), 0, accuracy: 1, "\(hz) Hz")
    }

    /// `--scale-root 300`: the pad is centred on the root (x = 0.5 plays 300 Hz), and
    /// `initial` rounding onto the major scale starts a touch 40 cents above the root's
    /// major second on it (336.7 Hz).
    func testScaleRootCentresThePad() throws {
        let (centre, r) = try renderPeak(touch(x: 0.5), ["--scale", "major", "--scale-root", "300"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(1200 * log2(centre / 300), 0, accuracy: 3, "\(centre) Hz")
        let (second, r2) = try renderPeak(touch(x: 0.5 + 240.0 / 2400), ["--scale", "major", "--scale-root", "300", "--round", "initial"])
        XCTAssertEqual(r2.status, 0, r2.stderr)
        XCTAssertEqual(1200 * log2(second / (300 * pow(2, 2.0 / 12))), 0, accuracy: 3, "\(second) Hz")
    }

    /// `--scale Major` is the built-in major scale, and `--scale-root C4` its root at
    /// C4 (261.63 Hz): the pad's centre plays C4.
    func testScaleNamesInAnyCaseAndANoteNameRoot() throws {
        let (c4, r) = try renderPeak(touch(x: 0.5), ["--scale", "Major", "--scale-root", "C4"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(1200 * log2(c4 / 261.6256), 0, accuracy: 3, "\(c4) Hz")
        let (bflat, r2) = try renderPeak(touch(x: 0.5), ["--scale", "MINOR", "--scale-root", "Bb3"])
        XCTAssertEqual(r2.status, 0, r2.stderr)
        XCTAssertEqual(1200 * log2(bflat / 233.0819), 0, accuracy: 3, "\(bflat) Hz")
        let (_, bad) = try renderPeak(touch(x: 0.5), ["--scale", "major", "--scale-root", "H4"])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains("option '--scale-root': expected a pitch in Hz (1…20000) or a note with its octave (C4, A#3, Bb2), got 'H4'"), bad.stderr)
    }

    /// A malformed Scala file: exit 2, "FILE:LINE: expected …", no WAV written; and the
    /// options' own errors.
    func testBadScaleInput() throws {
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let bad = dir.appendingPathComponent("bad.scl")
        try "! bad.scl\nthree pitches\n 3\n 100.0\n seven\n 2/1\n".write(to: bad, atomically: true, encoding: .utf8)
        let script = BinaryRunner.packageRoot.appendingPathComponent("Assets/demo.jsonl").path
        let out = dir.appendingPathComponent("o.wav")
        let cases: [([String], String)] = [
            (["--scale", bad.path], "\(bad.path):5: expected pitch 2 of 3: cents with a '.'"),
            (["--scale", dir.appendingPathComponent("missing.scl").path], "missing.scl: no such file; expected a Scala scale file"),
            (["--scale", "lydian-ish"], "option '--scale': expected a Scala file (.scl), one of chromatic, major"),
            (["--scale", "edo:0"], "edo:N"),
            (["--round", "always"], "option '--round': expected 'off', 'initial' or 'hold', got 'always'"),
            (["--round", "initial", "--round-rate", "50"], "'--round-rate' applies to '--round hold' only"),
            (["--round", "hold", "--round-rate", "0"], "option '--round-rate': expected a number in 1.0…2000.0"),
            (["--scale-root", "300"], "'--scale-root' applies with '--scale' only"),
        ]
        for (options, message) in cases {
            let r = try BinaryRunner.run(["render", script, "-o", out.path] + options)
            XCTAssertEqual(r.status, 2, "\(options): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(message), "\(options): \(r.stderr)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: out.path))
        }
    }
}
