// SPDX-License-Identifier: GPL-3.0-or-later
import BendOSC
import BendTestSupport
import Foundation
import Glibc
import XCTest

/// `bendsynth play --osc` with real clients: oscsend (liblo-tools), python-osc, raw
/// datagrams of ../shared/realworld/other; the recording has the pitches asked for.
final class OSCPlayTests: XCTestCase {
    func testRealClientsPlayThePitchesAskedAndNothingSticks() throws {
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let wav = dir.appendingPathComponent("take.wav").path
        let touches = dir.appendingPathComponent("take.jsonl").path
        let play = try OSCPlayProcess(["play", "--no-terminal", "--osc", "127.0.0.1:0", "--osc-timeout", "1", "--osc-rest-timeout", "1",
                                       "--record", wav, "--record-touches", touches, "-d", "bendsynth_no_such_pcm",
                                       "--pitch-map", "linear", "--round", "off"], dir: dir)  // the pitches below are 2·x
        // Queries come from 127.0.0.2: another host, so they keep no other sender alive.
        let q = UDPClient(port: play.port, bindTo: "127.0.0.2")
        func voices() -> Int { q.voices()?.voices ?? -1 }

        // 1. oscsend: touch 1 at x = 0.25 (220 Hz), held 0.4 s, released.
        try play.oscsend(["/bendsynth/touch", "iff", "1", "0.25", "0.8"])
        try waitUntil("the oscsend voice") { voices() == 1 }
        usleep(400_000)  // the note's length, not a wait for a result
        try play.oscsend(["/bendsynth/release", "i", "1"])
        try waitUntil("the release") { voices() == 0 }

        // 2. python-osc: a TUIO cursor at x = 0.75 (660 Hz), TUIO y 0.2 = pad y 0.8, 0.4 s.
        try play.python("tuio_cursor.py", [String(play.port), "0.75", "0.2", "0.4"])
        try waitUntil("the cursor's end") { voices() == 0 }

        // 3. Wrong argument types, three times: one line, no sound.
        for _ in 0..<3 { try play.oscsend(["/bendsynth/touch", "sff", "one", "0.5", "0.5"]) }
        XCTAssertEqual(q.voices()?.touches, 0)
        XCTAssertEqual(play.stderr.components(separatedBy: "/bendsynth/touch from").count - 1, 1, play.stderr)

        // 4. The real-world datagrams as they were sent (RW-45, RW-47, RW-48), between tilt markers.
        q.send(OSCEncoder.encode("/bendsynth/tilt", [.float(0.125)])!)
        let other = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("shared/realworld/other")
        let names = try FileManager.default.contentsOfDirectory(atPath: other.path).filter { $0.hasSuffix(".osc") }.sorted()
        XCTAssertEqual(names.count, 12)
        for name in names {
            q.send([UInt8](try Data(contentsOf: other.appendingPathComponent(name))))
            usleep(name.contains("b1_") ? 1_000 : 16_000)  // LOG.md: b1 and b2 1 ms apart, the others ~16 ms
        }
        q.send(OSCEncoder.encode("/bendsynth/tilt", [.float(0.25)])!)
        XCTAssertEqual(q.voices()?.touches, 0, "every real-world touch ended")

        // 5. A sender that vanishes mid-touch: its touch ends after --osc-timeout (1 s).
        try play.python("tuio_cursor.py", [String(play.port), "0.5", "0.5", "0.2", "--vanish"])
        XCTAssertEqual(q.voices()?.touches, 1)
        try waitUntil("the timeout", seconds: 5) { q.voices()?.touches == 0 }
        XCTAssertTrue(play.stderr.contains("silent for 1.0 s: ending its 1 touch"), play.stderr)

        // 6. 3,000 hostile datagrams over the wire, then silence: nothing held (their
        // /bendsynth/touch and XY pad touches end after --osc-rest-timeout, 1 s here).
        try play.python("fuzz_wire.py", [String(play.port), "3000", "42"])
        XCTAssertNotNil(q.voices(), "still answering")
        try waitUntil("the fuzzers' touches to time out", seconds: 5) { q.voices()?.touches == 0 }
        try waitUntil("silence", seconds: 5) { voices() == 0 }

        XCTAssertEqual(play.terminate(), 0, play.stderr)
        XCTAssertFalse(play.stderr.contains("Fatal"), play.stderr)
        XCTAssertLessThan(play.stderr.split(separator: "\n").count, 60, "problems are logged once each: \(play.stderr)")

        // The touch script: the real-world part started exactly 3 touches (RW-47: 1, RW-48: 2).
        let lines = try String(contentsOfFile: touches, encoding: .utf8).split(separator: "\n")
        let start = try XCTUnwrap(lines.firstIndex { $0.contains("\"tilt\"") && $0.contains("0.125") })
        let end = try XCTUnwrap(lines.firstIndex { $0.contains("\"tilt\"") && $0.contains("0.25") })
        XCTAssertEqual(lines[start..<end].filter { $0.contains("\"down\"") }.count, 3)
        XCTAssertEqual(lines.filter { $0.contains("\"down\"") }.count, lines.filter { $0.contains("\"up\"") }.count, "every touch ended")

        // The recording: the first two notes at the pitches asked for.
        let notes = try sounding(wav)
        XCTAssertGreaterThanOrEqual(notes.count, 2)
        print("osc take: " + notes.prefix(2).map { String(format: "%.1f Hz for %.2f s at %.1f dBFS RMS", $0.frequency, $0.seconds, Measure.dB($0.rms)) }.joined(separator: "; "))
        XCTAssertEqual(notes[0].frequency, 220, accuracy: 2, "oscsend x = 0.25")
        XCTAssertEqual(notes[1].frequency, 660, accuracy: 5, "python-osc TUIO x = 0.75")
        XCTAssertEqual(notes[0].seconds, 0.45, accuracy: 0.2, "held 0.4 s, released by a second oscsend (another port, same host)")
        XCTAssertEqual(notes[1].seconds, 0.4, accuracy: 0.15, "the cursor's 0.4 s")
        XCTAssertEqual(Measure.dB(notes[1].rms / notes[0].rms), 0, accuracy: 1, "both at y = 0.8")
    }

