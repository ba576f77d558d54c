// SPDX-License-Identifier: GPL-3.0-or-later
import CLO
import Glibc

/// Encodes OSC messages (replies) with liblo's `lo_message_serialise`.
public enum OSCEncoder {
    /// The bytes of message `address` with int32, float and string arguments
    /// (other values are skipped); nil if liblo refuses (an invalid address).
    /// - Thread: any.
    public static func encode(_ address: String, _ arguments: [OSCValue]) -> [UInt8]? {
        guard let m = lo_message_new() else { return nil }
        defer { lo_message_free(m) }
        for a in arguments {
            switch a {
            case .int32(let v): lo_message_add_int32(m, v)
            case .int64(let v): lo_message_add_int64(m, v)
            case .float(let v): lo_message_add_float(m, v)
            case .double(let v): lo_message_add_double(m, v)
            case .string(let s): lo_message_add_string(m, s)
            case .bool(let b): if b { lo_message_add_true(m) } else { lo_message_add_false(m) }
            case .blob, .other: continue
            }
        }
        var size = 0
        guard let data = lo_message_serialise(m, address, nil, &size) else { return nil }
        defer { free(data) }
        return Array(UnsafeRawBufferPointer(start: data, count: size))
    }

    /// A bundle of already encoded elements with time tag 1 ("immediately").
    /// - Thread: any.
    public static func bundle(_ elements: [[UInt8]], timetag: UInt64 = 1) -> [UInt8] {
        var out = Array("#bundle".utf8) + [0]
        for i in (0..<8).reversed() { out.append(UInt8(truncatingIfNeeded: timetag >> (8 * UInt64(i)))) }
        for e in elements {
            let n = UInt32(e.count)
            out += [UInt8(n >> 24), UInt8(truncatingIfNeeded: n >> 16), UInt8(truncatingIfNeeded: n >> 8), UInt8(truncatingIfNeeded: n)]
            out += e
        }
        return out
    }
}
