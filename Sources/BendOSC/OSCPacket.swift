// SPDX-License-Identifier: GPL-3.0-or-later
import CLO
import Glibc

/// One OSC argument, as decoded by liblo (numbers in host byte order).
public enum OSCValue: Sendable, Equatable {
    case int32(Int32)
    case int64(Int64)
    case float(Float)
    case double(Double)
    case string(String)
    /// A blob: only its size is kept (bendsynth reads none).
    case blob(Int)
    case bool(Bool)
    /// Nil, infinitum, MIDI, timetag, char, colour: present, without a value we read.
    case other(Character)

    /// The value as a number when it is one (int32, int64, float, double, bool).
    public var number: Double? {
        switch self {
        case .int32(let v): return Double(v)
        case .int64(let v): return Double(v)
        case .float(let v): return Double(v)
        case .double(let v): return v
        case .bool(let v): return v ? 1 : 0
        default: return nil
        }
    }
}

/// One OSC message: address pattern, type tags (without the leading ',') and arguments.
public struct OSCMessage: Sendable, Equatable {
    public var address: String
    public var types: String
    public var arguments: [OSCValue]

    public init(address: String, types: String, arguments: [OSCValue]) {
        self.address = address
        self.types = types
        self.arguments = arguments
    }
}

/// A decoded OSC packet: a message, or a bundle of packets with its NTP time tag.
public indirect enum OSCPacket: Sendable, Equatable {
    case message(OSCMessage)
    case bundle(timetag: UInt64, elements: [OSCPacket])

    /// Every message of the packet, bundles flattened in order.
    public var messages: [OSCMessage] {
        switch self {
        case .message(let m): return [m]
        case .bundle(_, let elements): return elements.flatMap(\.messages)
        }
    }
}

/// Why a datagram is not an OSC packet.
public struct OSCDecodeError: Error, Equatable, CustomStringConvertible, Sendable {
    /// What is wrong, e.g. "bundle element 2 is 40 bytes, 12 remain".
    public var reason: String
    /// The liblo error code (9900…), 0 for bundle structure errors found by bendsynth.
    public var code: Int32

    public var description: String { code == 0 ? reason : "\(reason) (liblo error \(code))" }
}

extension OSCPacket {
    /// Deepest bundle nesting accepted.
    public static let maxDepth = 8
    /// Largest packet accepted, bytes (UDP's limit).
    public static let maxSize = 65_507

    /// Decodes one datagram (or one TCP frame). Messages go through liblo's
    /// `lo_message_deserialise`; bundles are walked here, every size checked against
    /// what remains. A message with no type-tag string (OSC 1.0 asks receivers to be
    /// robust to it; liblo rejects it with LO_ENOTYPE, radarsat1/liblo #17) decodes as
    /// a message with no arguments, like one with the empty type tag ",".
    /// - Throws: `OSCDecodeError` naming what is malformed.
    /// - Thread: any.
    public static func decode(_ bytes: UnsafeRawBufferPointer) throws(OSCDecodeError) -> OSCPacket {
        guard bytes.count <= maxSize else {
            throw OSCDecodeError(reason: "packet of \(bytes.count) bytes is larger than \(maxSize)", code: 0)
        }
        return try decode(bytes, depth: 0)
    }

    /// Decodes a byte array (tests, fuzzing). - Thread: any.
    public static func decode(_ bytes: [UInt8]) throws(OSCDecodeError) -> OSCPacket {
        do {
            return try bytes.withUnsafeBytes { try decode($0) }
        } catch let e as OSCDecodeError {
            throw e
        } catch {
            throw OSCDecodeError(reason: "\(error)", code: 0)
        }
    }

    private static let bundleTag: [UInt8] = Array("#bundle".utf8) + [0]

