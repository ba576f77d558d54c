// SPDX-License-Identifier: GPL-3.0-or-later
import CSystemd
import Glibc

/// An sd-bus message (a method call, reply, error or signal), held by reference.
/// Read its arguments with `arguments()`, add arguments with `append`.
/// - Thread: the connection's (see `DBusConnection`).
public final class DBusMessage: @unchecked Sendable {
    let raw: OpaquePointer

    /// Takes a new reference to `raw`.
    init(retaining raw: OpaquePointer) {
        self.raw = sd_bus_message_ref(raw)
    }
    /// Adopts the reference the caller owns.
    init(adopting raw: OpaquePointer) { self.raw = raw }

    deinit { sd_bus_message_unref(raw) }

    public var member: String { sd_bus_message_get_member(raw).map { String(cString: $0) } ?? "" }
    public var interface: String { sd_bus_message_get_interface(raw).map { String(cString: $0) } ?? "" }
    public var path: String { sd_bus_message_get_path(raw).map { String(cString: $0) } ?? "" }
    /// The sender's unique name (":1.42").
    public var sender: String { sd_bus_message_get_sender(raw).map { String(cString: $0) } ?? "" }

    /// The error this message carries (a method error reply), or nil.
    public var error: DBusError? {
        guard let e = sd_bus_message_get_error(raw), let name = e.pointee.name else { return nil }
        return DBusError(name: String(cString: name), message: e.pointee.message.map { String(cString: $0) } ?? "", call: member)
    }

    // MARK: - Reading

    /// Every argument, read once from the start. A descriptor comes as a duplicate the
    /// caller owns (and closes).
    public func arguments() -> [DBusValue] {
        var out: [DBusValue] = []
        while let v = readValue() { out.append(v) }
        return out
    }

    private func readValue() -> DBusValue? {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>?
        guard sd_bus_message_peek_type(raw, &type, &contents) > 0 else { return nil }
        let t = Character(UnicodeScalar(UInt8(bitPattern: type)))
        let inner = contents.map { String(cString: $0) } ?? ""
        switch t {
        case "a", "v", "r", "e":
            guard sd_bus_message_enter_container(raw, type, contents) >= 0 else { return nil }
            var items: [DBusValue] = []
            while let v = readValue() { items.append(v) }
            _ = sd_bus_message_exit_container(raw)
            switch t {
            case "v": return .variant(items.first ?? .structure([]))
            case "r", "e": return .structure(items)
            default:
                if inner.hasPrefix("{") {
                    let sigs = DBusSignature.split(String(inner.dropFirst().dropLast()))
                    let entries = items.compactMap { e -> DBusValue.DictEntry? in
                        guard case .structure(let kv) = e, kv.count == 2 else { return nil }
                        return DBusValue.DictEntry(kv[0], kv[1])
                    }
                    return .dict(key: sigs.first ?? "s", value: sigs.count > 1 ? sigs[1] : "v", entries)
                }
                return .array(element: inner, items)
            }
        default:
            return readBasic(t, type)
        }
    }

    private func readBasic(_ t: Character, _ type: CChar) -> DBusValue? {
        var storage: UInt64 = 0
        var pointer: UnsafePointer<CChar>?
        let r: Int32
        if t == "s" || t == "o" || t == "g" {
            r = sd_bus_message_read_basic(raw, type, &pointer)
        } else {
            r = withUnsafeMutableBytes(of: &storage) { sd_bus_message_read_basic(raw, type, $0.baseAddress) }
        }
        guard r > 0 else { return nil }
        switch t {
        case "s": return .string(pointer.map { String(cString: $0) } ?? "")
        case "o": return .objectPath(pointer.map { String(cString: $0) } ?? "")
        case "g": return .signature(pointer.map { String(cString: $0) } ?? "")
        case "b": return .bool(Int32(truncatingIfNeeded: storage) != 0)
        case "y": return .int(Int64(UInt8(truncatingIfNeeded: storage)), signature: "y")
        case "n": return .int(Int64(Int16(truncatingIfNeeded: storage)), signature: "n")
        case "i": return .int(Int64(Int32(truncatingIfNeeded: storage)), signature: "i")
        case "x": return .int(Int64(bitPattern: storage), signature: "x")
        case "q": return .uint(UInt64(UInt16(truncatingIfNeeded: storage)), signature: "q")
        case "u": return .uint(UInt64(UInt32(truncatingIfNeeded: storage)), signature: "u")
        case "t": return .uint(storage, signature: "t")
        case "d": return .double(Double(bitPattern: storage))
        case "h": return .fd(fcntl(Int32(truncatingIfNeeded: storage), F_DUPFD_CLOEXEC, 0))
        default: return nil
        }
    }

