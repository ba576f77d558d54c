// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendMIDI
import BendTestSupport
import Foundation
import XCTest

/// `render FILE.mid`, `play --script FILE.mid` and `--record-midi`, through the binary.
final class MIDIFileCommandTests: XCTestCase {
    private let fixtures = BinaryRunner.packageRoot.appendingPathComponent("Tests/BendMIDITests/Fixtures")

    /// The frequency of the strongest peak within ±0.5 % of `hz` in samples[from..<to] s.
    private func peak(near hz: Double, _ samples: [Float], from: Double, to: Double, rate: Double = 48_000) -> Double {
        let window = Array(samples[Int(from * rate)..<Int(to * rate)])
        let (mags, size) = Measure.spectrum(window)
        let lo = Int(hz * 0.995 * Double(size) / rate), hi = Int(hz * 1.005 * Double(size) / rate) + 1
        var best = lo
        for i in lo...hi where mags[i] > mags[best] { best = i }
        let a = log(mags[best - 1]), b = log(mags[best]), c = log(mags[best + 1])
        let d = a - 2 * b + c
        return (Double(best) + (d == 0 ? 0 : 0.5 * (a - c) / d)) * rate / Double(size)
    }

    /// A MIDI file is known by its header, not its name: the 17-EDO MPE file as `.smf`
    /// renders with the default tone (A4) at its frequencies, ±0.1 %.
    func testRenderMIDIFileByItsHeaderWhateverTheExtension() throws {
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let smf = dir.appendingPathComponent("seventeen.smf")
        try FileManager.default.copyItem(at: fixtures.appendingPathComponent("mido-mpe-17edo.mid"), to: smf)
        let wav = dir.appendingPathComponent("out.wav").path
        let r = try BinaryRunner.run(["render", smf.path, "-o", wav])
        XCTAssertEqual(r.status, 0, r.stderr)
        let left = Measure.channel(try WAVReader.read(wav).samples, 0)
        for (i, step) in [0, 2, 5, 7, 10, 13, 17, -7].enumerated() {
            let hz = 440 * pow(2, Double(step) / 17)
            XCTAssertEqual(peak(near: hz, left, from: 0.4 * Double(i) + 0.05, to: 0.4 * Double(i + 1) - 0.01) / hz, 1, accuracy: 0.001, "step \(step)")
        }
    }

