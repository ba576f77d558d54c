// SPDX-License-Identifier: GPL-3.0-or-later
import BendTestSupport
import Foundation
import XCTest

/// `play -a jack --midi-in` and `--midi-out` on a private jackd (dummy driver, 48 kHz,
/// 64-frame periods): notes and bends from a test client and from `jack_midiseq` become
/// touches at their exact frames (whole periods later) and sound at their pitch; a touch
/// script comes out of `midi_out` as MPE that `jack_midi_dump` reads.
final class JACKMIDITests: JACKTestCase {
    static let period = 64

    /// A recorded touch script's lines, as JSON objects.
    func lines(_ path: String) throws -> [[String: Any]] {
        try text(path).split(separator: "\n").map {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    func frame(_ line: [String: Any]) -> Int { Int((((line["t"] as? Double) ?? -1) * 48_000).rounded()) }

    /// Waits until play has started (its output line), then for `ports` to exist.
    func waitForPlay(_ play: (pid: pid_t, log: String)) throws {
        try waitUntil("play started") { text(play.log).contains("JACK client 'bendsynth'") }
    }

    /// Stops play (SIGTERM: the MIDI input never ends by itself) and returns its status.
    func stopPlay(_ play: (pid: pid_t, log: String)) -> Int32? {
        kill(play.pid, SIGTERM)
        return Spawn.wait(play.pid, seconds: 20)
    }

    /// A note-on at offset 1037 of the sender's stream, a bend of +1 semitone (±2, the
    /// non-MPE default) 24005 frames later, a note-off 24011 frames after that: the
    /// touches are recorded with exactly these frame distances, the first takes effect
    /// at the same offset in a period (whole periods after it arrived), and the WAV sounds
    /// 440 Hz, then 466.16 Hz (±0.1 %).
    ///
    /// Under load: while the messages come, a busy loop on every core (and one more) runs
    /// at nice −10, so an ordinary thread wakes late; the offset is still exact and no
    /// event is late. (The load stops once the note-off is recorded: play's start and
    /// stop under it took longer than the test waits.)
    func testMIDIInFromAJACKClientIsSampleAccurateAndSoundsAtItsPitch() throws {
        var busy: [pid_t] = []
        func stopLoad() {
            for pid in busy { kill(pid, SIGKILL); _ = Spawn.wait(pid, seconds: 5) }
            busy = []
        }
        defer { stopLoad() }
        let wav = dir.appendingPathComponent("in.wav").path, touches = dir.appendingPathComponent("in.jsonl").path
        // `--limiter off`: the limiter's 1 ms look-ahead would delay the sound by 47
        // frames; this measures where the engine puts the note.
        let play = try startPlay(["-a", "jack", "--midi-in", "--no-connect", "--no-terminal", "--limiter", "off", "--record", wav, "--record-touches", touches])
        let sender = try JACKMIDISender(messages: [(1037, [0x90, 69, 127]), (1037 + 24005, [0xE0, 0x00, 0x60]),
                                                    (1037 + 24005 + 24011, [0x80, 69, 64])])
        defer { sender.close() }
        try waitForPlay(play)
        XCTAssertTrue(sender.connect(to: "bendsynth:midi_in"))
        busy = try (0...ProcessInfo.processInfo.activeProcessorCount).map { _ in try Spawn.start(["nice", "-n", "-10", "sh", "-c", "while :; do :; done"]) }
        sender.arm()
        XCTAssertEqual(sender.done.wait(timeout: .now() + 20), .success, "the sender wrote every message")
        try waitUntil("the note-off recorded") { text(touches).contains("\"up\"") }
        stopLoad()
        XCTAssertEqual(stopPlay(play), 0, text(play.log))
        XCTAssertTrue(text(play.log).contains("MIDI in: 3 JACK events"), text(play.log))
        XCTAssertFalse(text(play.log).contains("late"), "no event came after its period was rendered: \(text(play.log))")

        let l = try lines(touches)
        XCTAssertEqual(l.map { $0["type"] as? String }, ["down", "move", "up", "end"])
        XCTAssertEqual(l[0]["ratio"] as? Double ?? 0, 1, accuracy: 1e-6)
        XCTAssertEqual(l[0]["gain"] as? Double ?? 0, 1, accuracy: 1e-6)
        XCTAssertEqual(l[1]["ratio"] as? Double ?? 0, pow(2, 1.0 / 12), accuracy: 1e-5)
        XCTAssertEqual(frame(l[1]) - frame(l[0]), 24005, "frames between note-on and bend")
        XCTAssertEqual(frame(l[2]) - frame(l[1]), 24011, "frames between bend and note-off")

        let w = try WAVReader.read(wav)
        let left = Measure.channel(w.samples, 0)
        let start = try XCTUnwrap(left.firstIndex { $0 != 0 }, "the note sounds")
        // The stream and the sender share the server's 64-frame grid: arrived at offset
        // 1037 % 64 = 13, played whole periods later at the same offset (the attack's first
        // sample is 0, so the first nonzero one may be the next).
        XCTAssertTrue([13, 14].contains(start % Self.period), "first sounding frame \(start), offset \(start % Self.period) in its period")
        let a4 = Measure.peakFrequency(Array(left[(start + 4800)..<(start + 4800 + 9600)]), rate: 48_000)
        let bent = Measure.peakFrequency(Array(left[(start + 24005 + 4800)..<(start + 24005 + 4800 + 9600)]), rate: 48_000)
        XCTAssertEqual(a4, 440, accuracy: 0.44, "A4 (note 69 = the tone's pitch)")
        XCTAssertEqual(bent, 440 * pow(2, 1.0 / 12), accuracy: 0.47, "bent up a semitone")
    }

    /// Debian's jack_midiseq loops a C4 (note 60) of 12000 frames every 24000 frames:
    /// the touches come at ratio 2^(−9/12) (the tone is A4) exactly that far apart, and
    /// the WAV sounds 261.63 Hz (±0.1 %).
    func testMIDIInFromJackMidiseq() throws {
        let wav = dir.appendingPathComponent("seq.wav").path, touches = dir.appendingPathComponent("seq.jsonl").path
        // `--limiter off`: the limiter's 1 ms look-ahead would delay the sound by 47
        // frames; this measures where the engine puts the note.
        let play = try startPlay(["-a", "jack", "--midi-in", "--no-connect", "--no-terminal", "--limiter", "off", "--record", wav, "--record-touches", touches])
        try waitForPlay(play)
        let seq = try Spawn.start(["jack_midiseq", "seq", "24000", "1000", "60", "12000"])
        defer { kill(seq, SIGTERM); _ = Spawn.wait(seq, seconds: 5) }
        try waitUntil("jack_midiseq's port") { try Spawn.run(["jack_lsp"]).output.contains("seq:out") }
        try Spawn.connect("seq:out", "bendsynth:midi_in")
        try waitUntil("two notes recorded") { text(touches).components(separatedBy: "\"up\"").count > 2 }
        XCTAssertEqual(stopPlay(play), 0, text(play.log))
        let l = try lines(touches).filter { $0["type"] as? String != "move" }
        XCTAssertGreaterThanOrEqual(l.count, 4)
        XCTAssertEqual(l.prefix(4).map { $0["type"] as? String }, ["down", "up", "down", "up"])
        XCTAssertEqual(l[0]["ratio"] as? Double ?? 0, pow(2, -9.0 / 12), accuracy: 1e-5)
        XCTAssertEqual(frame(l[1]) - frame(l[0]), 12000)
        XCTAssertEqual(frame(l[2]) - frame(l[0]), 24000)
        let left = Measure.channel(try WAVReader.read(wav).samples, 0)
        let start = try XCTUnwrap(left.firstIndex { $0 != 0 }, "the note sounds")
        let c4 = Measure.peakFrequency(Array(left[(start + 1200)..<(start + 1200 + 9600)]), rate: 48_000)
        XCTAssertEqual(c4, 440 * pow(2, -9.0 / 12), accuracy: 0.26, "C4")
    }

    /// One jack_midi_dump line: its time in the cycle and its bytes.
    struct Dumped: Equatable { var time: Int; var bytes: [Int] }

    func dumped(_ output: String) -> [Dumped] {
        output.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, let time = Int(parts[0].trimmingCharacters(in: .whitespaces)) else { return nil }
            var bytes: [Int] = []
            for token in parts[1].split(separator: " ") {
                guard token.count == 2, let b = Int(token, radix: 16) else { break }
                bytes.append(b)
            }
            return bytes.isEmpty ? nil : Dumped(time: time, bytes: bytes)
        }
    }

    /// A touch script played with --midi-out, read by jack_midi_dump: the MCM first, one
    /// member channel per touch, the bend before each note-on, each pitch decoded from
    /// note + bend at ±48 within 1 cent of the touch's (linear map: ratio 2x), note-offs
    /// at the releases, and every message at its touch's frame offset in the period.
    func testMIDIOutCarriesTouchesAsMPE() throws {
        let script = try write("""
        {"t": 3.30013, "type": "down", "id": 1, "x": 0.25, "y": 0.8}
        {"t": 3.40021, "type": "move", "id": 1, "x": 0.3, "y": 0.7}
        {"t": 3.45, "type": "down", "id": 2, "x": 0.6, "y": 0.5}
        {"t": 3.70007, "type": "up", "id": 1}
        {"t": 3.80051, "type": "down", "id": 3, "x": 0.9123, "y": 0.3}
        {"t": 3.95, "type": "up", "id": 2}
        {"t": 4.0, "type": "up", "id": 3}
        """, "out.jsonl")
        // The touches start 3 s in: the test connects midi_out to the dump while play
        // runs, and messages sent before that are lost. At 0.3 s a loaded machine's
        // jack_lsp/jack_connect came after the whole script (play had ended: jack_connect 1).
        let dumpLog = dir.appendingPathComponent("dump.txt").path
        let dump = try Spawn.start(["jack_midi_dump", "dump"], output: dumpLog)
        defer { kill(dump, SIGTERM); _ = Spawn.wait(dump, seconds: 5) }
        // The seed's linear map, unrounded: the expected pitches below are 2·x.
        let play = try startPlay(["-a", "jack", "--midi-out", "--no-connect", "--no-terminal", "--script", script, "--pitch-map", "linear", "--round", "off"])
        try waitUntil("midi_out and the dump's port") {
            let ports = try Spawn.run(["jack_lsp"]).output
            return ports.contains("bendsynth:midi_out") && ports.contains("dump:input")
        }
        try Spawn.connect("bendsynth:midi_out", "dump:input")
        // On failure the message carries play's and jackd's output (a rare failure in full
        // runs: play exited 1 with nothing on its stderr; see the closing note).
        XCTAssertEqual(Spawn.wait(play.pid, seconds: 30), 0, "play: <\(text(play.log))>; jackd: <\(server?.log ?? "")>")
        try waitUntil("three note-offs dumped") { dumped(text(dumpLog)).filter { $0.bytes[0] & 0xF0 == 0x80 }.count >= 3 }
        let m = dumped(text(dumpLog))
        XCTAssertEqual(m.prefix(3).map(\.bytes), [[0xB0, 101, 0], [0xB0, 100, 6], [0xB0, 6, 15]], "the MCM first: lower zone, 15 members")

        let period = Self.period
        func offset(_ t: Double) -> Int { Int((t * 48_000).rounded()) % period }
        var bend = [Int](repeating: 8192, count: 16)
        var noteOn: [(channel: Int, note: Int, ratio: Double, time: Int)] = []
        var bendSinceNote = [Bool](repeating: false, count: 16)
        var moves: [(channel: Int, ratio: Double, time: Int)] = []
        var offs: [(channel: Int, note: Int, time: Int)] = []
        var sounding = [Int: Int]()  // channel → note
        for d in m where d.bytes.count == 3 {
            let kind = d.bytes[0] & 0xF0, ch = d.bytes[0] & 0x0F
            func ratio(_ note: Int) -> Double { pow(2, (Double(note) + Double(bend[ch] - 8192) / 8192 * 48 - 69) / 12) }
            switch kind {
            case 0xE0:
                bend[ch] = d.bytes[1] | d.bytes[2] << 7
                bendSinceNote[ch] = true
                if let n = sounding[ch] { moves.append((ch, ratio(n), d.time)) }
            case 0x90 where d.bytes[2] > 0:
                XCTAssertTrue(bendSinceNote[ch], "a pitch bend before the note-on on channel \(ch)")
                XCTAssertNil(sounding[ch], "channel \(ch) is free")
                noteOn.append((ch, d.bytes[1], ratio(d.bytes[1]), d.time))
                sounding[ch] = d.bytes[1]
                bendSinceNote[ch] = false
            case 0x80:
                offs.append((ch, d.bytes[1], d.time))
                XCTAssertEqual(sounding[ch], d.bytes[1], "the note-off ends the channel's note")
                sounding[ch] = nil
                bendSinceNote[ch] = false
            default: break
            }
        }
        XCTAssertEqual(noteOn.count, 3)
        XCTAssertEqual(Set(noteOn.map(\.channel)).count, 3, "one member channel per touch")
        XCTAssertTrue(noteOn.allSatisfy { (1...15).contains($0.channel) }, "member channels 2…16")
        func cents(_ a: Double, _ b: Double) -> Double { abs(1200 * log2(a / b)) }
        for (on, x) in zip(noteOn, [0.25, 0.6, 0.9123]) { XCTAssertLessThan(cents(on.ratio, 2 * x), 1, "touch at x \(x)") }
        XCTAssertEqual(noteOn.map(\.time), [offset(3.30013), offset(3.45), offset(3.80051)], "note-ons at their frames' offsets")
        let move = try XCTUnwrap(moves.first { $0.channel == noteOn[0].channel })
        XCTAssertLessThan(cents(move.ratio, 0.6), 1, "the move's bend")
        XCTAssertEqual(move.time, offset(3.40021))
        XCTAssertEqual(offs.map(\.channel), [noteOn[0].channel, noteOn[1].channel, noteOn[2].channel], "note-offs in release order")
        XCTAssertEqual(offs.map(\.time), [offset(3.70007), offset(3.95), offset(4.0)], "note-offs at the releases' offsets")
    }

    /// A script stopped early (SIGINT, as Ctrl-C) with --midi-out: its touch rises in
    /// pitch for 7 s and a second touch would start at 11 s; stopped a few moves in,
    /// midi_out carries exactly what was played (the take's touch script says what):
    /// one note-on, a bend for each move played and none after (the last bend is the
    /// last move played's pitch, within 1 cent), no second note, and the note's note-off
    /// last. Before the fix, MIDI out sent the whole script after the stop.
    func testMIDIOutOfAScriptStoppedEarlySendsNothingPastTheStop() throws {
        var lines = [#"{"t": 3.3, "type": "down", "id": 1, "x": 0.25, "y": 0.8}"#]
        for k in 1...140 { lines.append(#"{"t": \#(3.3 + 0.05 * Double(k)), "type": "move", "id": 1, "x": \#(0.25 + 0.0025 * Double(k)), "y": 0.8}"#) }
        lines += [#"{"t": 11.0, "type": "down", "id": 2, "x": 0.5, "y": 0.8}"#, #"{"t": 12.0, "type": "up", "id": 1}"#, #"{"t": 12.5, "type": "up", "id": 2}"#]
        let script = try write(lines.joined(separator: "\n") + "\n", "long.jsonl")
        let take = dir.appendingPathComponent("take.jsonl").path
        let dumpLog = dir.appendingPathComponent("dump.txt").path
        let dump = try Spawn.start(["jack_midi_dump", "dump"], output: dumpLog)
        defer { kill(dump, SIGTERM); _ = Spawn.wait(dump, seconds: 5) }
        // The seed's linear map, unrounded: one bend per move of the script (hold's glides
        // onto a step would add theirs), its pitch 2·x.
        let play = try startPlay(["-a", "jack", "--midi-out", "--no-connect", "--no-terminal", "--script", script, "--record-touches", take, "--pitch-map", "linear", "--round", "off"])
        try waitUntil("midi_out and the dump's port") {
            let ports = try Spawn.run(["jack_lsp"]).output
            return ports.contains("bendsynth:midi_out") && ports.contains("dump:input")
        }
        try Spawn.connect("bendsynth:midi_out", "dump:input")
        func kinds(_ kind: Int) -> [Dumped] { dumped(text(dumpLog)).filter { $0.bytes.count == 3 && $0.bytes[0] & 0xF0 == kind } }
        try waitUntil("the note and ten bends dumped") { kinds(0x90).count >= 1 && kinds(0xE0).count >= 11 }
        kill(play.pid, SIGINT)
        XCTAssertEqual(Spawn.wait(play.pid, seconds: 30), 0, text(play.log))
        try waitUntil("the note-off dumped (every note sent must end)") { kinds(0x80).count >= 1 }

        let played = try self.lines(take)
        let moves = played.filter { $0["type"] as? String == "move" }
        XCTAssertEqual(played.filter { $0["type"] as? String == "down" }.count, 1, "one touch played")
        XCTAssertLessThan(moves.count, 100, "stopped early")
        let m = dumped(text(dumpLog)).filter { $0.bytes.count == 3 }
        let ons = m.indices.filter { m[$0].bytes[0] & 0xF0 == 0x90 && m[$0].bytes[2] > 0 }
        XCTAssertEqual(ons.count, 1, "one note-on: the second touch was after the stop")
        let on = try XCTUnwrap(ons.first)
        let channel = m[on].bytes[0] & 0x0F, note = m[on].bytes[1]
        let bends = m[(on + 1)...].filter { $0.bytes[0] == 0xE0 | channel }
        XCTAssertEqual(bends.count, moves.count, "a bend for each move played, none after the stop")
        let last = try XCTUnwrap(bends.last), lastMove = try XCTUnwrap(moves.last)
        let pitch = pow(2, (Double(note) + Double(last.bytes[1] | last.bytes[2] << 7 - 8192) / 8192 * 48 - 69) / 12)
        XCTAssertLessThan(abs(1200 * log2(pitch / (2 * (lastMove["x"] as? Double ?? 0)))), 1, "the last bend is the last move played")
        XCTAssertEqual(m.last?.bytes, [0x80 | channel, note, m.last?.bytes[2] ?? 0], "the note's note-off, last")
        XCTAssertEqual(m.filter { $0.bytes[0] & 0xF0 == 0x80 }.count, 1, "one note-off")
    }
}
