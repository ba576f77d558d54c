// SPDX-License-Identifier: GPL-3.0-or-later
import BendTestSupport
import Foundation
import XCTest

/// `play -a jack --midi-in` on a private jackd (dummy driver, 48 kHz, 64-frame periods):
/// a sender killed while it holds a note — the note ends within one period after its
/// connection goes (issue 38 item 4); CC 123 ends every touch of every source, a
/// script's held touch too (item 3). Measured in the recording: its level after the end.
final class JACKPanicTests: JACKTestCase {
    static let period = 64, rate = 48_000.0

    func lines(_ path: String) -> [(frame: Int, type: String)] {
        text(path).split(separator: "\n").compactMap { line in
            guard let o = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any],
                  let t = o["t"] as? Double, let type = o["type"] as? String else { return nil }
            return (Int((t * Self.rate).rounded()), type)
        }
    }

    /// Play's pid until it is stopped: a failed test kills it (tearDown).
    var running: pid_t?

    func stopPlay(_ play: (pid: pid_t, log: String)) -> Int32? {
        kill(play.pid, SIGTERM)
        defer { running = nil }
        return Spawn.wait(play.pid, seconds: 20)
    }

    override func tearDown() {
        if let running { kill(running, SIGKILL); _ = Spawn.wait(running, seconds: 5) }
        super.tearDown()
    }

    /// RMS level of frames `range` of the recording's left channel, dBFS.
    func level(_ left: [Float], _ range: Range<Int>) -> Double {
        Measure.dB(Measure.rms(left[max(range.lowerBound, 0)..<min(range.upperBound, left.count)]))
    }

    /// jack_midiseq holds a C4 for 90000 of every 96000 frames; killed (SIGKILL) while it
    /// holds it, jackd drops its connection to midi_in: play says at which stream frame,
    /// and the note has ended (release included: 8 ms) one period after that frame — the
    /// recording is silent from there on. Without the watch the note sounds until play quits.
    func testAKilledSendersNoteEndsWithinOnePeriodOfItsConnectionGoing() throws {
        let wav = dir.appendingPathComponent("killed.wav").path, touches = dir.appendingPathComponent("killed.jsonl").path
        let play = try startPlay(["-a", "jack", "--midi-in", "--no-connect", "--no-terminal", "--limiter", "off", "--record", wav,
                                  "--record-touches", touches])
        running = play.pid
        try waitUntil("play started") { text(play.log).contains("JACK client 'bendsynth'") }
        let seq = try Spawn.start(["jack_midiseq", "seq", "96000", "0", "60", "90000"])
        defer { kill(seq, SIGKILL); _ = Spawn.wait(seq, seconds: 5) }
        try waitUntil("jack_midiseq's port") { try Spawn.run(["jack_lsp"]).output.contains("seq:out") }
        try Spawn.connect("seq:out", "bendsynth:midi_in")
        try waitUntil("the note held") { text(touches).contains("\"down\"") }
        kill(seq, SIGKILL)
        _ = Spawn.wait(seq, seconds: 5)
        try waitUntil("the connection's end said") { text(play.log).contains("its last connection went") }
        try waitUntil("the note's up recorded") { text(touches).contains("\"up\"") }
        let said = try XCTUnwrap(text(play.log).split(separator: "\n").first { $0.contains("its last connection went") })
        let gone = try XCTUnwrap(Int(said.split(separator: "stream frame ").last!.prefix { $0.isNumber }), String(said))
        XCTAssertTrue(said.hasSuffix("1 note ended"), String(said))
        // Half a second more into the recording, then stop.
        try waitUntil("half a second recorded after it") {
            ((try? FileManager.default.attributesOfItem(atPath: wav)[.size] as? Int) ?? 0) > (gone + 24_000) * 8 + 44
        }
        XCTAssertEqual(stopPlay(play), 0, text(play.log))
        let downs = lines(touches).filter { $0.type == "down" }, ups = lines(touches).filter { $0.type == "up" }
        XCTAssertEqual(downs.count, 1, text(touches))
        XCTAssertEqual(ups.count, 1, text(touches))
        XCTAssertLessThanOrEqual(ups[0].frame - gone, Self.period, "the up within a period of the connection's end")
        let left = Measure.channel(try WAVReader.read(wav).samples, 0)
        let release = Int(0.008 * Self.rate) + 16
        print("killed sender: connection gone at \(gone), up at \(ups[0].frame); " + String(format: "%.1f dBFS before, %.1f dBFS after",
              level(left, (gone - 4800)..<(gone - 64)), level(left, (gone + Self.period + release)..<(gone + 24_000))))
        XCTAssertGreaterThan(level(left, (gone - 4800)..<(gone - 64)), -40, "the note sounds until its sender goes")
        XCTAssertLessThan(level(left, (gone + Self.period + release)..<(gone + 24_000)), -90,
                          "silent from one period (and the release) after the connection went")
    }

    /// CC 123 from a JACK client while its note and a script's held touch sound: both end
    /// (play says so), and the recording is silent after the releases.
    func testCC123EndsEveryTouchOfEverySource() throws {
        let script = try write("""
        {"t": 0.0, "type": "down", "id": 1, "x": 0.3, "y": 0.8}
        {"t": 60.0, "type": "end"}
        """, "held.jsonl")
        let wav = dir.appendingPathComponent("cc.wav").path, touches = dir.appendingPathComponent("cc.jsonl").path
        let play = try startPlay(["-a", "jack", "--midi-in", "--no-connect", "--no-terminal", "--limiter", "off", "--script", script,
                                  "--record", wav, "--record-touches", touches])
        running = play.pid
        // A note-on, CC 123 on channel 5 half a second later, a program change (ignored)
        // half a second after that: the recording runs on past the panic.
        let sender = try JACKMIDISender(messages: [(1000, [0x90, 69, 100]), (25_000, [0xB4, 123, 0]), (49_000, [0xC0, 0])])
        defer { sender.close() }
        try waitUntil("play started") { text(play.log).contains("JACK client 'bendsynth'") }
        XCTAssertTrue(sender.connect(to: "bendsynth:midi_in"))
        sender.arm()
        XCTAssertEqual(sender.done.wait(timeout: .now() + 20), .success, "the sender wrote every message")
        try waitUntil("both ups recorded") { lines(touches).filter { $0.type == "up" }.count == 2 }
        try waitUntil("the panic said") { text(play.log).contains("panic (MIDI CC 120/123)") }
        try waitUntil("half a second recorded after it") {
            let up = lines(touches).filter { $0.type == "up" }.map(\.frame).max() ?? .max / 2
            return ((try? FileManager.default.attributesOfItem(atPath: wav)[.size] as? Int) ?? 0) > (up + 24_000) * 8 + 44
        }
        XCTAssertEqual(stopPlay(play), 0, text(play.log))
        let ups = lines(touches).filter { $0.type == "up" }.map(\.frame)
        XCTAssertEqual(lines(touches).filter { $0.type == "down" }.count, 2, text(touches))
        XCTAssertEqual(ups.count, 2, text(touches))
        XCTAssertLessThanOrEqual(ups.max()! - ups.min()!, 5 * Self.period, "both at the panic (the MIDI note's up at its event's latency, 4 periods; the script's at the next period)")
        let left = Measure.channel(try WAVReader.read(wav).samples, 0)
        print("CC 123: ups at \(ups); " + String(format: "%.1f dBFS before, %.1f dBFS after",
              level(left, (ups.min()! - 4800)..<(ups.min()! - 64)), level(left, (ups.max()! + 512)..<(ups.max()! + 24_000))))
        XCTAssertGreaterThan(level(left, (ups.min()! - 4800)..<(ups.min()! - 64)), -40, "two voices before CC 123")
        XCTAssertLessThan(level(left, (ups.max()! + 512)..<(ups.max()! + 24_000)), -90, "silence after it")
    }
}
