// SPDX-License-Identifier: GPL-3.0-or-later
import BendDBus
import BendSystem
import Glibc

/// The `bendsynth` command: `play`, `render`, `replay`, `remote`, `peers`, `devices`.
public enum BendApp {
    static var usage: String { CommandTable.topHelp }

    static var commands: [String] { CommandTable.names }

    /// Runs the command line and returns the exit code: 0 success, 2 bad usage or
    /// input, 1 runtime failure.
    public static func run(_ arguments: [String]) -> Int32 {
        guard let command = arguments.first else {
            printErr(usage)
            return 2
        }
        var rest = Array(arguments.dropFirst())
        RTKitClient.installAsRealtimeFallback()
        var configEntries: [ConfigFile.Entry] = []
        do {
            if let info = CommandTable.commandSet.command(command) {
                (rest, configEntries) = try ConfigFile.arguments(for: command, rest, in: CommandTable.commandSet)
                try info.run(rest)
            } else if command == "help" {
                print(usage)
            } else if command.hasPrefix("-") {
                try runTopOptions(arguments)
            } else if command == "bench" {
                throw AppError.usage("unknown command 'bench': the benches are their own executable, bendsynth-bench ('make bench' builds and runs it; 'bendsynth-bench --help')")
            } else {
                throw AppError.usage("unknown command '\(command)'" + Suggestion.didYouMean(command, in: CommandTable.commandSet.names + ["help"]))
            }
            return 0
        } catch {
            var e = AppError(error)
            if case .usage(let m) = e, !configEntries.isEmpty {
                e = .usage(ConfigFile.locate(m, entries: configEntries, commandLine: Array(arguments.dropFirst())))
            }
            printErr("bendsynth: \(e)")
            if case .usage = e {
                printErr(usageLine(command))
                printErr("Try 'bendsynth \(commands.contains(command) ? command + " " : "")--help' for the options.")
            }
            return e.exitCode
        }
    }

    /// The usage line of `command` (the top-level one for an unknown command), the
    /// same as the first lines of its --help.
    static func usageLine(_ command: String) -> String { CommandTable.commandSet.usageLine(command) }

    /// `bendsynth --version`, `--man-page`, `--completion SHELL`, `--help`.
    static func runTopOptions(_ arguments: [String]) throws {
        let (options, operands) = try OptionParser.parse(arguments, specs: CommandTable.topSpecs)
        guard operands.isEmpty else {
            throw AppError.usage("options before the command: '\(operands[0])' (a command goes first: 'bendsynth \(operands[0]) ...')")
        }
        for (name, value) in options {
            switch name {
            case "version": print(VersionInfo.text())
            case "man-page": print(ManPage.roff(version: VersionInfo.version()), terminator: "")
            case "completion":
                guard let script = Completion.script(for: value ?? "", CommandTable.commandSet) else {
                    throw AppError.usage("option '--completion': expected 'bash' or 'zsh', got '\(value ?? "")'")
                }
                print(script, terminator: "")
            default: print(usage)
            }
            return
        }
    }

    /// Runs with the process arguments and exits with the command's code.
    public static func main() -> Never {
        exit(run(Array(CommandLine.arguments.dropFirst())))
    }
}
