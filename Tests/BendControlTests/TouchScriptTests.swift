// SPDX-License-Identifier: GPL-3.0-or-later
import XCTest
import Foundation
import BendControl

final class TouchScriptTests: XCTestCase {
    func testParsesTheFormat() throws {
        let script = try TouchScript.parse("""
        {"t": 0.0, "type": "down", "id": 1, "x": 0.25, "y": 0.8}
        {"t": 0.0, "type": "tilt", "value": -1.0}

        {"t": 0.5, "type": "move", "id": 1, "x": 0.5, "y": 0.8}
        {"t": 1.0, "type": "up", "id": 1}
        """)
        XCTAssertEqual(script.entries, [
            .init(time: 0, event: .touch(id: 1, phase: .down, x: 0.25, y: 0.8)),
            .init(time: 0, event: .tilt(-1)),
            .init(time: 0.5, event: .touch(id: 1, phase: .move, x: 0.5, y: 0.8)),
            .init(time: 1, event: .touch(id: 1, phase: .up, x: 0, y: 0)),
        ])
        XCTAssertEqual(script.duration, 1)
    }

    func testRoundTripsThroughItsText() throws {
        let script = try TouchScript.parse("""
        {"t": 0.25, "type": "down", "id": 7, "x": 0.125, "y": 1}
        {"t": 0.5, "type": "tilt", "value": 0.5}
        {"t": 0.5, "type": "sustain", "on": true}
        {"t": 0.75, "type": "up", "id": 7}
        {"t": 1.5, "type": "sustain", "on": false}
        """)
        XCTAssertEqual(script.entries[2].event, .sustain(true))
        XCTAssertEqual(script.entries[4].event, .sustain(false))
        XCTAssertEqual(TouchScript.line(time: 1.5, event: .sustain(false)), "{\"t\": 1.500000, \"type\": \"sustain\", \"on\": false}")
        XCTAssertEqual(try TouchScript.parse(script.text), script)
    }

    /// A `send` line: a touch's send to an effect bus; it round-trips, and a bus that is
    /// no bus is named with what was expected.
    func testSendLinesRoundTripAndABadBusIsNamed() throws {
        let script = try TouchScript.parse("""
        {"t": 0.1, "type": "down", "id": 3, "x": 0.5, "y": 1}
        {"t": 0.2, "type": "send", "id": 3, "bus": "reverb", "value": 0.75}
        {"t": 0.3, "type": "send", "id": 3, "bus": "chorus", "value": 0.25}
        {"t": 0.4, "type": "up", "id": 3}
        """)
        XCTAssertEqual(script.entries[1].event, .send(id: 3, bus: .reverb, level: 0.75))
        XCTAssertEqual(script.entries[2].event, .send(id: 3, bus: .chorus, level: 0.25))
        XCTAssertEqual(try TouchScript.parse(script.text), script)
        let bad = "{\"t\": 0, \"type\": \"down\", \"id\": 1, \"x\": 0.5, \"y\": 1}\n{\"t\": 0.1, \"type\": \"send\", \"id\": 1, \"bus\": \"echo\", \"value\": 1}"
        XCTAssertThrowsError(try TouchScript.parse(bad, file: "s.jsonl")) { error in
            XCTAssertTrue("\(error)".contains("s.jsonl:2"), "\(error)")
            XCTAssertTrue("\(error)".contains("\"reverb\", \"delay\" or \"chorus\""), "\(error)")
        }
    }

