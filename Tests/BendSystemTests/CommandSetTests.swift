// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem
import Foundation
import XCTest

/// The command-line machinery a program's command table is rendered by (`CommandSet`,
/// `ConfigFile`, `Completion`, `Roff`, `LinkedLibraries`), on a made-up program "demo".
final class CommandSetTests: XCTestCase {
    let demo = CommandSet(program: "demo", commands: [
        CommandInfo("go", summary: "go somewhere", usage: "usage: demo go [options]\n       demo go PLACE\n\nGoes.\n\nFar.\n\n",
                    specs: [OptionSpec("speed", "s", value: "N", help: "how fast"), OptionSpec("fast", help: "hurry"),
                            OptionSpec("map", value: "FILE.map", help: "a map"), OptionSpec("mode", value: "walk|run", help: "how"),
                            OptionSpec("port", value: "PORT", kind: .listed(by: "ports --names", name: "ports"), help: "where")],
                    run: { _ in }),
        CommandInfo("stay", summary: "stay", usage: "usage: demo stay\n\n", specs: [], run: { _ in }),
    ], topSpecs: [OptionSpec("version", help: "say the version")])

    func testHelpAndUsageLinesComeFromTheTable() {
        XCTAssertEqual(demo.usageLine("go"), "usage: demo go [options]\n       demo go PLACE")
        XCTAssertEqual(demo.usageLine("nope"), "usage: demo COMMAND [options]   (commands: go, stay)")
        let help = try? XCTUnwrap(demo.help("go"))
        XCTAssertTrue(help?.contains("  -s, --speed N") ?? false, help ?? "")
        XCTAssertTrue(help?.contains("--config FILE") ?? false, "every command takes the config file's options: \(help ?? "")")
        XCTAssertTrue(help?.hasSuffix("so the command line wins.") ?? false, "a flag's negation is noted: \(help ?? "")")
        XCTAssertEqual(demo.commandList, "  go     go somewhere\n  stay   stay")
        XCTAssertEqual(demo.manSynopsis(topLine: "demo --version"), [".br", "demo go [options]", ".br", "demo go PLACE", ".br", "demo stay", ".br", "demo \\-\\-version"])
        let commands = demo.manCommands()
        XCTAssertEqual(Array(commands.prefix(6)), [".SH COMMANDS", ".SS go", "go somewhere.", ".PP", "Goes.", ".PP"])
        XCTAssertTrue(commands.contains("\\fB\\-s\\fR, \\fB\\-\\-speed\\fR \\fIN\\fR"), "\(commands)")
        XCTAssertEqual(Roff.escape(".a-b\\c"), "\\&.a\\-b\\ec")
    }

    func testValueKindsAreReadOffTheValueName() {
        let go = demo.command("go")!.specs
        XCTAssertEqual(go.map(\.valueKind).prefix(5), [.other, .none, .file, .words(["walk", "run"]), .listed(by: "ports --names", name: "ports")])
    }

    /// The config file's entries come first, as `--key=value` or a flag's negation; the
    /// file read comes first of all; a bad line is an `InputError` naming file and line.
    func testConfigFileEntriesGoBeforeTheCommandLine() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("commandset-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("demo.conf").path
        try "# a comment\n[stay]\n[go]\nspeed = 3  # fast enough\nfast = no\n".write(toFile: file, atomically: true, encoding: .utf8)
        let (arguments, entries) = try ConfigFile.arguments(for: "go", ["--config", file, "-s", "4"], in: demo)
        XCTAssertEqual(arguments, ["--config=\(file)", "--speed=3", "--no-fast", "-s", "4"])
        XCTAssertEqual(entries.map(\.line), [4, 5])
        XCTAssertEqual(ConfigFile.locate("option '--speed': bad", entries: entries, commandLine: []), "\(file):4: speed = …: option '--speed': bad")
        try "[go]\npace = 3\n".write(toFile: file, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try ConfigFile.arguments(for: "go", ["--config=\(file)"], in: demo)) {
            XCTAssertEqual($0 as? InputError, InputError("\(file):2: unknown key 'pace' in [go]; expected a long option of 'demo go' without its dashes (see 'demo go --help')"))
        }
        XCTAssertThrowsError(try ConfigFile.arguments(for: "go", ["--config", file, "--no-config"], in: demo)) {
            XCTAssertEqual($0 as? UsageError, UsageError("options '--config' and '--no-config' exclude each other"))
        }
        XCTAssertThrowsError(try ConfigFile.arguments(for: "go", ["--config", dir.path], in: demo)) {
            XCTAssertEqual($0 as? InputError, InputError("config file '\(dir.path)': is a folder; expected a file of 'key = value' lines"))
        }
    }

    /// The bash script completes the program's commands, each value by its kind.
    func testBashCompletionHasEachKindOfValue() {
        let bash = Completion.bash(demo)
        XCTAssertTrue(bash.contains("complete -F _demo demo"), bash)
        XCTAssertTrue(bash.contains("go:--map|go:--config) COMPREPLY=( $(compgen -f -- \"$cur\") )"), bash)
        XCTAssertTrue(bash.contains("go:--mode) COMPREPLY=( $(compgen -W \"walk run\" -- \"$cur\") )"), bash)
        XCTAssertTrue(bash.contains("go:--port) COMPREPLY=( $(compgen -W \"$(\"${COMP_WORDS[0]}\" ports --names 2>/dev/null)\""), bash)
        let zsh = Completion.zsh(demo)
        XCTAssertTrue(zsh.contains("_demo_ports() {\n    local -a ports\n    ports=(${(f)\"$(demo ports --names 2>/dev/null)\"})"), zsh)
        XCTAssertNil(Completion.script(for: "fish", demo))
    }

    /// `--version`'s lines: glibc's version and file, a library not loaded said so.
    func testLinkedLibrariesNameTheLoadedFiles() {
        let lines = LinkedLibraries.lines([("glibc", "libc.so"), ("nothing", "libnothing-here.so")], reported: [])
        XCTAssertTrue(lines[0].hasPrefix("  glibc: 2.") && lines[0].contains("(libc.so.6)"), lines[0])
        XCTAssertEqual(lines[1], "  nothing: not loaded")
        XCTAssertTrue(lines.last?.hasPrefix("  Swift runtime: ") ?? false)
    }
}
