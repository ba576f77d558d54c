// SPDX-License-Identifier: GPL-3.0-or-later
import BendEngine
import Foundation

/// A touch script: JSON Lines, one event per line, times in seconds from the start,
/// non-decreasing. Blank lines are skipped.
///
///     {"t": 0.0, "type": "down", "id": 1, "x": 0.25, "y": 0.8}
///     {"t": 0.5, "type": "move", "id": 1, "x": 0.5, "y": 0.8}
///     {"t": 1.0, "type": "up", "id": 1}
///     {"t": 0.0, "type": "tilt", "value": -1.0}
///     {"t": 1.5, "type": "sustain", "on": true}
///     {"t": 1.6, "type": "timbre", "id": 1, "value": 0.4}
///
/// Fields: `t` seconds, 0…86400 (24 h); `type` down|move|up|tilt|sustain|end; `id` integer 0…4294967295 (down,
/// move, up); `x`, `y` 0…1 (down, move); `value` −1…+1 (tilt); `on` true|false (sustain:
/// the control goes down or is let go; ups while it is down sound on until it is let go).
/// Any other field, or one its type does not have, is an error that names it.
///
/// An `end` line, the last of the script, gives its length when it lasts beyond its last
/// event (a take's silence after the last release, a MIDI file's end of track): a render
/// lasts at least until then. `--record-touches` writes one (the take's length).
///
///     {"t": 2.0, "type": "end"}
///
/// A down or move may give its pitch as a ratio instead of x (a MIDI source's touches,
/// written by `--record-touches`): `ratio` 0…8 (`EngineLimits.maximumRatio`), `gain`
/// 0…1 and `y` 0…1 — no pitch map applies to it (`ControlEvent.pitched`):
///
///     {"t": 0.0, "type": "down", "id": 1, "ratio": 1.5, "gain": 0.8, "y": 0.5}
public struct TouchScript: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        /// Seconds from the start of the script.
        public var time: Double
        public var event: ControlEvent
        public init(time: Double, event: ControlEvent) {
            self.time = time
            self.event = event
        }
    }

    /// A script that cannot be played: which line, which field, what was expected.
    public struct ParseError: Error, CustomStringConvertible, Equatable, Sendable {
        /// The script's name (its path) for the message.
        public var file: String
        /// 1-based line number.
        public var line: Int
        /// The field at fault, or nil when the line as a whole is wrong.
        public var field: String?
        public var message: String
        public var description: String {
            (line > 0 ? "\(file):\(line): " : "\(file): ") + (field.map { "field \"\($0)\": " } ?? "") + message
        }
    }

    public var entries: [Entry]
    /// The script's end, seconds (its `end` line; a MIDI file's last end of track), at or
    /// after the last entry; nil: it ends with its last event.
    public var end: Double?
    /// What plays but may not be what was meant, one message each ("FILE:LINE: …"): a
    /// touch that goes down and is never lifted; a script with no touch at all (it
    /// plays silence). Not compared by `==`.
    public var warnings: [String] = []
    /// A MIDI file's tempo map (`ScriptTempo`), nil for a touch script. Not compared by `==`.
    public var tempo: ScriptTempo?

    public static func == (a: TouchScript, b: TouchScript) -> Bool { a.entries == b.entries && a.end == b.end }

    /// Latest time a script may use, seconds (24 h): a render of it is a 33 GB WAV.
    public static let maximumTime = 86_400.0

    public init(entries: [Entry], end: Double? = nil) {
        self.entries = entries
        self.end = end
    }

    /// Seconds the script lasts: its end, or its last event (0 when empty).
    public var duration: Double { max(entries.last?.time ?? 0, end ?? 0) }

    /// True when the script has nothing to play: no event and no length.
    public var isEmpty: Bool { entries.isEmpty && duration == 0 }

    /// Reads and checks a script file.
    /// - Throws: `ParseError` for bad content; `SystemError`-like `ParseError` (line 0)
    ///   when the file cannot be read.
    public static func load(path: String) throws -> TouchScript {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ParseError(file: path, line: 0, field: nil, message: "no such file; expected a touch script (JSON Lines)")
        }
        guard !isDirectory.boolValue else {
            throw ParseError(file: path, line: 0, field: nil, message: "is a directory; expected a touch script file (JSON Lines)")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ParseError(file: path, line: 0, field: nil, message: "cannot be read (permission denied?)")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            // Name the first line that is not UTF-8, and the byte in the file.
            var line = 1, lineStart = 0
            let bytes = [UInt8](data)
            for (i, b) in bytes.enumerated() where b == 0x0A || i == bytes.count - 1 {
                let end = b == 0x0A ? i : i + 1
                if String(validating: bytes[lineStart..<end], as: UTF8.self) == nil {
                    throw ParseError(file: path, line: line, field: nil, message: "not UTF-8 text (the line starts at byte \(lineStart) of the file); expected JSON Lines in UTF-8")
                }
                line += 1
                lineStart = i + 1
            }
            throw ParseError(file: path, line: 0, field: nil, message: "not UTF-8 text")
        }
        return try parse(text, file: path)
    }

    /// Parses and checks script text.
    /// - Throws: `ParseError` naming the first bad line and field: not a JSON object
    ///   (where, and what was expected), an unknown field or one its type does not have,
    ///   unknown type, missing or out-of-range field, time going backwards, a move or up
    ///   of an id that is not down, a down of an id that is already down, a line after
    ///   the `end` line.
    public static func parse(_ text: String, file: String = "<script>") throws -> TouchScript {
        var entries: [Entry] = []
        var end: (time: Double, line: Int)?
        var down: Set<UInt32> = []
        /// The line of each down whose up has not come yet.
        var downLines: [UInt32: Int] = [:]
        var lastTime = 0.0
        var lineNumber = 0
        // JSON Lines: a line ends at "\n" (a CRLF line's "\r" goes with the blanks around
        // it), as `parse(contentsOf:)` counts lines. Bytes, not Characters: splitting and
        // trimming by Character (grapheme breaking) took half the parse time (`make fuzz`).
        for rawLine in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            let isBlank = { (b: UInt8) in b == 0x20 || (0x09...0x0D).contains(b) }
            guard let first = rawLine.firstIndex(where: { !isBlank($0) }),
                  let last = rawLine.lastIndex(where: { !isBlank($0) }) else { continue }
            let line = rawLine[first...last]
            func fail(_ field: String?, _ message: String) -> ParseError {
                ParseError(file: file, line: lineNumber, field: field, message: message)
            }
            let object: [String: JSONField]
            do {
                object = try JSONDecoder().decode([String: JSONField].self, from: Data(line))
            } catch {
                let (field, message) = TouchScriptFields.notAnObject(line)
                throw fail(field, message)
            }
            // Every field is one of the format's: a misspelt one ("gian") is named, not
            // ignored.
            if let unknown = object.keys.sorted().first(where: { !TouchScriptFields.all.contains($0) }) {
                throw fail(unknown, "unknown field; expected the fields \(TouchScriptFields.all.joined(separator: ", "))")
            }
            func number(_ name: String, _ range: ClosedRange<Double>) throws -> Double {
                guard let any = object[name] else { throw fail(name, "missing; expected a number in \(range.lowerBound)…\(range.upperBound)") }
                guard case let .number(v) = any else {
                    throw fail(name, "expected a number in \(range.lowerBound)…\(range.upperBound)")
                }
                guard v.isFinite, range.contains(v) else {
                    throw fail(name, "\(v) is out of range; expected \(range.lowerBound)…\(range.upperBound)")
                }
                return v
            }
            if let end {
                throw fail(nil, "a line after the script's end (line \(end.line), t = \(end.time)); the end line is the last")
            }
            let t = try number("t", 0...TouchScript.maximumTime)
            guard t >= lastTime else {
                throw fail("t", "time goes backwards (\(t) after \(lastTime)); times must not decrease")
            }
            lastTime = t
            guard case let .string(type)? = object["type"] else {
                throw fail("type", "missing; expected \"down\", \"move\", \"up\", \"tilt\", \"timbre\", \"sustain\" or \"end\"")
            }
            if let fields = TouchScriptFields.of(type),
               let stray = object.keys.sorted().first(where: { !fields.contains($0) }) {
                throw fail(stray, "not a field of a \"\(type)\" \(type == "end" ? "line" : "event"); it has \(TouchScriptFields.listed(type))")
            }
            if type == "end" {
                end = (t, lineNumber)
                continue
            }
            func touchID() throws -> UInt32 {
                let v = try number("id", 0...Double(UInt32.max))
                guard v == v.rounded() else { throw fail("id", "\(v) is not an integer") }
                return UInt32(v)
            }
            let event: ControlEvent
            /// A down or move: x and y, or ratio, gain and y.
            func moved(_ id: UInt32, _ phase: TouchPhase) throws -> ControlEvent {
                if object["ratio"] != nil {
                    return .pitched(id: id, phase: phase, ratio: try number("ratio", 0...Double(EngineLimits.maximumRatio)),
                                    gain: try number("gain", 0...1), y: try number("y", 0...1))
                }
                return .touch(id: id, phase: phase, x: try number("x", 0...1), y: try number("y", 0...1))
            }
            switch type {
            case "down":
                let id = try touchID()
                guard !down.contains(id) else { throw fail("id", "touch \(id) is already down") }
                event = try moved(id, .down)
                down.insert(id)
                downLines[id] = lineNumber
            case "move":
                let id = try touchID()
                guard down.contains(id) else { throw fail("id", "touch \(id) is not down") }
                event = try moved(id, .move)
            case "up":
                let id = try touchID()
                guard down.remove(id) != nil else { throw fail("id", "touch \(id) is not down") }
                downLines[id] = nil
                event = .touch(id: id, phase: .up, x: 0, y: 0)
            case "tilt":
                event = .tilt(try number("value", -1...1))
            case "timbre":
                let id = try touchID()
                guard down.contains(id) else { throw fail("id", "touch \(id) is not down") }
                event = .timbre(id: id, value: try number("value", 0...1))
            case "send":
                let id = try touchID()
                guard down.contains(id) else { throw fail("id", "touch \(id) is not down") }
                guard case let .string(name)? = object["bus"], let bus = SendBus(name: name) else {
                    throw fail("bus", "expected \"reverb\", \"delay\" or \"chorus\"")
                }
                event = .send(id: id, bus: bus, level: try number("value", 0...1))
            case "sustain":
                guard let any = object["on"] else { throw fail("on", "missing; expected true or false") }
                guard case let .bool(on) = any else { throw fail("on", "expected true or false") }
                event = .sustain(on)
            default:
                throw fail("type", "unknown type \"\(type)\"; expected \"down\", \"move\", \"up\", \"tilt\", \"timbre\", \"send\", \"sustain\" or \"end\"")
            }
            entries.append(Entry(time: t, event: event))
        }
        var script = TouchScript(entries: entries, end: end?.time)
        // Events but no touch (an end line, tilts, sustain): it plays, silently.
        if !script.isEmpty && !entries.contains(where: { $0.event.touchPhase?.phase == .down }) {
            script.warnings.append("script '\(file)' plays no touch (no \"down\" line): it plays silence")
        }
        for (id, line) in downLines.sorted(by: { $0.value < $1.value }) {
            script.warnings.append("\(file):\(line): touch \(id) goes down and is never lifted: it ends with the script, at \(String(format: "%.3f", script.duration)) s")
        }
        return script
    }

    /// The `end` line at `time` seconds (no newline).
    public static func endLine(time: Double) -> String {
        "{\"t\": \(String(format: "%.6f", time)), \"type\": \"end\"}"
    }

    /// One script line for `event` at `time` seconds (no newline).
    public static func line(time: Double, event: ControlEvent) -> String {
        let t = String(format: "%.6f", time)
        // The shortest text that reads back to the same Double (Swift's description: up to
        // 17 significant digits, 0.25 stays "0.25"): a take's x, y, ratio and gain give the
        // engine the same pitch and gain again, so it renders to the same frames. (6 decimals
        // drifted by −46.8 dB; 9 significant digits still by −90 dB, a Float ratio's last bit.)
        // The time's microseconds name one frame up to 500 kHz.
        func f(_ v: Double) -> String { v.isFinite ? "\(v)" : "0" }
        switch event {
        case let .touch(id, .up, _, _), let .pitched(id, .up, _, _, _):
            return "{\"t\": \(t), \"type\": \"up\", \"id\": \(id)}"
        case let .touch(id, phase, x, y):
            return "{\"t\": \(t), \"type\": \"\(phase.rawValue)\", \"id\": \(id), \"x\": \(f(x)), \"y\": \(f(y))}"
        case let .pitched(id, phase, ratio, gain, y):
            return "{\"t\": \(t), \"type\": \"\(phase.rawValue)\", \"id\": \(id), \"ratio\": \(f(ratio)), \"gain\": \(f(gain)), \"y\": \(f(y))}"
        case let .tilt(v):
            return "{\"t\": \(t), \"type\": \"tilt\", \"value\": \(f(v))}"
        case let .timbre(id, v):
            return "{\"t\": \(t), \"type\": \"timbre\", \"id\": \(id), \"value\": \(f(v))}"
        case let .send(id, bus, v):
            return "{\"t\": \(t), \"type\": \"send\", \"id\": \(id), \"bus\": \"\(bus.name)\", \"value\": \(f(v))}"
        case let .sustain(on):
            return "{\"t\": \(t), \"type\": \"sustain\", \"on\": \(on)}"
        }
    }

    /// The whole script as text, one line per entry, and the end line when it has an end.
    public var text: String {
        entries.map { TouchScript.line(time: $0.time, event: $0.event) + "\n" }.joined()
            + (end.map { TouchScript.endLine(time: $0) + "\n" } ?? "")
    }
}

/// One value of a script line's JSON object, as far as the format cares.
private enum JSONField: Decodable {
    case number(Double), string(String), bool(Bool), other

    init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let d = try? c.decode(Double.self) { self = .number(d) }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else { self = .other }
    }
}
