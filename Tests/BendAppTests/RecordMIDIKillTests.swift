// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendMIDI
import Foundation
import Glibc
import XCTest

/// Issue 38 item 5: `--record-midi` writes a complete file every second, so a `play`
/// killed with SIGKILL leaves a .mid that plays what was recorded up to the last second.
final class RecordMIDIKillTests: XCTestCase {
    /// The file's notes as (seconds, phase), nil while it does not parse.
    func notes(_ path: String) -> [(t: Double, phase: TouchPhase)]? {
        guard let data = FileManager.default.contents(atPath: path), !data.isEmpty,
              let file = try? StandardMIDIFile.parse([UInt8](data)) else { return nil }
        var decoder = MIDIInterpreter()
        var out: [(t: Double, phase: TouchPhase)] = []
        for (t, m) in file.timedMessages() {
            decoder.interpret(m) { e in
                if case let .pitched(_, phase, _, _, _) = e, phase != .move { out.append((t, phase)) }
            }
        }
        return out
    }

    func testKilledPlayLeavesAMIDIFileOfWhatWasPlayed() throws {
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let script = dir.appendingPathComponent("take.jsonl").path
        try """
        {"t": 0.2, "type": "down", "id": 1, "x": 0.25, "y": 0.8}
        {"t": 0.5, "type": "up", "id": 1}
        {"t": 0.9, "type": "down", "id": 2, "x": 0.5, "y": 0.8}
        {"t": 1.2, "type": "up", "id": 2}
        {"t": 1.5, "type": "down", "id": 3, "x": 0.75, "y": 0.8}
        {"t": 1.8, "type": "up", "id": 3}
        {"t": 2.2, "type": "down", "id": 4, "x": 0.6, "y": 0.8}
        {"t": 30, "type": "up", "id": 4}
        """.write(toFile: script, atomically: true, encoding: .utf8)
        let take = dir.appendingPathComponent("take.mid").path
        let p = Process()
        p.executableURL = BinaryRunner.executable
        p.arguments = ["play", "--no-config", "--no-terminal", "--script", script, "-d", "null", "--record-midi", take]
        p.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try p.run()
        defer { if p.isRunning { kill(p.processIdentifier, SIGKILL); p.waitUntilExit() } }
        // The snapshot after 2.2 s (written at about 3 s) holds the fourth note's down.
        try waitUntil("the file to hold the note at 2.2 s") { (notes(take)?.filter { $0.phase == .down }.count ?? 0) >= 4 }
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        let got = try XCTUnwrap(notes(take), "the killed play's .mid parses")
        print("play killed with SIGKILL: its .mid holds \(got.map { String(format: "%@ %.3f", $0.phase == .down ? "on" : "off", $0.t) })")
        let firstTwo = got.filter { $0.t < 1.7 }  // times count from the first event (0.2 s)
        XCTAssertEqual(firstTwo.map(\.phase), [.down, .up, .down, .up, .down, .up], "the notes of the first 2 s")
        for (i, want) in [0, 0.3, 0.7, 1.0, 1.3, 1.6].enumerated() where i < firstTwo.count {
            XCTAssertEqual(firstTwo[i].t, want, accuracy: 0.002)
        }
    }
}
