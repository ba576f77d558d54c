// SPDX-License-Identifier: GPL-3.0-or-later
import BendTestSupport
import Foundation
import XCTest

/// What a finger's label on the web pad says (headless Chromium, web/layout_driver.py's
/// `label`): the pitch that sounds, as the instrument's answer gives it.
final class WebPitchLabelTests: XCTestCase {
    /// The frequency of the strongest peak within ±3 % of `hz` (Hann, parabolic).
    private func peak(near hz: Double, _ samples: [Float], rate: Double = 48_000) -> Double {
        let (mags, size) = Measure.spectrum(samples)
        let lo = Int(hz * 0.97 * Double(size) / rate), hi = Int(hz * 1.03 * Double(size) / rate) + 1
        var best = lo
        for i in lo...hi where mags[i] > mags[best] { best = i }
        let a = log(mags[best - 1]), b = log(mags[best]), c = log(mags[best + 1])
        let d = a - 2 * b + c
        return (Double(best) + (d == 0 ? 0 : 0.5 * (a - c) / d)) * rate / Double(size)
    }

    /// `--scale major --round initial`: a finger 20 cents below B3 sounds at B3 (the
    /// recording's pitch, FFT, ±1 cent), and its label names B3 with no offset — from the
    /// first text it shows: the label waits for the instrument's answer, so the finger's
    /// unrounded pitch ("B3-20¢") is never shown.
    func testWithRoundingTheLabelNamesTheStepThatSounds() throws {
        let dir = try webTestDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let wav = dir.appendingPathComponent("take.wav").path
        let play = try WebPlayProcess(["--web", "127.0.0.1:0", "--scale", "major", "--round", "initial", "--limiter", "off", "--record", wav], dir: dir)
        let lines = try play.chromium("label", ["B3:-20"], driver: "layout_driver.py")
        XCTAssertEqual(play.terminate(), 0, play.stderr)
        let label = try XCTUnwrap(lines.first { $0.first == "label" }?.dropFirst().first, "\(lines)")
        XCTAssertTrue(label.hasPrefix("B3+0¢_g"), label)
        let shown = try XCTUnwrap(lines.first { $0.first == "shown" }, "\(lines)").dropFirst()
        XCTAssertFalse(shown.isEmpty, "\(lines)")
        XCTAssertTrue(shown.allSatisfy { $0.hasPrefix("B3+0¢_g") }, "every text the label showed: \(shown)")

        let left = Measure.channel(try WAVReader.read(wav).samples, 0)
        let start = try XCTUnwrap(left.firstIndex { $0 != 0 }, "the finger sounds")
        let end = try XCTUnwrap(left.lastIndex { $0 != 0 })
        XCTAssertGreaterThan(end - start, 9600, "sounded at least 0.2 s")
        let b3 = 440 * pow(2, -10.0 / 12)
        let hz = peak(near: b3, Array(left[(start + 2400)..<(start + 9600)]))
        XCTAssertEqual(1200 * log2(hz / b3), 0, accuracy: 1, "sounds at B3 (\(b3) Hz): \(hz) Hz")
    }

    /// Without a scale the label gives the ratio and the nearest note with its octave:
    /// x 0.55 on the linear map is ×1.10, 35 cents below B4 (the tone is A4).
    func testWithoutAScaleTheLabelNamesTheNoteWithItsOctave() throws {
        let play = try WebPlayProcess(["--web", "127.0.0.1:0"], dir: try webTestDirectory())
        let lines = try play.chromium("label", ["0.55"], driver: "layout_driver.py")
        XCTAssertEqual(play.terminate(), 0, play.stderr)
        XCTAssertEqual(lines.first { $0.first == "label" }, ["label", "×1.10_B4-35¢_g0.50"], "\(lines)")
    }
}
