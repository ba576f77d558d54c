/// README.md's Options table, made from `CommandTable` like `--help` and the man page:
/// one row per option and help line, naming the commands that take it. A test checks
/// that README.md holds exactly this between its markers; `make readme` rewrites it.
enum ReadmeOptionTable {
    static let begin = "<!-- options: made from the option table by 'make readme'; do not edit by hand -->"
    static let end = "<!-- options end -->"

    static var markdown: String {
        var rows: [(key: String, option: String, help: String, commands: [String])] = []
        for c in CommandTable.all {
            for spec in c.specs where !["help", "config", "no-config"].contains(spec.long) {
                var option = spec.short.map { "-\($0), " } ?? ""
                option += "--\(spec.long)"
                if let v = spec.value { option += " \(v)" }
                let key = option + "\u{0}" + spec.help
                if let i = rows.firstIndex(where: { $0.key == key }) {
                    rows[i].commands.append(c.name)
                } else {
                    rows.append((key, option, spec.help, [c.name]))
                }
            }
        }
        let every = ConfigFile.specs.map { spec in
            "| `--\(spec.long)\(spec.value.map { " " + $0 } ?? "")` | every command | \(cell(spec.help)) |"
        }
        let lines = ["| option | commands | meaning |", "|---|---|---|"]
            + rows.map { "| `\(cell($0.option))` | \($0.commands.joined(separator: ", ")) | \(cell($0.help)) |" }
            + every
        return ([begin] + lines + [end]).joined(separator: "\n")
    }

    /// Text safe in a Markdown table cell.
    private static func cell(_ text: String) -> String {
        text.replacingOccurrences(of: "|", with: "\\|")
    }
}
