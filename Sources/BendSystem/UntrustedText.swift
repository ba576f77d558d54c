// SPDX-License-Identifier: GPL-3.0-or-later
/// Text that came from outside — a peer's name or TEXT, a LAN announcement, an OSC
/// address, a device's name, a line of a file — made safe to write to a terminal:
/// everything a terminal could act on is written out instead of sent.
///
/// - C0 controls U+0000…U+001F and DEL as `\xNN` (ESC → `\x1b`, BEL → `\x07`);
/// - C1 controls U+0080…U+009F (U+009B is CSI to a terminal in 8-bit mode), the bidi
///   controls (U+061C, U+200E/F, U+202A…U+202E, U+2066…U+2069: an override reorders the
///   rest of the line) and the line and paragraph separators U+2028/U+2029 as `\uNNNN`;
/// - bytes that are not UTF-8 (`escaped(bytes:)`) as `\xNN`, one per byte.
///
/// A backslash is kept as it is, so escaping is idempotent: text escaped where it enters
/// can be escaped again where it is written (the pad, stderr) without changing. The
/// price: a name that spells `\x1b` reads like one that held ESC; neither reaches the
/// terminal as a control.
/// - Thread: any (pure).
public enum UntrustedText {
    /// `text` with its controls written out (see the type). Returns `text` itself when
    /// nothing needs it.
    /// - Parameter keepingNewlines: leave U+000A alone (multi-line messages of our own
    ///   whose untrusted parts were escaped where they entered).
    public static func escaped(_ text: String, keepingNewlines: Bool = false) -> String {
        guard text.unicodeScalars.contains(where: { needsEscape($0) && !(keepingNewlines && $0 == "\n") }) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 16)
        for s in text.unicodeScalars {
            if needsEscape(s), !(keepingNewlines && s == "\n") { out += written(s) } else { out.unicodeScalars.append(s) }
        }
        return out
    }

    /// Bytes that should be UTF-8 (a datagram, a device name, a line of a file), as
    /// escaped text: each byte of an invalid sequence as `\xNN`, the rest as `escaped`.
    public static func escaped(bytes: some Collection<UInt8>) -> String {
        var out = ""
        var rest = Array(bytes)[...]
        while let first = rest.first {
            // One scalar at a time: `UTF8.decode` does not say how many bytes an error took.
            var decoder = UTF8()
            var one = rest.makeIterator()
            if case .scalarValue(let s) = decoder.decode(&one) {
                out += needsEscape(s) ? written(s) : String(s)
                rest = rest.dropFirst(UTF8.width(s))
            } else {
                out += hex(first)
                rest = rest.dropFirst()
            }
        }
        return out
    }

    /// True for the scalars `escaped` writes out.
    public static func needsEscape(_ s: Unicode.Scalar) -> Bool {
        switch s.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x2028...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    private static func written(_ s: Unicode.Scalar) -> String {
        if s.value <= 0x7F { return hex(UInt8(s.value)) }
        let digits = String(s.value, radix: 16)
        return "\\u" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16)
        return "\\x" + (digits.count == 1 ? "0" : "") + digits
    }
}
