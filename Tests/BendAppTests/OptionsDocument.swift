// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem

@testable import BendApp

/// docs/OPTIONS.md's table, made from `CommandTable` like `--help` and the man page: one
/// row per option and help line, naming the commands that take it. It lives in the test
/// target, not in the shipped binary: `DocsTests` checks that docs/OPTIONS.md holds
/// exactly this between its markers, and `make docs` rewrites it.
enum OptionsDocument {
    static let path = "docs/OPTIONS.md"
    static let begin = "<!-- options: made from the option table by 'make docs'; do not edit by hand -->"
    static let end = "<!-- options end -->"

    static var table: String {
        var rows: [(key: String, option: String, help: String, commands: [String])] = []
        for c in CommandTable.all {
            for spec in c.specs where !["help", "config", "no-config"].contains(spec.long) {
                let option = name(spec)
                let key = option + "\u{0}" + spec.help
                if let i = rows.firstIndex(where: { $0.key == key }) {
                    rows[i].commands.append(c.name)
                } else {
                    rows.append((key, option, spec.help, [c.name]))
                }
            }
        }
        let every = CommandTable.configSpecs.map { spec in
            "| `\(cell(name(spec)))` | every command | \(cell(spec.help)) |"
        }
        let top = CommandTable.topSpecs.filter { $0.long != "help" }.map { spec in
            "| `\(cell(name(spec)))` | none: `bendsynth --\(spec.long)` | \(cell(spec.help)) |"
        }
        let lines = ["| option | commands | meaning |", "|---|---|---|"]
            + rows.map { "| `\(cell($0.option))` | \($0.commands.joined(separator: ", ")) | \(cell($0.help)) |" }
            + every + top
        return ([begin] + lines + [end]).joined(separator: "\n")
    }

    /// `-s, --long VALUE`, as `--help` writes it.
    static func name(_ spec: OptionSpec) -> String {
        (spec.short.map { "-\($0), " } ?? "") + "--\(spec.long)" + (spec.value.map { " \($0)" } ?? "")
    }

    /// Text safe in a Markdown table cell.
    private static func cell(_ text: String) -> String {
        text.replacingOccurrences(of: "|", with: "\\|")
    }
}