    // MARK: - Writing

    /// Appends `values` in order.
    /// - Throws: `DBusError` naming the value that could not be appended.
    public func append(_ values: [DBusValue]) throws(DBusError) {
        for v in values { try append(v) }
    }

    public func append(_ value: DBusValue) throws(DBusError) {
        let r = write(value)
        if r < 0 { throw DBusError(call: "sd_bus_message_append(\(value.signature))", errno: -r) }
    }

    private func write(_ value: DBusValue) -> Int32 {
        func basic<T>(_ type: Character, _ v: T) -> Int32 {
            var v = v
            return withUnsafeBytes(of: &v) { sd_bus_message_append_basic(raw, CChar(type.asciiValue!), $0.baseAddress) }
        }
        func container(_ type: Character, _ contents: String, _ body: () -> Int32) -> Int32 {
            var r = sd_bus_message_open_container(raw, CChar(type.asciiValue!), contents)
            if r >= 0 { r = body() }
            if r >= 0 { r = sd_bus_message_close_container(raw) }
            return r
        }
        func all(_ items: [DBusValue]) -> Int32 {
            for i in items { let r = write(i); if r < 0 { return r } }
            return 0
        }
        switch value {
        case .bool(let b): return basic("b", Int32(b ? 1 : 0))
        case .int(let v, let s):
            switch s {
            case "y": return basic(s, UInt8(truncatingIfNeeded: v))
            case "n": return basic(s, Int16(truncatingIfNeeded: v))
            case "i": return basic(s, Int32(truncatingIfNeeded: v))
            default: return basic("x", v)
            }
        case .uint(let v, let s):
            switch s {
            case "q": return basic(s, UInt16(truncatingIfNeeded: v))
            case "u": return basic(s, UInt32(truncatingIfNeeded: v))
            default: return basic("t", v)
            }
        case .double(let d): return basic("d", d)
        case .fd(let fd): return basic("h", fd)
        case .string(let s), .objectPath(let s), .signature(let s):
            let t: CChar = if case .string = value { CChar(UInt8(ascii: "s")) } else if case .objectPath = value { CChar(UInt8(ascii: "o")) } else { CChar(UInt8(ascii: "g")) }
            return s.withCString { sd_bus_message_append_basic(raw, t, $0) }
        case .array(let element, let items): return container("a", element) { all(items) }
        case .dict(let k, let v, let entries):
            return container("a", "{" + k + v + "}") {
                for e in entries {
                    let r = container("e", k + v) { all([e.key, e.value]) }
                    if r < 0 { return r }
                }
                return 0
            }
        case .structure(let items): return container("r", String(value.signature.dropFirst().dropLast())) { all(items) }
        case .variant(let inner): return container("v", inner.signature) { write(inner) }
        }
    }
}

/// Splitting D-Bus signatures into single complete types.
enum DBusSignature {
    /// "sv" → ["s", "v"]; "oa{sv}" → ["o", "a{sv}"].
    static func split(_ signature: String) -> [String] {
        var out: [String] = []
        var current = "", depth = 0
        for c in signature {
            current.append(c)
            switch c {
            case "(", "{": depth += 1
            case ")", "}": depth -= 1
            default: break
            }
            if depth == 0 && c != "a" { out.append(current); current = "" }
        }
        return out
    }
}
