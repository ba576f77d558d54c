// SPDX-License-Identifier: GPL-3.0-or-later
import BendTestSupport
import CSndFile
import Foundation
import XCTest

/// Issue 29 item 7: a user's tone is played at its own root, not assumed to be A4.
/// Through `render`, measured on the WAV it writes: the root read from the file's
/// `smpl` chunk, or found in the sound, sets where MIDI notes and the scale's root fall;
/// one note line says what was found and that `--tone-note` overrides.
final class ToneRootCommandTests: XCTestCase {
    var dir: URL!
    override func setUpWithError() throws { dir = try BinaryRunner.temporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    /// A loop of `cycles` cycles in `frames` frames (harmonics 1…3 at 0.5, 0.25,
    /// 0.125), float WAV at 48 kHz; with a `smpl` chunk of `note` and `cents` when given.
    func writeTone(_ name: String, cycles: Int, frames: Int = 48_000, note: Int8? = nil, cents: Int8 = 0) -> String {
        let path = dir.appendingPathComponent(name).path
        let samples = Measure.harmonicTone(frames: frames, cycles: cycles)
        var info = SF_INFO()
        info.samplerate = 48_000
        info.channels = 1
        info.format = Int32(SF_FORMAT_WAV | SF_FORMAT_FLOAT)
        let file = sf_open(path, Int32(SFM_WRITE), &info)!
        if let note {
            var instrument = SF_INSTRUMENT()
            instrument.gain = 1
            instrument.basenote = note
            instrument.detune = cents
            instrument.velocity_hi = 127
            instrument.key_hi = 127
            precondition(sf_command(file, Int32(SFC_SET_INSTRUMENT), &instrument, Int32(MemoryLayout<SF_INSTRUMENT>.size)) == Int32(SF_TRUE))
        }
        _ = samples.withUnsafeBufferPointer { sf_writef_float(file, $0.baseAddress, sf_count_t(frames)) }
        sf_close(file)
        return path
    }

    /// A format-0 MIDI file: `note` on channel 1 for 1 s (96 ticks a quarter at 120 bpm).
    func writeMIDI(note: UInt8) throws -> String {
        let path = dir.appendingPathComponent("note\(note).mid").path
        try Data(MIDIFileBytes.chord([note])).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Renders `script` with `options`; the fundamental (parabolic FFT peak) of the mix in
    /// 0.1…0.9 s, and stderr.
    func render(_ script: String, _ options: [String]) throws -> (hz: Double, stderr: String) {
        let out = dir.appendingPathComponent("out.wav").path
        let r = try BinaryRunner.run(["render", script, "-o", out] + options)
        XCTAssertEqual(r.status, 0, r.stderr)
        guard r.status == 0 else { return (0, r.stderr) }
        let (samples, _, _, rate) = try WAVReader.read(out)
        let mono = stride(from: Int(0.1 * 48_000) * 2, to: Int(0.9 * 48_000) * 2, by: 2).map { samples[$0] + samples[$0 + 1] }
        return (Measure.peakFrequency(mono, rate: Double(rate)), r.stderr)
    }

    func cents(_ a: Double, _ b: Double) -> Double { 1200 * log2(a / b) }

    /// A 330 Hz tone without a root in the file: YIN finds E4 + 1.96 cents; MIDI note
    /// 64 plays 329.63 Hz (±1 cent), where A4 assumed played it at 247.2 Hz; with
    /// `--scale major --scale-root 330` the pad's middle (the scale's root) is 330 Hz.
    func testA330HzToneHasItsRootFoundAndMIDINote64PlaysE4() throws {
        let tone = writeTone("e330.wav", cycles: 330)
        let (hz, stderr) = try render(try writeMIDI(note: 64), ["-t", tone])
        XCTAssertEqual(cents(hz, 329.628), 0, accuracy: 1, "\(hz) Hz")
        // With a scale, MIDI notes go through it, its root at the tone's pitch on the
        // tone's key (issue 28): key 64 plays the root, the tone as recorded.
        let (scaled, _) = try render(try writeMIDI(note: 64), ["-t", tone, "--scale", "major"])
        XCTAssertEqual(cents(scaled, 330), 0, accuracy: 1, "\(scaled) Hz")
        XCTAssertTrue(stderr.contains("note: tone '\(tone)': root E4 +2.0 cents (MIDI 64.020, 330.00 Hz), found in the sound (YIN on the loop); --tone-note N overrides"), stderr)
        let script = dir.appendingPathComponent("touch.jsonl")
        try "{\"t\":0,\"type\":\"down\",\"id\":1,\"x\":0.5,\"y\":0.8}\n{\"t\":1,\"type\":\"up\",\"id\":1}\n".write(to: script, atomically: true, encoding: .utf8)
        let (root, _) = try render(script.path, ["-t", tone, "--scale", "major", "--scale-root", "330"])
        XCTAssertEqual(cents(root, 330), 0, accuracy: 1, "\(root) Hz")
        // --tone-note overrides: 64 taken as 330 Hz exactly, so note 64 plays the tone.
        let (given, quiet) = try render(try writeMIDI(note: 64), ["-t", tone, "--tone-note", "64"])
        XCTAssertEqual(cents(given, 330), 0, accuracy: 1, "\(given) Hz")
        XCTAssertFalse(quiet.contains("root"), quiet)
    }

    /// A WAV whose `smpl` chunk says MIDI note 60 with a 35-cent pitch fraction (the
    /// sample sounds 35 cents above C4), holding a tone at 266.967 Hz (267 cycles in
    /// 48 006 frames: C4 + 35.0 cents): MIDI note 60 plays C4, 261.63 Hz (±1 cent), in
    /// tune with the tone's own stated pitch, where A4 assumed played it at 158.7 Hz;
    /// `--tone-note 60` (no fraction) plays note 60 at the tone's recorded pitch.
    func testSmplRootNote60WithFineTunePlaysC4() throws {
        let tone = writeTone("c60.wav", cycles: 267, frames: 48_006, note: 60, cents: 35)
        let (hz, stderr) = try render(try writeMIDI(note: 60), ["-t", tone])
        XCTAssertEqual(cents(hz, 261.626), 0, accuracy: 1, "\(hz) Hz")
        XCTAssertTrue(stderr.contains("root C4 +35.0 cents (MIDI 60.350, 266.97 Hz), from the file's instrument chunk; --tone-note N overrides"), stderr)
        let (unity, _) = try render(try writeMIDI(note: 60), ["-t", tone, "--tone-note", "60"])
        XCTAssertEqual(cents(unity, 267 * 48_000 / 48_006), 0, accuracy: 1, "\(unity) Hz")
    }

    /// The default tone is A4 by definition: no root line, note 69 plays 440 Hz.
    func testTheDefaultToneIsA4() throws {
        let (hz, stderr) = try render(try writeMIDI(note: 69), [])
        XCTAssertEqual(cents(hz, 440), 0, accuracy: 1, "\(hz) Hz")
        XCTAssertFalse(stderr.contains("root"), stderr)
    }
}
