// SPDX-License-Identifier: GPL-3.0-or-later
/// One command of a program, as every view of its command line shows it.
public struct CommandInfo: Sendable {
    public var name: String
    /// One line for the command list.
    public var summary: String
    /// The command's help text: the usage line(s), a blank line, what it does, a blank line.
    public var usage: String
    /// The command's own options, then the config file's (`--config`, `--no-config`).
    public var specs: [OptionSpec]
    /// What the operands are, for completion: files, or nothing to complete.
    public var operandsAreFiles: Bool
    /// Runs the command on its arguments (the config file's entries already in front).
    public var run: @Sendable ([String]) throws -> Void

    public init(_ name: String, summary: String, usage: String, specs: [OptionSpec], operandsAreFiles: Bool = false,
                run: @escaping @Sendable ([String]) throws -> Void) {
        self.name = name
        self.summary = summary
        self.usage = usage
        self.specs = specs
        self.operandsAreFiles = operandsAreFiles
        self.run = run
    }
}

/// A program's commands and its own options (those before any command), from which
/// every view of its command line is made: `--help`, the usage line printed with an
/// error, the man page's synopsis and commands (`manSynopsis`, `manCommands`), the
/// bash/zsh completion (`Completion`) and the config file's sections (`ConfigFile`), so
/// they cannot disagree. Every command takes the config file's options too.
public struct CommandSet: Sendable {
    /// The executable's name (`bendsynth`).
    public var program: String
    public var commands: [CommandInfo]
    public var topSpecs: [OptionSpec]

    public init(program: String, commands: [CommandInfo], topSpecs: [OptionSpec]) {
        self.program = program
        self.topSpecs = topSpecs
        let config = ConfigFile.specs(program: program)
        self.commands = commands.map { var c = $0; c.specs += config; return c }
    }

    public var names: [String] { commands.map(\.name) }

    public func command(_ name: String) -> CommandInfo? { commands.first { $0.name == name } }

    /// `PROGRAM COMMAND --help`: the usage text and every option; nil for no such command.
    public func help(_ name: String) -> String? {
        guard let c = command(name) else { return nil }
        return c.usage + OptionParser.help(c.specs) + (OptionParser.negationNote(c.specs).map { "\n\n" + $0 } ?? "")
    }

    /// The usage line(s) of `name`, the first paragraph of its help; for an unknown
    /// command the program's: "usage: PROGRAM COMMAND [options]   (commands: …)".
    public func usageLine(_ name: String) -> String {
        guard let c = command(name) else {
            return "usage: \(program) COMMAND [options]   (commands: \(names.joined(separator: ", ")))"
        }
        return c.usage.split(separator: "\n", omittingEmptySubsequences: false)
            .prefix { !$0.allSatisfy { $0 == " " || $0 == "\t" } }
            .joined(separator: "\n")
    }

    /// The command list of the top help: each name, padded, and its summary.
    public var commandList: String {
        let width = (names.map(\.count).max() ?? 0) + 3
        return commands.map { "  " + $0.name + String(repeating: " ", count: width - $0.name.count) + $0.summary }
            .joined(separator: "\n")
    }

    /// The man page's SYNOPSIS lines: each command's usage line(s), then `topLine`.
    public func manSynopsis(topLine: String) -> [String] {
        var out: [String] = []
        for c in commands {
            for line in usageLine(c.name).split(separator: "\n") {
                out += [".br", Roff.escape(line.trimmed.replacing("usage: ", with: ""))]
            }
        }
        return out + [".br", Roff.escape(topLine)]
    }

    /// The man page's COMMANDS section: each command's summary, the paragraphs of its
    /// help after the usage line, and its options.
    public func manCommands() -> [String] {
        var out = [".SH COMMANDS"]
        for c in commands {
            out += [".SS \(c.name)", Roff.escape(c.summary) + "."]
            let paragraphs = c.usage.split(separator: "\n\n", omittingEmptySubsequences: false).dropFirst()
                .map { $0.trimmed }.filter { !$0.isEmpty }
            for p in paragraphs { out += [".PP", Roff.escape(p)] }
            out += Roff.options(c.specs)
            if let note = OptionParser.negationNote(c.specs) { out += [".PP", Roff.escape(note)] }
        }
        return out
    }
}

extension StringProtocol {
    /// Without the spaces, tabs and newlines at either end.
    var trimmed: String {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        return String(drop(while: blank).reversed().drop(while: blank).reversed())
    }
}