    /// An `end` line gives the script's length past its last event (issue 28): the
    /// duration is the end's, the text round-trips it, and nothing may follow it.
    func testEndLineGivesTheLength() throws {
        let script = try TouchScript.parse("""
        {"t": 0.25, "type": "down", "id": 7, "x": 0.125, "y": 1}
        {"t": 0.75, "type": "up", "id": 7}
        {"t": 2.5, "type": "end"}

        """)
        XCTAssertEqual(script.entries.count, 2)
        XCTAssertEqual(script.end, 2.5)
        XCTAssertEqual(script.duration, 2.5)
        XCTAssertTrue(script.text.hasSuffix("{\"t\": 2.500000, \"type\": \"end\"}\n"), script.text)
        XCTAssertEqual(try TouchScript.parse(script.text), script)
        XCTAssertEqual(try TouchScript.parse("{\"t\": 3, \"type\": \"end\"}").duration, 3, "silence alone has a length")
        XCTAssertTrue(try TouchScript.parse("\n\n").isEmpty)
        XCTAssertFalse(try TouchScript.parse("{\"t\": 3, \"type\": \"end\"}").isEmpty)
        XCTAssertThrowsError(try TouchScript.parse("{\"t\": 1, \"type\": \"end\"}\n{\"t\": 1, \"type\": \"tilt\", \"value\": 0}", file: "s.jsonl")) {
            XCTAssertTrue("\($0)".hasPrefix("s.jsonl:2: a line after the script's end (line 1"), "\($0)")
        }
        XCTAssertThrowsError(try TouchScript.parse("{\"t\": 1, \"type\": \"tilt\", \"value\": 0}\n{\"t\": 0.5, \"type\": \"end\"}", file: "s.jsonl")) {
            XCTAssertTrue("\($0)".hasPrefix("s.jsonl:2: field \"t\": time goes backwards"), "\($0)")
        }
    }

    /// Each bad line is reported with its line number and field.
    func testErrorsNameLineAndField() {
        let cases: [(String, Int, String?, String)] = [
            ("{\"t\": 0, \"type\": \"down\", \"id\": 1, \"x\": 0.5, \"y\": 0.5}\nnot json", 2, nil, "JSON"),
            ("{\"t\": 0, \"type\": \"wobble\"}", 1, "type", "unknown type"),
            ("{\"t\": 0, \"type\": \"down\", \"id\": 1, \"y\": 0.5}", 1, "x", "missing"),
            ("{\"t\": 0, \"type\": \"down\", \"id\": 1, \"x\": 1.5, \"y\": 0.5}", 1, "x", "out of range"),
            ("{\"t\": 0, \"type\": \"down\", \"id\": 1, \"x\": \"0.5\", \"y\": 0.5}", 1, "x", "expected a number"),
            ("{\"t\": 0, \"type\": \"down\", \"id\": 1.5, \"x\": 0.5, \"y\": 0.5}", 1, "id", "not an integer"),
            ("{\"t\": 1, \"type\": \"tilt\", \"value\": 0}\n{\"t\": 0.5, \"type\": \"tilt\", \"value\": 0}", 2, "t", "backwards"),
            ("{\"t\": 0, \"type\": \"move\", \"id\": 3, \"x\": 0.5, \"y\": 0.5}", 1, "id", "not down"),
            ("{\"t\": 0, \"type\": \"down\", \"id\": 1, \"x\": 0.5, \"y\": 0.5}\n{\"t\": 0, \"type\": \"up\", \"id\": 1}\n{\"t\": 0, \"type\": \"up\", \"id\": 1}", 3, "id", "not down"),
            ("{\"t\": 0, \"type\": \"tilt\", \"value\": -2}", 1, "value", "out of range"),
            ("{\"type\": \"tilt\", \"value\": 0}", 1, "t", "missing"),
            ("[1, 2]", 1, nil, "JSON object"),
            ("{\"t\": true, \"type\": \"tilt\", \"value\": 0}", 1, "t", "expected a number"),
            ("{\"t\": 0, \"type\": \"down\", \"id\": 1, \"x\": 0.5, \"y\": 0.5}\n{\"t\": 0, \"type\": \"down\", \"id\": 1, \"x\": 0.5, \"y\": 0.5}", 2, "id", "already down"),
            ("{\"t\": 0, \"value\": 0}", 1, "type", "missing"),
            ("{\"t\": 0, \"type\": \"down\", \"id\": -1, \"x\": 0.5, \"y\": 0.5}", 1, "id", "out of range"),
            ("{\"t\": 0, \"type\": \"down\", \"id\": 4294967296, \"x\": 0.5, \"y\": 0.5}", 1, "id", "out of range"),
            ("{\"t\": 0, \"type\": \"down\", \"id\": 1, \"x\": 0.5}", 1, "y", "missing"),
            ("{\"t\": 86401, \"type\": \"tilt\", \"value\": 0}", 1, "t", "out of range"),
            ("{\"t\": 0, \"type\": \"sustain\"}", 1, "on", "missing; expected true or false"),
            ("{\"t\": 0, \"type\": \"sustain\", \"on\": 1}", 1, "on", "expected true or false"),
            // A misspelt field is named (not only the missing one it stood for).
            ("{\"t\": 0, \"type\": \"down\", \"id\": 1, \"x\": 0.5, \"gian\": 0.8}", 1, "gian", "unknown field"),
            ("{\"time\": 0, \"type\": \"tilt\", \"value\": 0}", 1, "time", "unknown field"),
            ("{\"t\": 0, \"type\": \"tilt\", \"value\": 0, \"x\": 0.5}", 1, "x", "not a field of a \"tilt\" event; it has t, type and value"),
            ("{\"t\": 2, \"type\": \"end\", \"id\": 1}", 1, "id", "not a field of a \"end\" line; it has t and type"),
            // A cut-short line and a NaN say where and what was expected.
            ("{\"t\": 0, \"type\": \"down\", \"id\": 1, \"x\": 0.5, \"y\": 0.5}\n{\"t\": 0.5, \"type\": \"mo", 2, nil, "the line ends inside a string (cut short?); expected one JSON object"),
            ("{\"t\": 0.5, \"type\": \"tilt\", \"value\": 0", 1, nil, "the line ends before its JSON object does"),
            ("{\"t\": NaN, \"type\": \"tilt\", \"value\": 0}", 1, "t", "column 7: 'NaN' is not a number JSON allows; expected a number of seconds in 0…86400"),
            ("{\"t\": 0, \"type\": \"tilt\", \"value\": 0.5 0.6}", 1, nil, "column 39: '0.6' is not JSON"),
            ("{\"t\": 0, \"type\": \"down\", \"id\": 1, \"x\": zero, \"y\": 0.5}", 1, "x", "'zero' is not a JSON value; expected a number in 0…1"),
        ]
        for (text, line, field, words) in cases {
            XCTAssertThrowsError(try TouchScript.parse(text, file: "s.jsonl"), text) { error in
                guard let e = error as? TouchScript.ParseError else { return XCTFail("\(error)") }
                XCTAssertEqual(e.line, line, text)
                XCTAssertEqual(e.field, field, text)
                XCTAssertTrue(e.description.hasPrefix("s.jsonl:\(line): "), e.description)
                XCTAssertTrue(e.description.contains(words), "\(e.description) should say \(words)")
            }
        }
    }

