// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import XCTest
import BendTestSupport

/// Issue 38 item 7: a tone without loop points loops whole, and its seam is crossfaded
/// by default (10 ms, `--loop-crossfade` for another length): the largest sample step
/// at the seam stays within twice the sound's own.
final class WholeLoopSeamTests: XCTestCase {
    /// The largest step of a held 2 s touch on a 0.5 s sine at 261.63 Hz (a seam every
    /// 0.5 s, its ends 0.8 of a period apart), against the sine's own largest step at the
    /// level it sounds at.
    func seamStep(_ extra: [String]) throws -> (step: Float, own: Float) {
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let rate = 48_000, hz = 261.63
        let tone = dir.appendingPathComponent("sine.wav").path
        writeSoundFile(tone, (0..<(rate / 2)).map { Float(0.5 * sin(2 * Double.pi * hz * Double($0) / Double(rate))) }, rate: rate)
        let script = dir.appendingPathComponent("held.jsonl").path
        try (#"{"t": 0, "type": "down", "id": 1, "x": 0.5, "y": 1}"# + "\n" + #"{"t": 2, "type": "up", "id": 1}"# + "\n")
            .write(toFile: script, atomically: true, encoding: .utf8)
        let out = dir.appendingPathComponent("out.wav").path
        let r = try BinaryRunner.run(["render", "--no-config", script, "-o", out, "--tone", tone, "--tone-note", "60",
                                      "--limiter", "off", "--interp", "cubic"] + extra)
        XCTAssertEqual(r.status, 0, r.stderr)
        let left = Measure.channel(try WAVReader.read(out).samples, 0)
        let held = left[(rate / 10)..<(rate * 19 / 10)]  // past the attack, before the release: three seams
        let level = held.map(abs).max() ?? 0
        return (Measure.maxStep(held), level * Float(2 * sin(Double.pi * hz / Double(rate))))
    }

    func testWholeLoopSeamIsCrossfadedByDefault() throws {
        let (step, own) = try seamStep([])
        let (raw, _) = try seamStep(["--loop-crossfade", "0"])
        print(String(format: "whole loop of a 0.5 s sine at 261.63 Hz: largest step %.4f (the sine's own %.4f, %.2f×); --loop-crossfade 0: %.4f (%.1f×)",
                     step, own, step / own, raw, raw / own))
        XCTAssertLessThanOrEqual(step, 2 * own, "the seam steps no more than twice the sound's own step")
        XCTAssertGreaterThan(raw, 4 * own, "without the crossfade the seam clicks (the measure sees it)")
    }
}
