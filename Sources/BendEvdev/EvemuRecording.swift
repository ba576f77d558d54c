// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Glibc

/// A recording in evemu's text format (`evemu-record`, EVEMU 1.2/1.3): the device
/// description then its events.
///
///     N: Atmel maXTouch Touchscreen        name
///     I: 0018 0000 0000 0000               bus vendor product version (hex)
///     P: 02 00 00 00 00 00 00 00           INPUT_PROP_* bitmask bytes (hex; repeatable)
///     B: 03 03 00 00 00 00 80 e0 0a        event type, then that type's code bitmask bytes
///     A: 35 0 799 0 0 0                    axis (hex), min max fuzz flat [resolution]
///     E: 0.054565 0003 0039 0008           seconds.micros type code (hex) value
///
/// `#` starts a comment. Old recordings come as a `.desc` (description) and an
/// `.events` file (E: lines), read together with `load(paths:)`.
///
/// - Thread: any (values; parsing is pure).
public struct EvemuRecording: Sendable {
    public var device: EvdevDeviceDescription
    public var events: [InputEvent]
    /// The latest event time taken, seconds (about 285 000 years: its microseconds and
    /// their differences fit an Int64).
    public static let maximumSeconds: Int64 = 9_000_000_000_000

    /// A recording that cannot be used: which file, which line, what was expected.
    public struct ParseError: Error, CustomStringConvertible, Equatable, Sendable {
        public var file: String
        /// 1-based; 0 for the file as a whole.
        public var line: Int
        public var message: String
        public var description: String { line == 0 ? "\(file): \(message)" : "\(file):\(line): \(message)" }
    }

    /// Reads one evemu file, or a description file and an events file.
    /// - Throws: `ParseError` (a missing file is line 0).
    public static func load(paths: [String]) throws -> EvemuRecording {
        precondition(paths.count == 1 || paths.count == 2)
        let texts = try paths.map { path -> (String, String) in
            var info = stat()
            if stat(path, &info) == 0, (info.st_mode & S_IFMT) != S_IFREG {
                let what = (info.st_mode & S_IFMT) == S_IFDIR ? "a folder" : "not a regular file"
                throw ParseError(file: path, line: 0, message: "is \(what); expected an evemu recording (evemu-record's text)")
            }
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ParseError(file: path, line: 0, message: "cannot read the file (missing or not readable)")
            }
            // Device names may be any bytes; decode leniently rather than reject.
            return (path, String(decoding: data, as: UTF8.self))
        }
        return try parse(texts)
    }

    /// Parses recording text given as (file name, text) parts, in order.
    /// - Throws: `ParseError` naming the file and line: an unknown or malformed line,
    ///   an event before the description (N: and I:), a description line after the
    ///   events, an unknown event type or axis, a recording that ends inside a frame
    ///   (truncated: no SYN_REPORT after the last event).
    public static func parse(_ parts: [(file: String, text: String)]) throws -> EvemuRecording {
        var p = Parser()
        for (file, text) in parts {
            var number = 0
            // Lines end at "\n" (a CRLF line's "\r" is a blank). Bytes, not Characters:
            // splitting and trimming by Character (grapheme breaking) took half the
            // parse time (`make fuzz`).
            for raw in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
                number += 1
                try p.line(Substring(raw), file: file, number: number)
            }
        }
        guard p.sawName && p.sawID else {
            let file = parts.last?.file ?? "<recording>"
            throw ParseError(file: file, line: 0, message: "no device description (N: and I: lines expected)")
        }
        if let last = p.events.last, !(last.type == EvdevCode.evSyn && last.code == EvdevCode.synReport) {
            throw ParseError(file: p.lastEventFile, line: p.lastEventLine,
                             message: "truncated: the recording ends inside a frame (no SYN_REPORT after this event)")
        }
        return EvemuRecording(device: p.device, events: p.events)
    }

    /// One file's text.
    public static func parse(_ text: String, file: String = "<recording>") throws -> EvemuRecording {
        try parse([(file, text)])
    }
}

private struct Parser {
    var device = EvdevDeviceDescription(name: "")
    var events: [InputEvent] = []
    var sawName = false, sawID = false
    var propertyBytes = 0
    var bitmaskBytes: [UInt16: Int] = [:]
    var lastEventFile = "", lastEventLine = 0