    private static func decode(_ bytes: UnsafeRawBufferPointer, depth: Int) throws(OSCDecodeError) -> OSCPacket {
        guard bytes.count >= 4 else {
            throw OSCDecodeError(reason: "packet of \(bytes.count) bytes is shorter than 4", code: 0)
        }
        guard bytes.count % 4 == 0 else {
            throw OSCDecodeError(reason: "packet size \(bytes.count) is not a multiple of 4", code: 0)
        }
        if bytes.count >= 8 && bytes.prefix(8).elementsEqual(bundleTag) {
            guard depth < maxDepth else {
                throw OSCDecodeError(reason: "bundles nested deeper than \(maxDepth)", code: 0)
            }
            guard bytes.count >= 16 else {
                throw OSCDecodeError(reason: "bundle of \(bytes.count) bytes has no time tag", code: 0)
            }
            let timetag = readUInt64(bytes, at: 8)
            var elements: [OSCPacket] = []
            var offset = 16
            while offset < bytes.count {
                guard bytes.count - offset >= 4 else {
                    throw OSCDecodeError(reason: "bundle element \(elements.count + 1): size field cut short", code: 0)
                }
                let size = Int(Int32(bitPattern: UInt32(readUInt64(bytes, at: offset, count: 4))))
                offset += 4
                guard size >= 0, size <= bytes.count - offset else {
                    throw OSCDecodeError(reason: "bundle element \(elements.count + 1) is \(size) bytes, \(bytes.count - offset) remain", code: 0)
                }
                let element = UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + size)])
                elements.append(try decode(element, depth: depth + 1))
                offset += size
            }
            return .bundle(timetag: timetag, elements: elements)
        }
        return .message(try decodeMessage(bytes))
    }

    /// Big-endian unsigned integer of `count` bytes at `offset`.
    private static func readUInt64(_ bytes: UnsafeRawBufferPointer, at offset: Int, count: Int = 8) -> UInt64 {
        var v: UInt64 = 0
        for i in 0..<count { v = v << 8 | UInt64(bytes[offset + i]) }
        return v
    }

    private static func decodeMessage(_ bytes: UnsafeRawBufferPointer) throws(OSCDecodeError) -> OSCMessage {
        var result: Int32 = 0
        // liblo takes a mutable pointer but only reads the data (it copies it).
        let message = lo_message_deserialise(UnsafeMutableRawPointer(mutating: bytes.baseAddress!), bytes.count, &result)
        guard let message else {
            if result == LO_ENOTYPE, let path = addressWithoutTypeTag(bytes) {
                return OSCMessage(address: path, types: "", arguments: [])
            }
            throw OSCDecodeError(reason: "not an OSC message", code: result)
        }
        defer { lo_message_free(message) }
        let types = lo_message_get_types(message).map { String(cString: $0) } ?? ""
        let count = Int(lo_message_get_argc(message))
        var arguments: [OSCValue] = []
        arguments.reserveCapacity(count)
        if count > 0, let argv = lo_message_get_argv(message) {
            let tags = Array(types.utf8)
            for i in 0..<min(count, tags.count) {
                switch tags[i] {  // types without data (liblo may give no pointer)
                case UInt8(ascii: "T"): arguments.append(.bool(true))
                case UInt8(ascii: "F"): arguments.append(.bool(false))
                default:
                    guard let arg = argv[i] else { arguments.append(.other(Character(UnicodeScalar(tags[i])))); continue }
                    arguments.append(value(tag: tags[i], UnsafeRawPointer(arg)))
                }
            }
        }
        // The address as sent (lo_message_deserialise checked it is terminated and padded).
        let address = String(cString: bytes.baseAddress!.assumingMemoryBound(to: CChar.self))
        return OSCMessage(address: address, types: types, arguments: arguments)
    }

    /// One argument's value. Reads only the argument's own bytes: `arg.pointee.i` would
    /// load the whole 8-byte `lo_arg` union, 4 bytes past a final int32 or float in
    /// liblo's copy of the message (a heap over-read AddressSanitizer found: `make fuzz`,
    /// RW-48's `fseq` bundle).
    static func value(tag: UInt8, _ raw: UnsafeRawPointer) -> OSCValue {
        switch tag {
        case UInt8(ascii: "i"): return .int32(raw.loadUnaligned(as: Int32.self))
        case UInt8(ascii: "h"): return .int64(raw.loadUnaligned(as: Int64.self))
        case UInt8(ascii: "f"): return .float(raw.loadUnaligned(as: Float.self))
        case UInt8(ascii: "d"): return .double(raw.loadUnaligned(as: Double.self))
        case UInt8(ascii: "s"), UInt8(ascii: "S"):
            return .string(String(cString: raw.assumingMemoryBound(to: CChar.self)))
        case UInt8(ascii: "b"): return .blob(Int(raw.loadUnaligned(as: Int32.self)))
        default: return .other(Character(UnicodeScalar(tag)))
        }
    }

    /// The address of a message that has no type-tag string: a NUL-terminated string
    /// padded to 4 bytes that fills the whole packet.
    private static func addressWithoutTypeTag(_ bytes: UnsafeRawBufferPointer) -> String? {
        guard let end = bytes.firstIndex(of: 0), bytes.first == UInt8(ascii: "/") else { return nil }
        let padded = (end + 4) & ~3
        guard padded == bytes.count, bytes[end...].allSatisfy({ $0 == 0 }) else { return nil }
        return String(decoding: bytes[..<end], as: UTF8.self)
    }
}
