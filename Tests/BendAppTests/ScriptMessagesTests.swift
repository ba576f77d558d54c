// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import XCTest

/// What `render` and `play` say of a touch script a person wrote, and of a take with
/// nothing in it: the field at fault (exit 2), a warning for what plays but may not be
/// what was meant, no file for nothing played.
final class ScriptMessagesTests: XCTestCase {
    var dir: URL!
    override func setUpWithError() throws { dir = try BinaryRunner.temporaryDirectory() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    func file(_ name: String, _ text: String) throws -> String {
        let path = dir.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func testAMisspeltFieldIsNamedWithExitStatus2() throws {
        let script = try file("gian.jsonl", #"{"t": 0, "type": "down", "id": 1, "x": 0.5, "gian": 0.8}"# + "\n")
        let out = dir.appendingPathComponent("out.wav").path
        let r = try BinaryRunner.run(["render", script, "-o", out])
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("\(script):1: field \"gian\": unknown field"), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
    }

    func testACutShortLineSaysWhereAndWhatWasExpected() throws {
        let script = try file("cut.jsonl", #"{"t": 0, "type": "tilt", "value": 0}"# + "\n" + #"{"t": 0.5, "type": "til"#)
        let r = try BinaryRunner.run(["render", script, "-o", dir.appendingPathComponent("out.wav").path])
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("\(script):2: the line ends inside a string (cut short?); expected one JSON object"), r.stderr)
    }

    func testATouchNeverLiftedRendersWithAWarning() throws {
        let held = try file("held.jsonl", #"{"t": 0, "type": "down", "id": 4, "x": 0.5, "y": 0.5}"# + "\n" + #"{"t": 0.25, "type": "tilt", "value": 0}"# + "\n")
        let h = try BinaryRunner.run(["render", held, "-o", dir.appendingPathComponent("held.wav").path])
        XCTAssertEqual(h.status, 0, h.stderr)
        XCTAssertTrue(h.stderr.contains("warning: \(held):1: touch 4 goes down and is never lifted"), h.stderr)
    }

    /// A script with events but no touch (only an end line, or only tilt and sustain
    /// lines) renders silence: it says so, as a touch never lifted does, and still
    /// renders (exit 0, the file written). A script with a touch does not say it.
    func testAScriptWithNoTouchRendersWithAWarning() throws {
        let cases = [("end.jsonl", #"{"t": 0.5, "type": "end"}"#),
                     ("knobs.jsonl", #"{"t": 0, "type": "tilt", "value": 0.5}"# + "\n" + #"{"t": 0.3, "type": "sustain", "on": true}"#)]
        for (name, text) in cases {
            let script = try file(name, text + "\n")
            let wav = dir.appendingPathComponent(name + ".wav").path
            let r = try BinaryRunner.run(["render", script, "-o", wav])
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertTrue(r.stderr.contains("warning: script '\(script)' plays no touch (no \"down\" line): it plays silence"), r.stderr)
            XCTAssertTrue(FileManager.default.fileExists(atPath: wav), name)
        }
        let touch = try file("touch.jsonl", #"{"t": 0, "type": "down", "id": 1, "x": 0.5, "y": 0.5}"# + "\n" + #"{"t": 0.2, "type": "up", "id": 1}"# + "\n")
        let r = try BinaryRunner.run(["render", touch, "-o", dir.appendingPathComponent("touch.wav").path])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertFalse(r.stderr.contains("plays no touch"), r.stderr)
    }

    func testATakeWithNothingPlayedWritesNoTouchScript() throws {
        let empty = try file("quiet.jsonl", #"{"t": 0.2, "type": "end"}"# + "\n")  // 0.2 s, nothing played
        let take = dir.appendingPathComponent("take.jsonl").path
        let r = try BinaryRunner.run(["play", "-d", "null", "--no-terminal", "--script", empty, "--record-touches", take], timeout: 20)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("no touches played; '\(take)' not written"), r.stderr)
        XCTAssertFalse(r.stderr.contains("touches written"), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: take), "no file for nothing played")
    }

    /// The man page says what the messages do: a command-line mistake is followed by the
    /// usage line, a bad script is not; TOUCH SCRIPTS names every field a script may have.
    func testTheManPageMatchesWhatScriptErrorsPrint() throws {
        let man = try BinaryRunner.run(["--man-page"]).stdout
        let exit = try XCTUnwrap(man.range(of: ".SH EXIT STATUS").map { String(man[$0.upperBound...].prefix(600)) })
        XCTAssertFalse(exit.contains("and the usage line follows"), exit)
        XCTAssertTrue(exit.contains("after a mistake in the command line"), exit)
        let bad = try BinaryRunner.run(["render", dir.appendingPathComponent("x.jsonl").path, "-o", dir.appendingPathComponent("y.wav").path, "--voices", "0"])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains("usage: bendsynth render"), bad.stderr)
        let script = try file("gian.jsonl", #"{"t": 0, "type": "down", "id": 1, "x": 0.5, "gian": 0.8}"# + "\n")
        let r = try BinaryRunner.run(["render", script, "-o", dir.appendingPathComponent("out.wav").path])
        XCTAssertEqual(r.status, 2)
        XCTAssertFalse(r.stderr.contains("usage:"), r.stderr)
        let scripts = try XCTUnwrap(man.range(of: ".SH TOUCH SCRIPTS").map { String(man[$0.upperBound...].prefix(1500)) })
        for field in ["ratio", "gain", "value", "on", "sustain"] {
            XCTAssertTrue(scripts.contains(field), "TOUCH SCRIPTS names \(field)")
        }
    }

    /// TOUCH SCRIPTS says what the commands do: an empty script is refused (exit 2, as
    /// render and play --script do), the end line is one of the types, and how long a
    /// render lasts (to the end line here: 2.5 s, though the sound ends at 1 s).
    func testTheManPageSaysWhatAnEmptyScriptAndTheEndLineDo() throws {
        let man = try BinaryRunner.run(["--man-page"]).stdout
        let scripts = try XCTUnwrap(man.range(of: ".SH TOUCH SCRIPTS").map { man[$0.upperBound...] }
            .map { String($0[..<($0.range(of: ".SH EXIT STATUS")?.lowerBound ?? $0.endIndex)]) })
        let empty = try file("empty.jsonl", "")
        for command in [["render", empty, "-o", dir.appendingPathComponent("e.wav").path], ["play", "--script", empty, "--no-terminal", "-d", "null"]] {
            let r = try BinaryRunner.run(command)
            XCTAssertEqual(r.status, 2, "\(command): \(r.stderr)")
        }
        XCTAssertTrue(scripts.contains("An empty file, or a script with no events, is an error (exit 2"), scripts)
        XCTAssertFalse(scripts.contains("An empty script, and"), scripts)
        XCTAssertTrue(scripts.contains("type is down, move, up, tilt, timbre, send, sustain or end"), scripts)
        XCTAssertTrue(scripts.contains(#"{"t": 2.5, "type": "end"}"#), scripts)
        XCTAssertTrue(scripts.contains("A render lasts until the script's end"), scripts)
        let script = try file("end.jsonl", """
            {"t": 0.0, "type": "down", "id": 1, "x": 0.25, "y": 0.8}
            {"t": 1.0, "type": "up", "id": 1}
            {"t": 2.5, "type": "end"}

            """)
        let out = dir.appendingPathComponent("end.wav").path
        let r = try BinaryRunner.run(["render", script, "-o", out])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try WAVReader.read(out).frames, 120_000, "2.5 s at 48 kHz")
    }
}
