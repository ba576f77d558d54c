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
        let r = try BinaryRunner.run(["play", "--no-terminal", "--script", script, "-d", "null", "--record-midi", take])
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
}
