// SPDX-License-Identifier: GPL-3.0-or-later
import XCTest
import Foundation
@testable import BendApp

/// --help, the usage line with an error, the man page and the completion all come from
/// CommandTable: these tests compare what the built binary prints through each view.
final class CommandTableTests: XCTestCase {
    /// Every `--name` at the start of an option line of `bendsynth CMD --help`.
    func helpOptions(_ command: String?) throws -> [String] {
        let r = try BinaryRunner.run((command.map { [$0] } ?? []) + ["--help"])
        XCTAssertEqual(r.status, 0)
        return r.stdout.split(separator: "\n").compactMap { line -> String? in
            let t = line.trimmingCharacters(in: .whitespaces)
            guard t.hasPrefix("-") else { return nil }
            return t.split(separator: " ").map { String($0).trimmingCharacters(in: CharacterSet(charactersIn: ",")) }.first { $0.hasPrefix("--") }
        }
    }

    func testVersionNamesTheVersionAndTheLinkedLibraries() throws {
        for flag in ["--version", "-V"] {
            let r = try BinaryRunner.run([flag])
            XCTAssertEqual(r.status, 0, r.stderr)
            let lines = r.stdout.split(separator: "\n").map(String.init)
            let expected = try String(contentsOf: BinaryRunner.packageRoot.appendingPathComponent("VERSION"), encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            // The compiled-in version: the VERSION file's, and under `make` the commit
            // (`git describe`: "+git1a2b3c4", "-dirty" for a changed checkout).
            let first = try XCTUnwrap(lines.first)
            XCTAssertTrue(first == "bendsynth \(expected)"
                || first.range(of: #"^bendsynth \#(NSRegularExpression.escapedPattern(for: expected))\+git[0-9a-f]{4,40}(-dirty)?$"#,
                               options: .regularExpression) != nil, first)
            // The versions the libraries report: alsa-lib 1.2.x, libsndfile-1.x.
            XCTAssertNotNil(r.stdout.range(of: #"alsa-lib: 1\.\d+\.\d+"#, options: .regularExpression), r.stdout)
            XCTAssertNotNil(r.stdout.range(of: #"libsndfile: libsndfile-1\.\d+"#, options: .regularExpression), r.stdout)
            for lib in ["libsamplerate", "JACK", "libevdev: (libevdev.so.", "liblo: (liblo.so.", "libsodium: (libsodium.so.", "BlueZ: (libbluetooth.so.", "glibc: 2."] {
                XCTAssertTrue(r.stdout.contains(lib), "\(lib): \(r.stdout)")
            }
        }
    }

    /// `man -l` of the page `--man-page` prints names every option every `--help` lists.
    func testManPageNamesEveryOptionOfEveryHelp() throws {
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let page = dir.appendingPathComponent("bendsynth.1")
        let r = try BinaryRunner.run(["--man-page"])
        XCTAssertEqual(r.status, 0)
        try r.stdout.write(to: page, atomically: true, encoding: .utf8)
        let rendered = dir.appendingPathComponent("man.txt")
        let status = try BinaryRunner.spawn(["sh", "-c", "LC_ALL=C.UTF-8 MANWIDTH=200 MAN_KEEP_FORMATTING= man -l '\(page.path)' 2>&1 | col -b > '\(rendered.path)'"]).status
        XCTAssertEqual(status, 0)
        let man = try String(contentsOf: rendered, encoding: .utf8)
            .replacingOccurrences(of: "\u{2010}", with: "-").replacingOccurrences(of: "\u{2212}", with: "-")
        XCTAssertTrue(man.contains("BENDSYNTH(1)"), man)
        XCTAssertTrue(man.contains("EXIT STATUS") && man.contains("TOUCH SCRIPTS") && man.contains("BENDSYNTH_ASSETS"), man)
        var checked = 0
        for command in [nil] + CommandTable.names {
            let options = try helpOptions(command)
            XCTAssertFalse(options.isEmpty, "\(command ?? "top"): no options read from --help")
            // The options of a command appear in its own section (.SS: three spaces in).
            var section = man[...]
            if let command {
                let start = try XCTUnwrap(man.range(of: "\n   \(command)\n"), "no section for \(command)").upperBound
                let ends = CommandTable.names.compactMap { man.range(of: "\n   \($0)\n", range: start..<man.endIndex)?.lowerBound }
                    + [man.range(of: "\nTOUCH SCRIPTS", range: start..<man.endIndex)?.lowerBound ?? man.endIndex]
                section = man[start..<ends.min()!]
            }
            for option in options {
                XCTAssertNotNil(section.range(of: #"(^|[\s,])"# + NSRegularExpression.escapedPattern(for: option) + #"([\s=,]|$)"#, options: .regularExpression),
                                "\(command ?? "top") \(option) is not in the man page")
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 100)
    }

    /// The usage line printed with an error is the first lines of the command's --help.
    func testUsageLineWithAnErrorIsHelpsFirstLines() throws {
        for command in CommandTable.names {
            let help = try BinaryRunner.run([command, "--help"]).stdout
            let r = try BinaryRunner.run([command, "--no-such-option"])
            XCTAssertEqual(r.status, 2)
            let usage = help.components(separatedBy: "\n\n")[0]
            XCTAssertTrue(usage.hasPrefix("usage: bendsynth \(command)"), usage)
            XCTAssertTrue(r.stderr.contains(usage), "\(command): \(r.stderr) lacks \(usage)")
        }
    }

    /// Sources the bash completion in bash and completes as a user would press Tab.
    func complete(_ words: [String], script: URL) throws -> [String] {
        let line = words.map { "'\($0)'" }.joined(separator: " ")
        let out = try BinaryRunner.spawn(["bash", "-c", """
            source '\(script.path)'
            COMP_WORDS=(\(line)); COMP_CWORD=\(words.count - 1)
            _bendsynth
            printf '%s\\n' "${COMPREPLY[@]}"
            """])
        XCTAssertEqual(out.status, 0)
        return out.output.split(separator: "\n").map(String.init).sorted()
    }

    func testBashCompletionCompletesCommandsOptionsAndValues() throws {
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let script = dir.appendingPathComponent("bendsynth.bash")
        let r = try BinaryRunner.run(["--completion", "bash"])
        XCTAssertEqual(r.status, 0)
        try r.stdout.write(to: script, atomically: true, encoding: .utf8)
        let bin = BinaryRunner.executable.path
        XCTAssertEqual(try complete([bin, "pl"], script: script), ["play"])
        XCTAssertEqual(try complete([bin, "play", "--dev"], script: script), ["--device"])
        XCTAssertEqual(try complete([bin, "render", "--ton"], script: script), ["--tone", "--tone-note"])
        XCTAssertEqual(try complete([bin, "render", "--format", "s"], script: script), ["s16", "s24"])
        XCTAssertEqual(try complete([bin, "play", "-a", "j"], script: script), ["jack"])
        // File options complete files.
        try Data().write(to: dir.appendingPathComponent("take.jsonl"))
        XCTAssertEqual(try complete([bin, "render", "-o", dir.path + "/ta"], script: script), [dir.path + "/take.jsonl"])
        // --scale: Scala and Ableton files (and folders) and the built-in names; --tone: sound files;
        // --round: its modes.
        for name in ["my.scl", "my.ascl", "my.txt", "t.flac", "t.WAV", "t.txt"] { try Data().write(to: dir.appendingPathComponent(name)) }
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("my-scales"), withIntermediateDirectories: true)
        XCTAssertEqual(try complete([bin, "play", "--scale", dir.path + "/my"], script: script), [dir.path + "/my-scales", dir.path + "/my.ascl", dir.path + "/my.scl"])
        XCTAssertEqual(try complete([bin, "render", "--scale", "ma"], script: script), ["major"])
        XCTAssertEqual(try complete([bin, "play", "--scale", "minor"], script: script), ["minor", "minor-pentatonic"])
        XCTAssertEqual(try complete([bin, "render", "--tone", dir.path + "/t"], script: script), [dir.path + "/t.WAV", dir.path + "/t.flac"])
        XCTAssertEqual(try complete([bin, "play", "--round", ""], script: script), ["hold", "initial", "off"])
        // A bare --listen / --web needs no value: the next word completes as an option.
        XCTAssertEqual(try complete([bin, "play", "--listen", "--no-t"], script: script), ["--no-terminal"])
        XCTAssertEqual(try complete([bin, "play", "--web", "--web-t"], script: script), ["--web-token-file"])
        // PCM options ask the binary for the PCM names (devices --pcm-names): 'null' is always one.
        XCTAssertEqual(try complete([bin, "play", "--device", "nul"], script: script), ["null"])
        // Every option of every --help completes.
        for command in CommandTable.names {
            let all = try complete([bin, command, "-"], script: script)
            for option in try helpOptions(command) {
                XCTAssertTrue(all.contains(option), "\(command) \(option) does not complete")
            }
        }
    }

    func testZshCompletionIsValidZsh() throws {
        guard (try? BinaryRunner.spawn(["sh", "-c", "command -v zsh"]).status) == 0 else { throw XCTSkip("zsh is not installed") }
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let script = dir.appendingPathComponent("_bendsynth")
        try BinaryRunner.run(["--completion", "zsh"]).stdout.write(to: script, atomically: true, encoding: .utf8)
        XCTAssertEqual(try BinaryRunner.spawn(["zsh", "-n", script.path]).status, 0)
        // Every option of every --help is in its command's _arguments (valid zsh alone
        // would pass a script that lost options).
        let text = try String(contentsOf: script, encoding: .utf8)
        // --scale: the built-in names, Scala and Ableton scale files; --tone: sound files.
        XCTAssertTrue(text.contains("'words:name:(chromatic major minor") && text.contains("_files -g \"*.(scl|ascl|SCL|ASCL)\""), text)
        XCTAssertTrue(text.contains(":FILE:_bendsynth_tone_values") && text.contains("*.(wav|wave|caf|aif|aiff|aifc|flac"), text)
        // --listen and --web: an optional value ("::"), as the parser takes them.
        for option in ["--listen", "--web"] {
            let spec = text.split(separator: "\n").first { $0.contains("'\(option)=[") } ?? ""
            XCTAssertTrue(spec.contains("]::ADDRPORT: '"), "\(option): \(spec)")
        }
        for command in CommandTable.names {
            let start = try XCTUnwrap(text.range(of: "\n    (\(command)) _arguments"), "no case for \(command)").upperBound
            let block = text[start..<(text.range(of: " ;;", range: start..<text.endIndex)?.lowerBound ?? text.endIndex)]
            for option in try helpOptions(command) {
                XCTAssertNotNil(block.range(of: #"[',]"# + NSRegularExpression.escapedPattern(for: option) + #"[=+\[}]"#, options: .regularExpression),
                                "\(command) \(option) is not in the zsh completion")
            }
        }
    }
}