    /// A touch that goes down and is never lifted plays, with a warning naming the file
    /// and the down's line; so does a script with no touch (it plays silence). (An empty
    /// script is an error: `ScriptFile`.)
    func testWarnsOfATouchNeverLifted() throws {
        let script = try TouchScript.parse("""
        {"t": 0, "type": "down", "id": 1, "x": 0.5, "y": 0.5}
        {"t": 0.5, "type": "down", "id": 2, "x": 0.25, "y": 0.5}
        {"t": 1, "type": "up", "id": 1}
        """, file: "s.jsonl")
        XCTAssertEqual(script.warnings, ["s.jsonl:2: touch 2 goes down and is never lifted: it ends with the script, at 1.000 s"])
        XCTAssertEqual(try TouchScript.parse(script.text).entries.count, 3)
        XCTAssertEqual(try TouchScript.parse(#"{"t": 0, "type": "tilt", "value": 0}"#, file: "k.jsonl").warnings,
                       [#"script 'k.jsonl' plays no touch (no "down" line): it plays silence"#])
    }

    func testMissingFileIsAnErrorNamingIt() {
        XCTAssertThrowsError(try TouchScript.load(path: "/nonexistent/take.jsonl")) { error in
            XCTAssertTrue("\(error)".contains("/nonexistent/take.jsonl"))
        }
    }

    /// The committed demo parses: several touches, a tilt sweep, every touch ended.
    func testDemoScriptIsValid() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Assets/demo.jsonl").standardized.path
        let script = try TouchScript.load(path: path)
        var downs = 0, ups = 0, tilts: [Double] = []
        for e in script.entries {
            switch e.event {
            case .touch(_, .down, _, _): downs += 1
            case .touch(_, .up, _, _): ups += 1
            case .tilt(let v): tilts.append(v)
            default: break
            }
        }
        XCTAssertGreaterThanOrEqual(downs, 3)
        XCTAssertEqual(downs, ups)
        XCTAssertEqual(tilts.first, -1)
        XCTAssertEqual(tilts.last, 1)
    }
}
