// SPDX-License-Identifier: GPL-3.0-or-later
/// One D-Bus value, as read from or written to a message. Containers carry their element
/// signatures so an empty array or dict can still be written.
public indirect enum DBusValue: Sendable, Equatable, CustomStringConvertible {
    case bool(Bool)
    /// y, n, i, x (signed) — `signature` keeps which.
    case int(Int64, signature: Character)
    /// q, u, t (unsigned).
    case uint(UInt64, signature: Character)
    case double(Double)
    case string(String)
    case objectPath(String)
    case signature(String)
    /// A Unix file descriptor. Read from a message: a duplicate the reader owns (-1 when
    /// none was left). Written: the message dups it (the writer keeps its own).
    case fd(Int32)
    case array(element: String, [DBusValue])
    case dict(key: String, value: String, [DictEntry])
    case structure([DBusValue])
    case variant(DBusValue)

    /// A dict entry (key, value) of `dict`.
    public struct DictEntry: Sendable, Equatable {
        public var key: DBusValue
        public var value: DBusValue
        public init(_ key: DBusValue, _ value: DBusValue) { self.key = key; self.value = value }
    }

    public static func byte(_ v: UInt8) -> DBusValue { .int(Int64(v), signature: "y") }
    public static func int16(_ v: Int16) -> DBusValue { .int(Int64(v), signature: "n") }
    public static func int32(_ v: Int32) -> DBusValue { .int(Int64(v), signature: "i") }
    public static func uint16(_ v: UInt16) -> DBusValue { .uint(UInt64(v), signature: "q") }
    public static func uint32(_ v: UInt32) -> DBusValue { .uint(UInt64(v), signature: "u") }
    /// An `a{sv}` dict (D-Bus properties and options) from name → value.
    public static func properties(_ entries: [(String, DBusValue)]) -> DBusValue {
        .dict(key: "s", value: "v", entries.map { DictEntry(.string($0.0), .variant($0.1)) })
    }
    public static func strings(_ list: [String]) -> DBusValue { .array(element: "s", list.map { .string($0) }) }

    /// The D-Bus type signature of this value.
    public var signature: String {
        switch self {
        case .bool: "b"
        case .int(_, let s), .uint(_, let s): String(s)
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .fd: "h"
        case .array(let e, _): "a" + e
        case .dict(let k, let v, _): "a{" + k + v + "}"
        case .structure(let items): "(" + items.map(\.signature).joined() + ")"
        case .variant: "v"
        }
    }

    public var description: String {
        switch self {
        case .bool(let b): "\(b)"
        case .int(let v, _): "\(v)"
        case .uint(let v, _): "\(v)"
        case .double(let d): "\(d)"
        case .string(let s), .objectPath(let s), .signature(let s): "'\(s)'"
        case .fd(let fd): "fd \(fd)"
        case .array(_, let items): "[" + items.map(\.description).joined(separator: ", ") + "]"
        case .dict(_, _, let entries): "{" + entries.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "}"
        case .structure(let items): "(" + items.map(\.description).joined(separator: ", ") + ")"
        case .variant(let v): v.description
        }
    }

    // MARK: - Reading values back

    /// The value inside any number of variants.
    public var unwrapped: DBusValue { if case .variant(let v) = self { v.unwrapped } else { self } }
    /// A string, object path or signature.
    public var string: String? {
        switch unwrapped { case .string(let s), .objectPath(let s), .signature(let s): s; default: nil }
    }
    public var bool: Bool? { if case .bool(let b) = unwrapped { b } else { nil } }
    /// Any integer, signed or unsigned (nil when it does not fit).
    public var integer: Int64? {
        switch unwrapped { case .int(let v, _): v; case .uint(let v, _): Int64(exactly: v); default: nil }
    }
    /// Array items (nil for anything else).
    public var items: [DBusValue]? { if case .array(_, let items) = unwrapped { items } else { nil } }
    /// Strings of an array of strings or object paths.
    public var stringList: [String]? { items?.compactMap(\.string) }
    /// A dict with string (or object path) keys as name → value.
    public var namedEntries: [String: DBusValue]? {
        guard case .dict(_, _, let entries) = unwrapped else { return nil }
        var out: [String: DBusValue] = [:]
        for e in entries { if let k = e.key.string { out[k] = e.value } }
        return out
    }
}
