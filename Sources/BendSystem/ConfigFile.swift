// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// A program's config file: long options as `key = value` under a `[command]` section.
///
///     # ~/.config/bendsynth/bendsynth.conf
///     [play]
///     device = hw:1
///     no-terminal = true      # a flag: true or false (also yes/no, on/off, 1/0)
///     [render]
///     rate = 44100
///
/// Read: `/etc/PROGRAM.conf`, then `$XDG_CONFIG_HOME/PROGRAM/PROGRAM.conf` (default
/// ~/.config), or only `--config FILE`; `--no-config` reads none. The entries go before
/// the command line's options, so the command line wins (and a later file wins over an
/// earlier one). An unknown section or key, a flag that is not true/false, or a bad value
/// is an error naming the file and line (`InputError`).
public enum ConfigFile {
    /// `--config FILE` and `--no-config`, which every command of `program` takes.
    public static func specs(program: String) -> [OptionSpec] {
        [
            OptionSpec("config", value: "FILE", help: "read options from FILE instead of ~/.config/\(program)/\(program).conf and /etc/\(program).conf"),
            OptionSpec("no-config", help: "read no config file"),
        ]
    }

    public static func systemPath(program: String) -> String { "/etc/\(program).conf" }

    public static func userPath(program: String) -> String { userFolder(program: program) + "/\(program).conf" }

    /// The user's folder of `program`'s files: `$XDG_CONFIG_HOME/PROGRAM` (default
    /// ~/.config/PROGRAM): the config file, bendsynth's shared key and web certificate.
    public static func userFolder(program: String) -> String {
        xdgFolder("XDG_CONFIG_HOME", home: "/.config", homeless: "", program: program)
    }

    /// The user's folder of `program`'s state: `$XDG_STATE_HOME/PROGRAM` (default
    /// ~/.local/state/PROGRAM): the LV2 plugin's pairing addresses without a host folder.
    public static func stateFolder(program: String) -> String {
        xdgFolder("XDG_STATE_HOME", home: "/.local/state", homeless: "/tmp", program: program)
    }

    /// `$VARIABLE/PROGRAM` when set and not empty, else `$HOME` + `home` + `/PROGRAM`
    /// (`homeless` standing for `$HOME` when that is unset).
    private static func xdgFolder(_ variable: String, home: String, homeless: String, program: String) -> String {
        let xdg = getenv(variable).map { String(cString: $0) } ?? ""
        let base = xdg.isEmpty ? (getenv("HOME").map { String(cString: $0) } ?? homeless) + home : xdg
        return base + "/\(program)"
    }

    public struct Entry: Sendable {
        public var file: String
        public var line: Int
        public var option: String
        /// The argument given to the command: `--key=value` or `--flag`.
        public var argument: String
    }

    /// Takes `--config FILE` / `--no-config` out of `arguments` (before a `--`), reads the
    /// files they select, and returns the command's arguments with the entries of the
    /// `[command]` section in front, and the entries (to name them in errors).
    ///
    /// Every file read goes in front as `--config=FILE` too (the first arguments), so the
    /// command knows the config files among the files it reads: no output may be one of
    /// them. Commands parse with `specs` and ignore the option.
    /// - Throws: `UsageError` for the options themselves, `InputError` for a file.
    public static func arguments(for command: String, _ arguments: [String], in set: CommandSet) throws -> (arguments: [String], entries: [Entry]) {
        var rest: [String] = [], explicit: String?, none = false
        var i = 0
        while i < arguments.count {
            let a = arguments[i]
            if a == "--" { rest += arguments[i...]; break }
            if a == "--no-config" { none = true } else if a == "--config" {
                guard i + 1 < arguments.count else { throw UsageError("option '--config' needs a value (FILE)") }
                explicit = arguments[i + 1]
                i += 1
            } else if a.hasPrefix("--config=") {
                explicit = String(a.dropFirst("--config=".count))
            } else {
                rest.append(a)
            }
            i += 1
        }
        if none && explicit != nil { throw UsageError("options '--config' and '--no-config' exclude each other") }
        if none || arguments.contains("--help") || arguments.contains("-h") { return (rest, []) }
        guard let info = set.command(command) else { return (rest, []) }
        var entries: [Entry] = [], read: [String] = []
        if let explicit {
            if InputFile.notARegularFile(explicit) == "is a folder" {
                throw InputError("config file '\(explicit)': is a folder; expected a file of 'key = value' lines")
            }
            guard let text = InputFile.text(explicit) else {
                let why = access(explicit, R_OK) == 0 ? "not UTF-8 text" : String(cString: strerror(errno))
                throw InputError("config file '\(explicit)': cannot read it (\(why))")
            }
            entries = try parse(text, file: explicit, command: info, in: set)
            read = [explicit]
        } else {
            for path in [systemPath(program: set.program), userPath(program: set.program)] where access(path, F_OK) == 0 {
                guard let text = InputFile.text(path) else {
                    throw InputError("config file '\(path)': cannot read it (not readable or not UTF-8); --no-config skips it")
                }
                entries += try parse(text, file: path, command: info, in: set)
                read.append(path)
            }
        }
        return (read.map { "--config=" + $0 } + entries.map(\.argument) + rest, entries)
    }

