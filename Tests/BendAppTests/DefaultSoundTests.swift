// SPDX-License-Identifier: GPL-3.0-or-later
import BendTestSupport
import Foundation
import XCTest

/// What `render` sounds like with no option (issue 38, item 1 and 2): the pad in octaves,
/// evenly spaced, in tune at rest; a master gain that leaves chords headroom and a single
/// note a healthy level. Each figure measured from the rendered file.
final class DefaultSoundTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws { dir = try BinaryRunner.temporaryDirectory() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    /// Renders `input` (a file's bytes, named `name`) with `options`: the left channel.
    func render(_ name: String, _ bytes: [UInt8], _ options: [String] = []) throws -> [Float] {
        let input = dir.appendingPathComponent(name), out = dir.appendingPathComponent(name + ".wav").path
        try Data(bytes).write(to: input)
        let r = try BinaryRunner.run(["render", input.path, "-o", out] + options)
        XCTAssertEqual(r.status, 0, r.stderr)
        return Measure.channel(try WAVReader.read(out).samples, 0)
    }

    /// Touches at x = 0.25, 0.5 and 0.75, 0.5 s each: the exponential map's two octaves put
    /// them 600 cents apart (D#4, A4, D#5), each within 1 cent. The seed's linear map
    /// played ratios 0.5, 1 and 1.5: −1200, 0, +702 cents.
    func testThePadIsInOctavesEvenlySpaced() throws {
        let lines = [0.25, 0.5, 0.75].enumerated().flatMap { i, x in [
            #"{"t": \#(Double(i) * 0.6), "type": "down", "id": \#(i + 1), "x": \#(x), "y": 0.8}"#,
            #"{"t": \#(Double(i) * 0.6 + 0.5), "type": "up", "id": \#(i + 1)}"#,
        ] }
        let left = try render("thirds.jsonl", Array((lines.joined(separator: "\n") + "\n").utf8))
        let cents = (0..<3).map { i -> Double in
            let from = Int((Double(i) * 0.6 + 0.1) * 48_000)
            let hz = Measure.peakFrequency(Array(left[from..<(from + 16_384)]), rate: 48_000)
            return 1200 * log2(hz / 440)
        }
        for (c, expected) in zip(cents, [-600.0, 0, 600]) {
            XCTAssertEqual(c, expected, accuracy: 1, "cents of the three touches: \(cents)")
        }
    }

    /// A pad touch resting 30 cents above A4 is drawn onto A4 (440 Hz within 1 cent once
    /// the 80 ms rounding has passed; 447.7 Hz unrounded), while a MIDI note bent 30 cents
    /// up stays there: rounding is the pads', never MIDI's.
    func testPadTouchesRestInTuneAndMIDIIsNotRounded() throws {
        let touch = #"{"t": 0, "type": "down", "id": 1, "x": \#(0.5 + 30.0 / 2400), "y": 0.8}"# + "\n" + #"{"t": 1, "type": "up", "id": 1}"# + "\n"
        let pad = try render("rest.jsonl", Array(touch.utf8))
        let padHz = Measure.peakFrequency(Array(pad[14_400..<(14_400 + 16_384)]), rate: 48_000)
        XCTAssertEqual(1200 * log2(padHz / 440), 0, accuracy: 1, "the pad touch, \(padHz) Hz")
        // A4, then a bend of +30 cents (2-semitone range: 8192 + 0.15 · 8192 = 9421).
        let bend = 9421
        let track: [UInt8] = [0, 0x90, 69, 100, 0, 0xE0, UInt8(bend & 0x7F), UInt8(bend >> 7), 0x81, 0x40, 0x80, 69, 0, 0, 0xFF, 0x2F, 0]
        let midi = try render("bent.mid", MIDIFileBytes.format0(track: track))
        let midiHz = Measure.peakFrequency(Array(midi[14_400..<(14_400 + 16_384)]), rate: 48_000)
        XCTAssertEqual(1200 * log2(midiHz / 440), 30, accuracy: 1, "the MIDI note, \(midiHz) Hz")
    }

    /// One note at velocity 100 sounds at −24…−12 dBFS RMS; eight at once (C4…C5, close
    /// position) peak at −3 dBFS or lower with the limiter off, so the limiter (−0.5 dBFS)
    /// does not touch them. At the seed's 0 dB (`-g 0`) the same chord peaked at +7.5 dBFS.
    func testAChordHasHeadroomAndOneNoteAHealthyLevel() throws {
        let one = try render("one.mid", MIDIFileBytes.chord([69], velocity: 100, ticks: 384), ["--limiter", "off"])
        let rms = Measure.dB(Measure.rms(one[4_800..<86_400]))
        XCTAssertGreaterThanOrEqual(rms, -24, "one note, dBFS RMS")
        XCTAssertLessThanOrEqual(rms, -12, "one note, dBFS RMS")

        let chord: [UInt8] = [60, 62, 64, 65, 67, 69, 71, 72]
        let eight = try render("eight.mid", MIDIFileBytes.chord(chord, velocity: 100, ticks: 384), ["--limiter", "off"])
        let peak = Measure.dB(Double(eight.map(abs).max() ?? 0))
        XCTAssertLessThanOrEqual(peak, -3, "8 notes at velocity 100, dBFS peak")
        XCTAssertGreaterThan(peak, -12, "8 notes are louder than one: \(peak) dBFS")
    }
}
