// SPDX-License-Identifier: GPL-3.0-or-later
/// A command-line option for `OptionParser`: a kebab-case long name, an optional short
/// letter, whether it takes a value, and one line of help.
public struct OptionSpec: Sendable {
    public var long: String
    public var short: Character?
    /// Name of the value in the help (`FILE`, `N`); nil for a flag.
    public var value: String?
    public var help: String

    /// What the value is, for completion, when its name does not say (`valueKind`).
    public var kind: ValueKind?

    public init(_ long: String, _ short: Character? = nil, value: String? = nil, kind: ValueKind? = nil, help: String) {
        self.long = long
        self.short = short
        self.value = value
        self.kind = kind
        self.help = help
    }

    /// True when the value may be left out: its name is all optional parts
    /// (`[ADDR][:PORT]`). A bare option then has the empty value.
    public var valueIsOptional: Bool {
        guard let v = value, v.hasPrefix("["), v.hasSuffix("]") else { return false }
        var depth = 0
        for c in v {
            if c == "[" { depth += 1 } else if c == "]" { depth -= 1 } else if depth == 0 { return false }
        }
        return depth == 0
    }

    /// Whether `word`, after this option (an optional value's), is its value: an address
    /// or a port — digits, or a word with a dot, a colon or a bracket (`0.0.0.0`, `:5000`,
    /// `[::1]:47810`), or `localhost` — never an option (`-…`). Any other word (a host
    /// name without a dot) goes with `=`: `--listen=myhost`.
    public func takesAsValue(_ word: String) -> Bool {
        guard !word.isEmpty, !word.hasPrefix("-") else { return false }
        return word.allSatisfy(\.isNumber) || word.contains { $0 == "." || $0 == ":" || $0 == "[" } || word == "localhost"
    }
}

extension OptionSpec {
    /// What the value of an option is, for completion (`Completion`) and for the files a
    /// command reads (an option whose value is a file names an input).
    public enum ValueKind: Equatable, Sendable {
        case none, file
        /// The words the program itself prints, one a line, when run with `arguments`
        /// (`devices --pcm-names`); `name` names the zsh function that lists them.
        case listed(by: String, name: String)
        case words([String])
        /// Files with these extensions (and folders), and these words (`--scale`: a Scala
        /// file or a built-in scale's name).
        case files(extensions: [String], words: [String])
        case other
    }

    /// `kind` when given, else read off the value's name: `FILE`, `OUT.wav`, `DEV`, `DIR`
    /// → a file; `a|b` → one of the words; a flag → none.
    public var valueKind: ValueKind {
        guard let v = value else { return .none }
        if let kind { return kind }
        if v.contains("FILE") || v.contains(".") || v == "DEV" || v == "DIR" { return .file }
        if v.contains("|") && !v.contains("[") { return .words(v.split(separator: "|").map(String.init)) }
        return .other
    }
}
