// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation

/// The fields of a touch script's lines (`TouchScript`): which each event type has, what
/// each expects, and why a line that is no JSON object is not one, in words that say
/// where and what was expected.
enum TouchScriptFields {
    /// Every field of the format, in the order messages list them.
    static let all = ["t", "type", "id", "x", "y", "ratio", "gain", "bus", "value", "on"]

    /// The fields an event of `type` may have (an up may keep its last x and y).
    static func of(_ type: String) -> Set<String>? {
        switch type {
        case "down", "move": ["t", "type", "id", "x", "y", "ratio", "gain"]
        case "up": ["t", "type", "id", "x", "y"]
        case "tilt": ["t", "type", "value"]
        case "timbre": ["t", "type", "id", "value"]
        case "send": ["t", "type", "id", "bus", "value"]
        case "sustain": ["t", "type", "on"]
        case "end": ["t", "type"]
        default: nil
        }
    }

    /// The fields of `type` as a message lists them.
    static func listed(_ type: String) -> String {
        switch type {
        case "down", "move": "t, type, id, x and y (or ratio, gain and y)"
        case "up": "t, type and id"
        case "tilt": "t, type and value"
        case "timbre": "t, type, id and value"
        case "send": "t, type, id, bus and value"
        case "end": "t and type"
        default: "t, type and on"
        }
    }

    /// What field `name` holds, for messages.
    static func expected(_ name: String) -> String {
        switch name {
        case "t": "a number of seconds in 0…\(Int(TouchScript.maximumTime))"
        case "type": "\"down\", \"move\", \"up\", \"tilt\", \"timbre\", \"sustain\" or \"end\""
        case "id": "an integer in 0…4294967295"
        case "x", "y", "gain": "a number in 0…1"
        case "ratio": "a number in 0…8"
        case "value": "a number in -1…1 (a tilt) or 0…1 (a timbre)"
        case "on": "true or false"
        default: "a field of the format (\(all.joined(separator: ", ")))"
        }
    }

    /// Why `line` (one script line, blanks trimmed) is not a JSON object: the field and
    /// the words for `TouchScript.ParseError`. JSONSerialization's own message names the
    /// character where it stopped ("Invalid value around character 6.") or says the text
    /// ended ("Unexpected end of file"); the field is the key whose value starts there.
    static func notAnObject(_ line: some Collection<UInt8>) -> (field: String?, message: String) {
        let bytes = Array(line)
        let whole = "expected one JSON object on the line, {\"t\": …, \"type\": …, …}"
        let description: String
        do {
            let value = try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
            let kind = value is [Any] ? "an array" : value is String ? "a string" : value is NSNumber ? "a number" : "not an object"
            return (nil, "\(kind), not a JSON object; \(whole)")
        } catch {
            description = ((error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String) ?? "\(error)"
        }
        if description.contains("end of file") || description.contains("Unexpected end") {
            let inString = bytes.reduce((false, false)) { s, b in
                let (inside, escaped) = s
                if escaped { return (inside, false) }
                if b == UInt8(ascii: "\\") && inside { return (inside, true) }
                return b == UInt8(ascii: "\"") ? (!inside, false) : (inside, false)
            }.0
            return (nil, "the line ends " + (inString ? "inside a string" : "before its JSON object does")
                    + " (cut short?); " + whole)
        }
        guard let range = description.range(of: "character "),
              let at = Int(description[range.upperBound...].prefix { $0.isNumber }), at >= 0, at <= bytes.count else {
            return (nil, "not a JSON object (\(description)); \(whole)")
        }
        let column = at + 1
        let rest = String(decoding: bytes[at...].prefix(12), as: UTF8.self)
        let found = rest.isEmpty ? "the line's end" : "'\(rest.prefix { $0 != "," && $0 != "}" })'"
        // The key just before: `"name"` then blanks and a colon, then the value at `at`.
        let before = String(decoding: bytes[..<at], as: UTF8.self)
        let trimmed = before.reversed().drop { $0 == " " || $0 == "\t" }
        if trimmed.first == ":" {
            let key = trimmed.dropFirst().drop { $0 == " " || $0 == "\t" }
            if key.first == "\"" {
                let name = String(key.dropFirst().prefix { $0 != "\"" }.reversed())
                let nonNumber = rest.hasPrefix("NaN") || rest.hasPrefix("Infinity") || rest.hasPrefix("-Infinity")
                return (name, "column \(column): \(found) is not " + (nonNumber ? "a number JSON allows" : "a JSON value")
                        + "; expected \(expected(name))")
            }
        }
        return (nil, "column \(column): \(found) is not JSON; \(whole)")
    }
}