    mutating func line(_ raw: Substring, file: String, number: Int) throws {
        func fail(_ message: String) -> EvemuRecording.ParseError {
            EvemuRecording.ParseError(file: file, line: number, message: message)
        }
        if raw.hasPrefix("N:") {
            guard events.isEmpty else { throw fail("device description (N:) after the events") }
            device.name = String(raw.dropFirst(2)).trimmingCharacters(in: .whitespacesAndNewlines)
            sawName = true
            return
        }
        // The fields before any "#", between blanks (ASCII space, tab, CR, VT, FF).
        let bytes = raw.utf8
        let code = bytes.firstIndex(of: UInt8(ascii: "#")).map { bytes[..<$0] } ?? bytes[...]
        let fields = code.split(whereSeparator: { $0 == 0x20 || (0x09...0x0D).contains($0) }).map { String(Substring($0)) }
        guard let kind = fields.first else { return }
        let args = Array(fields.dropFirst())
        func hex(_ s: String, _ what: String, max: UInt32 = 0xffff) throws -> UInt32 {
            guard let v = UInt32(s, radix: 16), v <= max else { throw fail("\(what) '\(s)' is not hexadecimal 0…\(String(max, radix: 16))") }
            return v
        }
        func int(_ s: String, _ what: String) throws -> Int32 {
            guard let v = Int32(s) else { throw fail("\(what) '\(s)' is not a decimal integer") }
            return v
        }
        if kind != "E:" && !events.isEmpty {
            throw fail("device description (\(kind)) after the events")
        }
        switch kind {
        case "I:":
            guard args.count == 4 else { throw fail("expected 'I: bus vendor product version' (4 hex numbers), got \(args.count)") }
            let v = try args.map { try UInt16(hex($0, "id field")) }
            (device.bus, device.vendor, device.product, device.version) = (v[0], v[1], v[2], v[3])
            sawID = true
        case "P:":
            for a in args {
                let byte = try hex(a, "property byte", max: 0xff)
                for bit in 0..<8 where byte & (1 << bit) != 0 { device.properties.insert(UInt16(propertyBytes * 8 + bit)) }
                propertyBytes += 1
            }
        case "B:":
            guard args.count >= 2 else { throw fail("expected 'B: type byte…' (hex)") }
            let type = UInt16(try hex(args[0], "event type", max: UInt32(EvdevCode.evMax)))
            var offset = bitmaskBytes[type] ?? 0
            for a in args.dropFirst() {
                let byte = try hex(a, "bitmask byte", max: 0xff)
                for bit in 0..<8 where byte & (1 << bit) != 0 {
                    let code = UInt16(offset * 8 + bit)
                    switch type {
                    case 0: device.eventTypes.insert(code)
                    case EvdevCode.evKey: device.keys.insert(code)
                    case EvdevCode.evRel: device.relative.insert(code)
                    default: break  // ABS comes from A: lines; MSC, LED… unused
                    }
                }
                offset += 1
            }
            bitmaskBytes[type] = offset
        case "A:":
            guard args.count == 5 || args.count == 6 else {
                throw fail("expected 'A: axis min max fuzz flat [resolution]', got \(args.count) fields")
            }
            let code = try hex(args[0], "axis")
            guard code <= UInt32(EvdevCode.absMax) else { throw fail("unknown axis 0x\(args[0]) (ABS codes end at 0x3f)") }
            let n = try args.dropFirst().map { try int($0, "axis value") }
            guard n[1] >= n[0] else { throw fail("axis 0x\(args[0]): maximum \(n[1]) below minimum \(n[0])") }
            device.absolute[UInt16(code)] = AbsInfo(minimum: n[0], maximum: n[1], fuzz: n[2], flat: n[3], resolution: n.count > 4 ? n[4] : 0)
        case "E:":
            guard sawName && sawID else { throw fail("event before the device description (N: and I: lines expected first)") }
            guard args.count == 4 else { throw fail("expected 'E: seconds.micros type code value', got \(args.count) fields (truncated?)") }
            let time = args[0].split(separator: ".", omittingEmptySubsequences: false)
            guard time.count == 2, let sec = Int64(time[0]), sec >= 0, time[1].count == 6, let usec = Int64(time[1]), usec >= 0 else {
                throw fail("time '\(args[0])' is not seconds.micros (6 digits)")
            }
            // Microseconds must fit an Int64 (found by `make fuzz`: a huge time trapped).
            guard sec <= EvemuRecording.maximumSeconds else {
                throw fail("time '\(args[0])' is out of range (seconds up to \(EvemuRecording.maximumSeconds))")
            }
            let type = UInt16(try hex(args[1], "event type"))
            guard type <= EvdevCode.evMax else { throw fail("unknown event type 0x\(args[1])") }
            let code = UInt16(try hex(args[2], "event code"))
            if type == EvdevCode.evAbs && code > EvdevCode.absMax { throw fail("unknown axis 0x\(args[2]) (ABS codes end at 0x3f)") }
            if type == EvdevCode.evKey && code > EvdevCode.keyMax { throw fail("unknown key 0x\(args[2])") }
            let value = try int(args[3], "event value")
            events.append(InputEvent(micros: sec * 1_000_000 + usec, type: type, code: code, value: value))
            lastEventFile = file
            lastEventLine = number
        default:
            throw fail("unknown line '\(kind)'; expected N:, I:, P:, B:, A: or E:")
        }
    }
}
