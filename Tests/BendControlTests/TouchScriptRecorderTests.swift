// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import Foundation
import Synchronization
import XCTest

/// `--record-touches`'s recorder: stream time from frame 0, written as the stream passes
/// each event, in frame order across sources; a cut source's later events are not written
/// and its touches end at the cut; the script ends with the take's length (an `end` line).
final class TouchScriptRecorderTests: XCTestCase {
    func testFrameOrderTimeBaseAndCut() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("recorder-\(UUID().uuidString).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let position = Atomic<UInt64>(0)
        let r = try TouchScriptRecorder(path: path, rate: 48_000, position: { position.load(ordering: .relaxed) })
        // Source 0 (a script) queues ahead; source 1 (live) plays meanwhile.
        r.observe(.touch(id: 1, phase: .down, x: 0.5, y: 1), source: 0, streamFrame: 24_000)
        r.observe(.touch(id: 2, phase: .down, x: 0.25, y: 1), source: 0, streamFrame: 96_000)
        r.observe(.touch(id: 1, phase: .up, x: 0, y: 0), source: 0, streamFrame: 480_000)
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "", "nothing is written before the stream passes it")
        position.store(30_000, ordering: .relaxed)
        r.observe(.touch(id: 1, phase: .down, x: 0.75, y: 0.5), source: 1, streamFrame: 30_256)
        r.observe(.touch(id: 1, phase: .up, x: 0, y: 0), source: 1, streamFrame: 40_000)
        position.store(50_000, ordering: .relaxed)
        r.flush()
        // The script stops at frame 60 000: its touch 2 (for 96 000) is dropped, touch 1 ends there.
        r.cut(source: 0, atFrame: 60_000)
        r.observe(.touch(id: 2, phase: .up, x: 0, y: 0), source: 0, streamFrame: 60_000)  // the port's releaseAll
        position.store(72_000, ordering: .relaxed)  // play stops 0.25 s after the last release
        r.close()
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        XCTAssertEqual(lines, [
            #"{"t": 0.500000, "type": "down", "id": 1, "x": 0.5, "y": 1.0}"#,
            #"{"t": 0.630333, "type": "down", "id": 2, "x": 0.75, "y": 0.5}"#,
            #"{"t": 0.833333, "type": "up", "id": 2}"#,
            #"{"t": 1.250000, "type": "up", "id": 1}"#,
            #"{"t": 1.500000, "type": "end"}"#,  // the take's length: the stream position at close
        ])
    }

    /// A take with nothing played writes no file; a file that was there stays as it was.
    func testNothingPlayedWritesNoFile() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("recorder-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let fresh = dir.appendingPathComponent("new.jsonl").path
        let r = try TouchScriptRecorder(path: fresh, rate: 48_000, position: { 0 })
        r.close()
        XCTAssertEqual(r.linesWritten, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: fresh), "no file for a take with nothing played")

        let old = dir.appendingPathComponent("old.jsonl").path
        let before = #"{"t": 0.0, "type": "tilt", "value": 0.5}"# + "\n"
        try before.write(toFile: old, atomically: true, encoding: .utf8)
        let kept = try TouchScriptRecorder(path: old, rate: 48_000, position: { 0 })
        kept.close()
        XCTAssertEqual(try String(contentsOfFile: old, encoding: .utf8), before, "the earlier take stays")

        // Something played: the earlier take is replaced.
        let replaced = try TouchScriptRecorder(path: old, rate: 48_000, position: { .max })
        replaced.observe(.touch(id: 1, phase: .down, x: 0.5, y: 1), source: 0, streamFrame: 0)
        replaced.close()
        XCTAssertEqual(replaced.linesWritten, 1)
        XCTAssertEqual(try String(contentsOfFile: old, encoding: .utf8).split(separator: "\n").first,
                       #"{"t": 0.000000, "type": "down", "id": 1, "x": 0.5, "y": 1.0}"#)
    }
}
