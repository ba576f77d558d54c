// SPDX-License-Identifier: GPL-3.0-or-later
import BendTestSupport
import Foundation
import XCTest

/// `render`'s tempo (issue 36, items 1 and 3): a MIDI file's tempo map is the clock the
/// arpeggiator steps on; `--tempo-source internal` plays `--bpm` instead; the log says which.
/// The tone is a square wave whose first sample is +0.5, so each note's first non-zero
/// sample after a gap is the frame it starts on (the limiter off: its look-ahead delays the
/// output by 1 ms).
final class TempoRenderTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws {
        dir = try BinaryRunner.temporaryDirectory()
        // 480 Hz: 50 samples +0.5, 50 samples −0.5, a 1 s loop.
        let square = (0..<48_000).map { $0 % 100 < 50 ? Float(0.5) : -0.5 }
        writeSoundFile(dir.appendingPathComponent("square.wav").path, square, rate: 48_000)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    /// A format-0 file at 96 ticks a quarter: a tempo of `bpm`, then C4, E4, G4 held
    /// `quarters` quarter notes.
    func chord(bpm: Double, quarters: Int) -> [UInt8] {
        let us = Int((60e6 / bpm).rounded())
        var track: [UInt8] = [0, 0xFF, 0x51, 3, UInt8(us >> 16 & 255), UInt8(us >> 8 & 255), UInt8(us & 255)]
        for n: UInt8 in [60, 64, 67] { track += [0, 0x90, n, 100] }
        for (i, n): (Int, UInt8) in [60, 64, 67].enumerated() { track += (i == 0 ? MIDIFileBytes.quantity(96 * quarters) : [0]) + [0x80, n, 0] }
        return MIDIFileBytes.format0(track: track + [0, 0xFF, 0x2F, 0])
    }

    /// Renders `bytes` with the square tone and `options`: the left channel and stderr.
    func render(_ name: String, _ bytes: [UInt8], _ options: [String]) throws -> (left: [Float], stderr: String) {
        let input = dir.appendingPathComponent(name), out = dir.appendingPathComponent(name + ".wav").path
        try Data(bytes).write(to: input)
        let r = try BinaryRunner.run(["render", input.path, "-o", out, "--tone", dir.appendingPathComponent("square.wav").path,
                                     "--limiter", "off"] + options)
        XCTAssertEqual(r.status, 0, r.stderr)
        return (Measure.channel(try WAVReader.read(out).samples, 0), r.stderr)
    }

    /// The frames where a note starts: a non-zero sample after at least 64 zero ones.
    func onsets(_ s: [Float]) -> [Int] {
        var out: [Int] = [], zeros = 64
        for (i, v) in s.enumerated() {
            if v == 0 { zeros += 1; continue }
            if zeros >= 64 { out.append(i) }
            zeros = 0
        }
        return out
    }

    /// 100 BPM in the file, `--arp up --arp-rate 1/8`: an eighth is 0.3 s, 14 400 frames;
    /// the chord held 2 quarters (1.2 s) plays 4 notes, each on its eighth to the frame.
    func testTheMIDIFilesTempoMapIsTheArpeggiatorsClock() throws {
        let r = try render("chord100.mid", chord(bpm: 100, quarters: 2), ["--arp", "up", "--arp-rate", "1/8"])
        XCTAssertEqual(onsets(r.left), [0, 14_400, 28_800, 43_200])
        XCTAssertTrue(r.stderr.contains("tempo: the MIDI file's tempo map (100 BPM at the start)"), r.stderr)
    }

    /// `--tempo-source internal --bpm 150`: the file's 100 BPM is not followed; an eighth
    /// of 150 BPM is 9600 frames (1.2 s: 6 notes).
    func testTheInternalTempoCanLeadAMIDIFile() throws {
        let r = try render("chord100i.mid", chord(bpm: 100, quarters: 2), ["--arp", "up", "--arp-rate", "1/8", "--tempo-source", "internal", "--bpm", "150"])
        XCTAssertEqual(onsets(r.left), (0..<6).map { $0 * 9_600 })
        XCTAssertTrue(r.stderr.contains("tempo: internal, 150 BPM (--bpm)"), r.stderr)
    }

    /// `--tempo-source midi-file` with a touch script: exit 2, saying why; no file written.
    func testMIDIFileTempoWithATouchScriptIsRefused() throws {
        let script = dir.appendingPathComponent("t.jsonl"), out = dir.appendingPathComponent("t.wav").path
        try Data(#"{"t": 0, "type": "down", "id": 1, "x": 0.5, "y": 0.8}"#.utf8).write(to: script)
        let r = try BinaryRunner.run(["render", script.path, "-o", out, "--tempo-source", "midi-file"])
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("--tempo-source midi-file: the script is not a MIDI file with a tempo map"), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
    }
}
