// SPDX-License-Identifier: GPL-3.0-or-later
import BendOSC
import BendTestSupport
import Foundation
import Glibc
import XCTest

/// The one panic (issue 38 item 3): OSC `/bendsynth/panic` and SIGUSR1 end every touch of
/// every source — a script's touch, a script's touch held by its sustain, an OSC touch —
/// measured as the instrument's voice count (`/bendsynth/voices`) and the recording's
/// level after the panic. (CC 123 through JACK: `JACKPanicTests`.)
final class PanicTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws { dir = try BinaryRunner.temporaryDirectory() }
    override func tearDown() { if let dir { try? FileManager.default.removeItem(at: dir) } }

    /// The recorded take's lines as (t, type, id).
    func lines(_ path: String) -> [(t: Double, type: String, id: Int)] {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            guard let o = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any],
                  let t = o["t"] as? Double, let type = o["type"] as? String else { return nil }
            return (t, type, (o["id"] as? Int) ?? -1)
        }
    }

    func waitForVoices(_ q: UDPClient, _ n: Int, _ what: String) throws {
        try Poll.require(what, seconds: 20) { q.voices()?.voices == n }
    }

    func testOSCPanicAndSIGUSR1EndEveryTouchOfEverySource() throws {
        // The script holds touch 1, and touch 2 by its sustain, for a minute.
        let script = dir.appendingPathComponent("held.jsonl").path
        try """
        {"t": 0.0, "type": "down", "id": 1, "x": 0.3, "y": 0.8}
        {"t": 0.05, "type": "down", "id": 2, "x": 0.45, "y": 0.8}
        {"t": 0.1, "type": "sustain", "on": true}
        {"t": 0.15, "type": "up", "id": 2}
        {"t": 60.0, "type": "end"}
        """.write(toFile: script, atomically: true, encoding: .utf8)
        let wav = dir.appendingPathComponent("take.wav").path, touches = dir.appendingPathComponent("take.jsonl").path
        let play = try OSCPlayProcess(["play", "--no-config", "--no-terminal", "-d", "null", "--limiter", "off", "--script", script,
                                       "--osc", "127.0.0.1:0", "--record", wav, "--record-touches", touches], dir: dir)
        let q = UDPClient(port: play.port)
        try waitForVoices(q, 2, "the script's two voices")
        q.send(OSCEncoder.encode("/bendsynth/touch", [.int32(7), .float(0.6), .float(0.8)])!)
        try waitForVoices(q, 3, "the OSC touch's voice too")
        // Recorded (float stereo: 8 bytes a frame) for half a second, so the level before is measured.
        func recorded(_ seconds: Double) throws {
            try Poll.require("\(seconds) s recorded") { ((try? FileManager.default.attributesOfItem(atPath: wav)[.size] as? Int) ?? 0) > Int(seconds * 48_000) * 8 + 4096 }
        }
        try recorded(0.5)

        q.send(OSCEncoder.encode("/bendsynth/panic", [])!)
        try waitForVoices(q, 0, "no voice after /bendsynth/panic")
        XCTAssertTrue(play.stderr.contains("panic (OSC /bendsynth/panic from 127.0.0.1)"), play.stderr)
        XCTAssertTrue(play.stderr.contains("every touch ended (3 touches of 2 sources)"), play.stderr)

        try Poll.require("the ups recorded") { lines(touches).filter { $0.type == "up" }.count == 3 }
        try recorded(lines(touches).filter { $0.type == "up" }.last!.t + 0.5)
        // The next touch sounds; SIGUSR1 ends it.
        q.send(OSCEncoder.encode("/bendsynth/touch", [.int32(7), .float(0.5), .float(0.8)])!)
        try waitForVoices(q, 1, "a new OSC touch after the panic")
        kill(play.process.processIdentifier, SIGUSR1)
        try waitForVoices(q, 0, "no voice after SIGUSR1")
        XCTAssertTrue(play.stderr.contains("panic (SIGUSR1): every touch ended (1 touch)"), play.stderr)
        XCTAssertEqual(play.terminate(), 0, play.stderr)

        // The take: the script's and the OSC touch's ups at the first panic, the sustain let go.
        let l = lines(touches)
        let ups = l.filter { $0.type == "up" }
        XCTAssertEqual(l.filter { $0.type == "down" }.count, 4, "\(l)")
        XCTAssertEqual(ups.count, 4, "every touch ended: \(l)")
        XCTAssertTrue(l.contains { $0.type == "sustain" }, "the sustain let go")
        let panic = try XCTUnwrap(ups.dropFirst().first?.t), next = try XCTUnwrap(l.filter { $0.type == "down" }.last?.t)
        // The recording: sounding before the panic, silent after its releases until the next touch.
        let w = try WAVReader.read(wav)
        let left = Measure.channel(w.samples, 0), rate = Double(w.rate)
        func level(_ from: Double, _ to: Double) -> Double {
            let a = min(max(Int(from * rate), 0), left.count), b = min(max(Int(to * rate), a), left.count)
            return Measure.dB(Measure.rms(left[a..<b]))
        }
        print(String(format: "panic at %.3f s: %.1f dBFS before, %.1f dBFS after (to %.3f s)", panic, level(panic - 0.3, panic - 0.02),
                     level(panic + 0.03, next - 0.01), next))
        XCTAssertGreaterThan(level(panic - 0.3, panic - 0.02), -40, "three voices before the panic")
        XCTAssertLessThan(level(panic + 0.03, next - 0.01), -90, "silence from the panic's release to the next touch (\(panic) … \(next) s)")
    }
}
