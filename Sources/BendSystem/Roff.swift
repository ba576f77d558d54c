// SPDX-License-Identifier: GPL-3.0-or-later
/// Text for a man page in roff (man(7) macros).
public enum Roff {
    /// `.TP` entries: `-d, --device PCM` then the help line.
    public static func options(_ specs: [OptionSpec]) -> [String] {
        specs.flatMap { spec -> [String] in
            var tag = spec.short.map { "\\fB\\-\($0)\\fR, " } ?? ""
            tag += "\\fB\\-\\-\(escape(spec.long))\\fR"
            if let v = spec.value { tag += " \\fI\(escape(v))\\fR" }
            return [".TP", tag, escape(spec.help)]
        }
    }

    /// Text safe in roff: backslashes and hyphens escaped, no line starting with a
    /// control character.
    public static func escape(_ text: String) -> String {
        text.replacing("\\", with: "\\e")
            .replacing("-", with: "\\-")
            .split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.hasPrefix(".") || $0.hasPrefix("'") ? "\\&" + $0 : String($0) }
            .joined(separator: "\n")
    }
}
