// SPDX-License-Identifier: GPL-3.0-or-later
import XCTest
import Foundation
import BendTestSupport

/// `--y-map cutoff`, `--filter` and `--resonance` reach the voices' filter in `render`.
final class FilterOptionTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws { dir = try BinaryRunner.temporaryDirectory() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    /// One touch at x = 0.5 and `y` for 1 s, rendered with `options`: the left channel.
    func render(y: Double, _ options: [String]) throws -> [Float] {
        let script = dir.appendingPathComponent("a.jsonl"), out = dir.appendingPathComponent("o.wav").path
        try "{\"t\": 0, \"type\": \"down\", \"id\": 1, \"x\": 0.5, \"y\": \(y)}\n{\"t\": 1, \"type\": \"up\", \"id\": 1}\n"
            .write(to: script, atomically: true, encoding: .utf8)
        let r = try BinaryRunner.run(["render", script.path, "-o", out, "--limiter", "off"] + options)
        XCTAssertEqual(r.status, 0, r.stderr)
        return Measure.channel(try WAVReader.read(out).samples, 0)
    }

    /// Energy above 2 kHz against the whole, dB, from 0.2 s to 0.9 s.
    func bright(_ x: [Float]) -> Double {
        let (m, size) = Measure.spectrum(Array(x[9600..<43_200]))
        var high = 0.0, all = 0.0
        for (i, v) in m.enumerated() { all += v * v; if Double(i) * 48_000 / Double(size) > 2000 { high += v * v } }
        return 10 * log10(high / all)
    }

    func testYMapCutoffDarkensALowTouchAndKeepsItsGain() throws {
        let open = try render(y: 0.3, [])
        let dark = try render(y: 0.3, ["--y-map", "cutoff"])
        XCTAssertLessThan(bright(dark), bright(open) - 20, "y 0.3 is a 299 Hz cutoff: the harmonics above 2 kHz go")
        let high = try render(y: 1, ["--y-map", "cutoff"])
        XCTAssertEqual(Measure.dB(Measure.rms(high[9600..<43_200]) / Measure.rms(try render(y: 0.5, [])[9600..<43_200])), 0, accuracy: 0.5,
                       "at the top the filter is open and the gain the pad's middle")
    }

    /// A lifted touch ends through the filter as without it: its 8 ms release, then the
    /// filter's short tail, silent 50 ms after the touch (it used to sound to the end of the
    /// render), resonant or not; and the render stops soon after.
    func testALiftedTouchEndsWithTheFilterOn() throws {
        for options in [["--filter", "on"], ["--resonance", "10"]] {
            let x = try render(y: 0.8, options)
            XCTAssertGreaterThan(Measure.rms(x[24_000..<47_000]), 0.01, "\(options): it sounds while held")
            let after = x.count > 48_000 + 2_400 ? Measure.rms(x[(48_000 + 2_400)...]) : 0  // (a render that ended sooner: silent)
            XCTAssertLessThan(after, 1e-5, "\(options): silent 50 ms after the touch")
            XCTAssertLessThan(x.count, 48_000 + 12_000, "\(options): the render ends after the release, not at its cap")
        }
    }

    func testResonanceOutOfRangeIsAUsageError() throws {
        let r = try BinaryRunner.run(["render", "x.jsonl", "-o", dir.appendingPathComponent("x.wav").path, "--resonance", "40"])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("'--resonance'"), r.stderr)
    }
}
