// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// What the terminal can show: UTF-8 (box drawing, `●`, `¢`) or ASCII only. Read from
/// the locale's environment as the C library does (`LC_ALL`, then `LC_CTYPE`, then
/// `LANG`: the first set and non-empty); a locale naming UTF-8 (`en_GB.UTF-8`,
/// `C.utf8`) is UTF-8, anything else (`C`, `POSIX`, `en_US.ISO-8859-1`, none) ASCII.
/// - Thread: any (pure).
public enum TerminalCharset: Sendable, Equatable {
    case utf8, ascii

    public static func from(environment: [String: String]) -> TerminalCharset {
        let locale = ["LC_ALL", "LC_CTYPE", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty } ?? ""
        let lower = locale.lowercased()
        return lower.contains("utf-8") || lower.contains("utf8") ? .utf8 : .ascii
    }

    /// The process's own environment's.
    public static var current: TerminalCharset {
        var env: [String: String] = [:]
        for name in ["LC_ALL", "LC_CTYPE", "LANG"] {
            if let v = getenv(name) { env[name] = String(cString: v) }
        }
        return from(environment: env)
    }

    /// The ASCII character drawn for `c` on an ASCII terminal (`c` itself when ASCII).
    public static func ascii(_ c: Character) -> Character {
        if c.isASCII { return c }
        switch c {
        case "┌", "┐", "└", "┘", "┼": return "+"
        case "─", "┄": return "-"
        case "│": return "|"
        case "┆": return ":"
        case "●": return "o"
        case "▮": return "#"
        case "·": return "."
        case "×": return "x"
        case "¢": return "c"
        case "▸", "→": return ">"
        case "←": return "<"
        case "↓": return "v"
        case "…": return "."
        default: return "?"
        }
    }
}
