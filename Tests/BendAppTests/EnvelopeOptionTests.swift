// SPDX-License-Identifier: GPL-3.0-or-later
import XCTest
import Foundation
import BendTestSupport

/// `--attack`, `--decay`, `--sustain` and `--release` shape what `render` writes.
final class EnvelopeOptionTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws { dir = try BinaryRunner.temporaryDirectory() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    /// One touch at x = 0.5 (ratio 1) from 0 to `up` seconds.
    func script(up: Double) throws -> String {
        let url = dir.appendingPathComponent("a.jsonl")
        try "{\"t\": 0, \"type\": \"down\", \"id\": 1, \"x\": 0.5, \"y\": 1}\n{\"t\": \(up), \"type\": \"up\", \"id\": 1}\n"
            .write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    /// Decay to −12 dB in 100 ms, a 300 ms release: the held level is 12 dB under the
    /// level at the attack's end, the tail still sounds 250 ms after the touch ends and
    /// is silent after 300 ms, and the file holds the whole release.
    func testEnvelopeOptionsShapeTheRender() throws {
        let out = dir.appendingPathComponent("o.wav").path
        let r = try BinaryRunner.run(["render", try script(up: 1), "-o", out, "--limiter", "off",
                                      "--attack", "20", "--decay", "100", "--sustain", "-12", "--release", "300"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let wav = try WAVReader.read(out)
        let left = Measure.channel(wav.samples, 0)
        func level(_ from: Double, _ to: Double) -> Double {
            Measure.rms(left[min(Int(from * 48_000), left.count)..<min(Int(to * 48_000), left.count)])
        }
        let peak = level(0.019, 0.0215)  // around the attack's end (20 ms)
        XCTAssertEqual(Measure.dB(level(0.5, 0.9) / peak), -12, accuracy: 0.5, "sustain level")
        XCTAssertGreaterThan(Measure.dB(level(1.24, 1.25) / peak), -60, "the release still sounds after 250 ms")
        XCTAssertGreaterThanOrEqual(wav.frames, Int(1.3 * 48_000), "the file holds the release")
        XCTAssertEqual(Measure.rms(left[min(Int(1.301 * 48_000), left.count)...]), 0, "silent once the 300 ms release has run")
    }

    /// Out-of-range envelope values are usage errors naming the option.
    func testOutOfRangeEnvelopeValuesAreUsageErrors() throws {
        for (option, value) in [("--attack", "0"), ("--release", "70000"), ("--sustain", "3"), ("--decay", "-1")] {
            let r = try BinaryRunner.run(["render", try script(up: 0.1), "-o", dir.appendingPathComponent("x.wav").path, option, value])
            XCTAssertEqual(r.status, 2, "\(option) \(value)")
            XCTAssertTrue(r.stderr.contains("'\(option)'"), r.stderr)
        }
    }
}