    /// A malformed MIDI file: exit 2, the file, byte offset and what was expected named,
    /// no output file.
    func testMalformedMIDIFileExitsTwoNamingTheOffset() throws {
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let good = [UInt8](try Data(contentsOf: fixtures.appendingPathComponent("mido-format0-tempo.mid")))
        let cases: [(String, [UInt8], String)] = [
            ("cut.mid", Array(good.prefix(40)), "byte 18: truncated chunk"),
            ("nostatus.midi", Array(good.prefix(22)) + [0, 60, 100, 0, 0xFF, 0x2F, 0], "byte 23: expected a status byte (running status with no status"),
        ]
        for (name, bytes, message) in cases {
            let path = dir.appendingPathComponent(name).path
            // The chunk length of the second case is left as it was: fix it up.
            var b = bytes
            if name == "nostatus.midi" { b[21] = UInt8(b.count - 22) }
            try Data(b).write(to: URL(fileURLWithPath: path))
            let wav = dir.appendingPathComponent("out.wav").path
            let r = try BinaryRunner.run(["render", path, "-o", wav])
            XCTAssertEqual(r.status, 2, r.stderr)
            XCTAssertTrue(r.stderr.contains("\(path): \(message)"), r.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: wav), "no output file")
            let p = try BinaryRunner.run(["play", "--no-terminal", "--script", path, "-d", "null", "--record", wav])
            XCTAssertEqual(p.status, 2, p.stderr)
            XCTAssertTrue(p.stderr.contains(message), p.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: wav), "no recording")
        }
        let bad = try BinaryRunner.run(["render", "x.mid", "-o", "y.wav", "--tone-note", "128"])
        XCTAssertEqual(bad.status, 2, bad.stderr)
    }

    /// `render` of a file whose End-of-Track comes after its last sound lasts until the
    /// file's end (within 1 ms), not until the last release; silence included (issue 28).
    func testRenderLastsUntilTheLastEndOfTrack() throws {
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for (name, length) in [("mido-eot-after-note.mid", 1.5), ("mido-silence-eot.mid", 5.0), ("mido-format1-late-eot.mid", 2.75)] {
            let wav = dir.appendingPathComponent(name + ".wav").path
            let r = try BinaryRunner.run(["render", fixtures.appendingPathComponent(name).path, "-o", wav])
            XCTAssertEqual(r.status, 0, r.stderr)
            let frames = try WAVReader.read(wav).samples.count / 2
            XCTAssertEqual(Double(frames) / 48_000, length, accuracy: 0.001, "\(name): \(frames) frames")
        }
    }

    /// An empty file, a .mid that is not MIDI, a file that is neither MIDI nor JSON, a
    /// script of blank lines and a MIDI file that holds nothing: exit 2, the file and
    /// what it is not named, no output file (issue 28: a 0-byte .mid rendered an empty WAV).
    func testEmptyAndNonMIDIFilesExitTwoWithNoOutput() throws {
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let script = Array(#"{"t": 0, "type": "down", "id": 1, "x": 0.5, "y": 1}"#.utf8) + [0x0A]
        let nothing = MIDIFileBytes.format0(track: [0, 0xFF, 0x2F, 0])
        let cases: [(String, [UInt8], String)] = [
            ("empty.mid", [], "empty file (0 bytes)"),
            ("empty.jsonl", [], "empty file (0 bytes)"),
            ("empty", [], "empty file (0 bytes)"),
            ("text.mid", Array("hello\n".utf8), "not a MIDI file (no MThd header)"),
            ("script.MIDI", script, "not a MIDI file (no MThd header)"),
            ("sound.smf", Array("RIFF".utf8) + [0, 0, 0, 0], "not a MIDI file (no MThd header)"),
            ("noise.bin", Array("RIFF".utf8) + [0, 0, 0, 0], "not a MIDI file (no MThd header), nor a touch script"),
            ("hello", Array("hello\n".utf8), "not a MIDI file (no MThd header), nor a touch script"),
            ("blank.jsonl", Array("\n \n".utf8), "no events"),
            ("nothing.mid", nothing, "a MIDI file with no events that lasts 0 s"),
        ]
        for (name, bytes, message) in cases {
            let path = dir.appendingPathComponent(name).path
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let wav = dir.appendingPathComponent("out.wav").path
            let r = try BinaryRunner.run(["render", path, "-o", wav])
            XCTAssertEqual(r.status, 2, "\(name): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("\(path): \(message)"), "\(name): \(r.stderr)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: wav), "\(name): no output file")
            let p = try BinaryRunner.run(["play", "--no-terminal", "--script", path, "-d", "null", "--record", wav])
            XCTAssertEqual(p.status, 2, "\(name): \(p.stderr)")
            XCTAssertTrue(p.stderr.contains(message), "\(name): \(p.stderr)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: wav), "\(name): no recording")
        }
    }

    /// A live take's touches (a touch script played on `-d null`) written as MPE by
    /// --record-midi: the MCM first, pitches within 1 cent of the touches'; the take
    /// played back as a MIDI file (`play --script take.mid --record`) sounds at them.
    func testRecordMIDIWritesTheTakeAsMPE() throws {
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let script = dir.appendingPathComponent("take.jsonl").path
        try """
        {"t": 0.0, "type": "down", "id": 1, "x": 0.5, "y": 0.8}
        {"t": 0.3, "type": "move", "id": 1, "x": 0.75, "y": 0.8}
        {"t": 0.6, "type": "up", "id": 1}
        {"t": 0.6, "type": "tilt", "value": 1.0}
        """.write(toFile: script, atomically: true, encoding: .utf8)
        let take = dir.appendingPathComponent("take.mid").path
        // The seed's linear map, unrounded: x 0.75 is ratio 1.5, one bend at the move.
        let r = try BinaryRunner.run(["play", "--no-terminal", "--script", script, "-d", "null", "--record-midi", take, "--pitch-map", "linear", "--round", "off"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let file = try StandardMIDIFile.parse([UInt8](try Data(contentsOf: URL(fileURLWithPath: take))))
        let messages = file.timedMessages()
        XCTAssertEqual(messages.prefix(3).map(\.message), [.controlChange(0, 101, 0), .controlChange(0, 100, 6), .controlChange(0, 6, 15)])
        var decoder = MIDIInterpreter()
        var ratios: [(Double, Double)] = []
        var phases: [TouchPhase] = []
        for (t, m) in messages {
            decoder.interpret(m) { e in
                guard case let .pitched(_, phase, ratio, gain, _) = e else { return }
                phases.append(phase)
                if phase != .up { ratios.append((t, ratio)); XCTAssertEqual(gain, 0.8, accuracy: 0.5 / 127) }
            }
        }
        XCTAssertEqual(phases.first, .down)
        XCTAssertEqual(phases.last, .up)
        XCTAssertEqual(cents(ratios.first!.1, 1), 0, accuracy: 1)
        XCTAssertEqual(cents(ratios.last!.1, 1.5), 0, accuracy: 1)
        XCTAssertEqual(ratios.last!.0 - ratios.first!.0, 0.3, accuracy: 0.001, "the move 0.3 s after the down")
        XCTAssertEqual(messages.last(where: { $0.message.kind == 0xB0 && $0.message.data1 == 10 })?.message, .controlChange(0, 10, 127))

        // Played back live (`play --script take.mid`, recorded) and rendered: 440 Hz, then 660 Hz.
        let live = dir.appendingPathComponent("live.wav").path
        let played = try BinaryRunner.run(["play", "--no-terminal", "--script", take, "-d", "null", "--record", live])
        XCTAssertEqual(played.status, 0, played.stderr)
        let wav = dir.appendingPathComponent("back.wav").path
        let back = try BinaryRunner.run(["render", take, "-o", wav])
        XCTAssertEqual(back.status, 0, back.stderr)
        for path in [live, wav] {
            let left = Measure.channel(try WAVReader.read(path).samples, 0)
            XCTAssertEqual(peak(near: 440, left, from: 0.05, to: 0.28) / 440, 1, accuracy: 0.001, path)
            XCTAssertEqual(peak(near: 660, left, from: 0.35, to: 0.58) / 660, 1, accuracy: 0.001, path)
        }
    }

    private func cents(_ a: Double, _ b: Double) -> Double { 1200 * log2(a / b) }

    /// CC 64 is the sustain control: `render` of a file whose note-off comes while the
    /// pedal is down keeps the note sounding until the pedal lifts (RMS in dB), then it
    /// ends within the release (8 ms).
    func testTheSustainPedalHoldsANoteUntilItLifts() throws {
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // 96 ticks a quarter at 120 bpm: a tick is 1/192 s. Pedal down and A4 on at 0,
        // note-off at 0.25 s, pedal up at 1.0 s, the end at 1.25 s. `controller` 64, or 1
        // (the mod wheel, unused) for the same file without a pedal.
        func file(controller: UInt8) -> [UInt8] {
            let track: [UInt8] = [0x00, 0xB0, controller, 0x7F, 0x00, 0x90, 0x45, 0x64, 0x30, 0x80, 0x45, 0x00,
                                  0x81, 0x10, 0xB0, controller, 0x00, 0x30, 0xFF, 0x2F, 0x00]
            return MIDIFileBytes.format0(track: track)
        }
        /// The level while the pedal holds the note (dB) and when the sound ends (s).
        func levels(_ controller: UInt8) throws -> (held: Double, end: Double) {
            let mid = dir.appendingPathComponent("pedal\(controller).mid"), wav = dir.appendingPathComponent("pedal\(controller).wav").path
            try Data(file(controller: controller)).write(to: mid)
            let r = try BinaryRunner.run(["render", mid.path, "-o", wav])
            XCTAssertEqual(r.status, 0, r.stderr)
            let left = Measure.channel(try WAVReader.read(wav).samples, 0)
            func dB(_ a: Double, _ b: Double) -> Double {
                let from = Int(a * 48_000), to = min(Int(b * 48_000), left.count)
                return from < to ? Measure.dB(Measure.rms(left[from..<to])) : -.infinity  // the render ended before
            }
            let last = left.lastIndex { abs($0) > 1e-4 } ?? 0
            return (dB(0.3, 0.95), Double(last) / 48_000)
        }
        let pedal = try levels(64), none = try levels(1)
        XCTAssertGreaterThan(pedal.held, -30, "the pedal holds the released note (one note at the default −11 dB: −24 dBFS)")
        XCTAssertEqual(pedal.end, 1.004, accuracy: 0.006, "it ends within the release (8 ms) once the pedal lifts at 1.0 s")
        XCTAssertLessThan(none.held, -100, "without the pedal the note-off ends it")
        XCTAssertEqual(none.end, 0.254, accuracy: 0.006, "the note-off at 0.25 s ends it")
    }
}
