// SPDX-License-Identifier: GPL-3.0-or-later
import BendTestSupport
import Foundation
import XCTest

/// Tuning messages and `--scale` live: MIDI through a real JACK MIDI port into
/// `play -a jack --midi-in` (a private jackd, dummy driver, 48 kHz), the recording's
/// notes measured by FFT. (The interpreter's reading of each message has its own tests,
/// TuningMessageTests; these check that the live path carries them to the sound.)
final class JACKTuningTests: JACKTestCase {
    /// One note-on … note-off a window: the channel, the key, and the Hz it must sound at.
    struct Note { var at: Int; var channel: UInt8; var key: UInt8; var hz: Double }
    static let noteFrames = 24_000

    /// The frequency of the strongest peak within ±3 % of `hz` (Hann, parabolic).
    func peak(near hz: Double, _ samples: ArraySlice<Float>, rate: Double = 48_000) -> Double {
        let (mags, size) = Measure.spectrum(Array(samples))
        let lo = Int(hz * 0.97 * Double(size) / rate), hi = Int(hz * 1.03 * Double(size) / rate) + 1
        var best = lo
        for i in lo...hi where mags[i] > mags[best] { best = i }
        let a = log(mags[best - 1]), b = log(mags[best]), c = log(mags[best + 1])
        let d = a - 2 * b + c
        return (Double(best) + (d == 0 ? 0 : 0.5 * (a - c) / d)) * rate / Double(size)
    }

    /// Plays `setup` messages and `notes` (each held `noteFrames`) from a JACK client into
    /// `play -a jack --midi-in` with `options`, and checks each note's pitch (±1 cent) in
    /// the recording: 0.3 s from 0.1 s after its start (notes keep their frame distances
    /// from the first, which starts at the recording's first sound).
    func check(_ options: [String], setup: [(frame: Int, bytes: [UInt8])], notes: [Note],
               file: StaticString = #filePath, line: UInt = #line) throws {
        let wav = dir.appendingPathComponent("take.wav").path, touches = dir.appendingPathComponent("take.jsonl").path
        let play = try startPlay(["-a", "jack", "--midi-in", "--no-connect", "--no-terminal", "--limiter", "off",
                                  "--record", wav, "--record-touches", touches] + options)
        var messages = setup
        for n in notes {
            messages.append((n.at, [0x90 | n.channel, n.key, 100]))
            messages.append((n.at + Self.noteFrames, [0x80 | n.channel, n.key, 64]))
        }
        messages.sort { $0.frame < $1.frame }
        let sender = try JACKMIDISender(messages: messages)
        defer { sender.close() }
        try waitUntil("play started") { text(play.log).contains("JACK client 'bendsynth'") }
        XCTAssertTrue(sender.connect(to: "bendsynth:midi_in"), file: file, line: line)
        sender.arm()
        XCTAssertEqual(sender.done.wait(timeout: .now() + 30), .success, "the sender wrote every message", file: file, line: line)
        try waitUntil("every note-off recorded") { text(touches).components(separatedBy: "\"up\"").count > notes.count }
        kill(play.pid, SIGTERM)
        XCTAssertEqual(Spawn.wait(play.pid, seconds: 20), 0, text(play.log), file: file, line: line)

        let left = Measure.channel(try WAVReader.read(wav).samples, 0)
        let start = try XCTUnwrap(left.firstIndex { $0 != 0 }, "the first note sounds", file: file, line: line)
        for n in notes {
            let from = start + n.at - notes[0].at + 4_800
            let hz = peak(near: n.hz, left[from..<(from + 14_400)])
            XCTAssertEqual(1200 * log2(hz / n.hz), 0, accuracy: 1, "\(options): channel \(n.channel + 1) key \(n.key) at \(n.hz) Hz, got \(hz) Hz",
                           file: file, line: line)
        }
    }

    /// MTS scale/octave tuning (1-byte, real time, channel 1: A +30 cents), RPN 1 on
    /// channel 2 (+50 cents), RPN 2 on channel 3 (+3 semitones), the universal master
    /// coarse tuning (−2 semitones, every channel) and then master fine tuning (+25 cents):
    /// key 69 on each channel after its message sounds at the tuned pitch.
    func testTuningSysExAndRPNsThroughJACKRetuneTheNotes() throws {
        let a4 = 440.0
        func cents(_ c: Double) -> Double { a4 * pow(2, c / 1200) }
        let scaleOctave: [UInt8] = [0xF0, 0x7F, 0x7F, 0x08, 0x08, 0x00, 0x00, 0x01] + (0..<12).map { $0 == 9 ? 64 + 30 : 64 } + [0xF7]
        let setup: [(frame: Int, bytes: [UInt8])] = [
            (1_000, scaleOctave),
            (30_000, [0xB1, 101, 0]), (30_001, [0xB1, 100, 1]), (30_002, [0xB1, 6, 96]), (30_003, [0xB1, 38, 0]),  // 12288: +50 cents
            (60_000, [0xB2, 101, 0]), (60_001, [0xB2, 100, 2]), (60_002, [0xB2, 6, 67]),  // +3 semitones
            (90_000, [0xF0, 0x7F, 0x7F, 0x04, 0x04, 0x00, 62, 0xF7]),  // master coarse: −2 semitones
            (120_000, [0xF0, 0x7F, 0x7F, 0x04, 0x03, 0x00, 80, 0xF7]),  // master fine: 10240, +25 cents
        ]
        try check([], setup: setup, notes: [
            Note(at: 2_000, channel: 0, key: 69, hz: cents(30)),
            Note(at: 31_000, channel: 1, key: 69, hz: cents(50)),
            Note(at: 61_000, channel: 2, key: 69, hz: cents(300)),
            Note(at: 91_000, channel: 3, key: 69, hz: cents(-200)),
            Note(at: 121_000, channel: 4, key: 69, hz: cents(-200 + 25)),
        ])
    }

    /// `--scale edo:17` live: 12 keys a period from A4 (the tone's pitch), each key the
    /// step nearest its 12-TET place — A#4 step 1, C5 step 4, E4 step −7 (a period down,
    /// then step 10), A5 step 17.
    func testScaleAppliesToLiveMIDIIn() throws {
        func edo17(_ step: Double) -> Double { 440 * pow(2, step / 17) }
        try check(["--scale", "edo:17"], setup: [], notes: [
            Note(at: 1_000, channel: 0, key: 70, hz: edo17(1)),
            Note(at: 30_000, channel: 0, key: 72, hz: edo17(4)),
            Note(at: 59_000, channel: 0, key: 64, hz: edo17(-7)),
            Note(at: 88_000, channel: 0, key: 81, hz: edo17(17)),
        ])
    }
}