    /// The entries of `command`'s section; every section and key is checked.
    static func parse(_ text: String, file: String, command: CommandInfo, in set: CommandSet) throws -> [Entry] {
        var section: CommandInfo?
        var entries: [Entry] = []
        for (n, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let where_ = "\(file):\(n + 1)"
            var line = spacesTrimmed(raw)
            if line.hasPrefix("#") || line.hasPrefix(";") || line.isEmpty { continue }
            if let hash = line.firstRange(of: " #") { line = spacesTrimmed(line[..<hash.lowerBound]) }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]") else { throw InputError("\(where_): expected a section '[command]', got '\(line)'") }
                let name = spacesTrimmed(line.dropFirst().dropLast())
                guard let s = set.command(name) else {
                    throw InputError("\(where_): unknown section '[\(name)]'; expected one of \(set.names.map { "[\($0)]" }.joined(separator: ", "))")
                }
                section = s
                continue
            }
            guard let eq = line.firstIndex(of: "=") else {
                throw InputError("\(where_): expected 'key = value', got '\(line)'")
            }
            let key = spacesTrimmed(line[..<eq])
            let value = spacesTrimmed(line[line.index(after: eq)...])
            guard let section else {
                throw InputError("\(where_): '\(key)' comes before any section; put it under \(set.names.prefix(2).map { "[\($0)]" }.joined(separator: ", "))…")
            }
            guard let spec = section.specs.first(where: { $0.long == key }), !["help", "config", "no-config"].contains(key) else {
                throw InputError("\(where_): unknown key '\(key)' in [\(section.name)]; expected a long option of '\(set.program) \(section.name)' without its dashes (see '\(set.program) \(section.name) --help')")
            }
            let argument: String?
            if spec.value == nil {
                switch value {
                case "true", "yes", "on", "1": argument = "--" + key
                case "false", "no", "off", "0":
                    // Its negation, so a later `false` takes back an earlier `true` (in
                    // this file or /etc's), as a later value wins for options with values.
                    let index = section.specs.firstIndex { $0.long == key }
                    argument = OptionParser.negationNames(section.specs).first { $0.spec == index }.map { "--" + $0.name }
                default: throw InputError("\(where_): '\(key)' is a flag; expected true or false, got '\(value)'")
                }
            } else {
                guard !value.isEmpty else { throw InputError("\(where_): '\(key)' needs a value (\(spec.value!))") }
                argument = "--\(key)=\(value)"
            }
            if section.name == command.name, let argument {
                entries.append(Entry(file: file, line: n + 1, option: key, argument: argument))
            }
        }
        return entries
    }

    /// A usage error caused by a config entry (its option is named in the message and the
    /// command line did not give it): the message with the entry's file and line in front.
    public static func locate(_ message: String, entries: [Entry], commandLine: [String]) -> String {
        for entry in entries.reversed() where message.contains("--\(entry.option)'") || message.contains("--\(entry.option) ") {
            // The command line gave the option, or its negation (`--terminal` against a
            // config's `no-terminal`): then the config line is not the cause.
            let negation = entry.option.hasPrefix("no-") ? String(entry.option.dropFirst(3)) : "no-" + entry.option
            let onCommandLine = commandLine.contains {
                $0 == "--\(entry.option)" || $0.hasPrefix("--\(entry.option)=") || $0 == "--\(negation)"
            }
            if !onCommandLine { return "\(entry.file):\(entry.line): \(entry.option) = …: \(message)" }
        }
        return message
    }

    /// Without the spaces and tabs at either end (Foundation's `.whitespaces`: a
    /// carriage return stays).
    static func spacesTrimmed(_ text: some StringProtocol) -> String {
        let space: (Character) -> Bool = { c in
            c == "\t" || c.unicodeScalars.allSatisfy { $0.properties.generalCategory == .spaceSeparator }
        }
        return String(text.drop(while: space).reversed().drop(while: space).reversed())
    }
}