    /// Issue 16: with the default timeouts, a TouchOSC-style finger resting on an XY pad
    /// (its app sends nothing while it rests) sounds on past the 2 s that end a silent TUIO
    /// tracker's cursor, and ends on its own z = 0.
    func testRestingTouchOSCFingerOutlivesTheTUIOTimeout() throws {
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let play = try OSCPlayProcess(["play", "--no-terminal", "--osc", "127.0.0.1:0",
                                       "--record", dir.appendingPathComponent("t.wav").path, "-d", "bendsynth_no_such_pcm"], dir: dir)
        XCTAssertTrue(play.stderr.contains("TUIO touches end after 2 s of silence, other touches on their release or after 300 s of silence"), play.stderr)
        let q = UDPClient(port: play.port, bindTo: "127.0.0.2")   // queries from another host
        let phone = UDPClient(port: play.port)
        phone.send(OSCEncoder.encode("/bendsynth/xy/1", [.float(0.5), .float(0.5), .float(1)])!)
        try play.python("tuio_cursor.py", [String(play.port), "0.25", "0.5", "0.1", "--vanish"])
        try waitUntil("both touches") { q.voices()?.touches == 2 }
        try waitUntil("the silent tracker's cursor to end (2 s)", seconds: 10) { q.voices()?.touches == 1 }
        usleep(1_000_000)  // the finger rests on: 3 s or more in all
        XCTAssertEqual(q.voices()?.touches, 1, "the resting finger sounds on")
        XCTAssertFalse(play.stderr.contains("ending its 1 resting touch"), play.stderr)
        phone.send(OSCEncoder.encode("/bendsynth/xy/1/z", [.float(0)])!)
        try waitUntil("the finger's own release") { q.voices()?.touches == 0 }
        XCTAssertEqual(play.terminate(), 0, play.stderr)
    }

    /// The sounding stretches of a recording's left channel (10 ms windows above
    /// −40 dBFS): each one's peak frequency (its middle), length and RMS.
    func sounding(_ path: String) throws -> [(frequency: Double, seconds: Double, rms: Double)] {
        let left = try readLeft(path)
        let window = 480
        var runs: [Range<Int>] = []
        var runStart: Int?
        for w in 0..<(left.count / window) {
            let loud = Measure.rms(left[(w * window)..<((w + 1) * window)]) > 0.01
            if loud, runStart == nil { runStart = w }
            if !loud, let s = runStart { runs.append(s..<w); runStart = nil }
        }
        return runs.filter { $0.count >= 10 }.map { r in
            let a = (r.lowerBound + 3) * window, b = (r.upperBound - 3) * window
            let middle = Array(left[a..<b])
            return (Measure.peakFrequency(middle, rate: 48_000), Double(r.count) * 0.01, Measure.rms(middle))
        }
    }

    /// The left channel of a stereo WAV.
    func readLeft(_ path: String) throws -> [Float] {
        let wav = try WAVReader.read(path)
        return stride(from: 0, to: wav.samples.count, by: wav.channels).map { wav.samples[$0] }
    }
}
