import BendSystem
import BendControl
import Foundation

/// One command of `bendsynth`, as every view of the command line shows it.
struct CommandInfo: Sendable {
    var name: String
    /// One line for the command list.
    var summary: String
    /// The command's help text: the usage line(s), a blank line, what it does, a blank line.
    var usage: String
    /// The command's own options, then the config file's (`--config`, `--no-config`).
    var specs: [OptionSpec]
    /// What the operands are, for completion: files, or nothing to complete.
    var operandsAreFiles: Bool
    /// Runs the command on its arguments (the config file's entries already in front).
    var run: @Sendable ([String]) throws -> Void

    init(_ name: String, summary: String, usage: String, specs: [OptionSpec], operandsAreFiles: Bool = false,
         run: @escaping @Sendable ([String]) throws -> Void) {
        self.name = name
        self.summary = summary
        self.usage = usage
        self.specs = specs + ConfigFile.specs
        self.operandsAreFiles = operandsAreFiles
        self.run = run
    }
}

/// The one list of commands and their options. `--help`, the usage line printed with
/// an error, the man page (`ManPage`), the bash/zsh completion (`Completion`), the config
/// file's sections and `BendApp.run`'s dispatch are all made from it, so they cannot
/// disagree. A command's options are its `specs` array (in its *Command.swift); add an
/// option there and every view has it.
enum CommandTable {
    static let all: [CommandInfo] = [
        CommandInfo("play", summary: "play the instrument: a pad in the terminal, sound through ALSA or JACK",
                    usage: PlayCommand.usage, specs: PlayCommand.specs, run: PlayCommand.run),
        CommandInfo("render", summary: "render a touch script or MIDI file to a sound file, faster than real time",
                    usage: RenderCommand.usage, specs: RenderCommand.specs, operandsAreFiles: true, run: RenderCommand.run),
        CommandInfo("replay", summary: "play, render or convert an evemu recording of a touch device",
                    usage: ReplayCommand.usage, specs: ReplayCommand.specs, operandsAreFiles: true, run: ReplayCommand.run),
        CommandInfo("remote", summary: "play an instrument on another machine (play --listen or --bluetooth) from this pad",
                    usage: RemoteCommand.usage, specs: RemoteCommand.specs, run: RemoteCommand.run),
        CommandInfo("peers", summary: "list instruments nearby that accept remote players",
                    usage: PeersCommand.usage, specs: PeersCommand.specs, run: PeersCommand.run),
        CommandInfo("devices", summary: "list ALSA playback cards and PCMs, and input devices (touch, tilt)",
                    usage: DevicesCommand.usage, specs: DevicesCommand.specs, run: DevicesCommand.run),
    ]

    /// Options of `bendsynth` itself, before any command.
    static let topSpecs: [OptionSpec] = [
        OptionSpec("version", "V", help: "print the version and the versions of the linked libraries"),
        OptionSpec("man-page", help: "print the man page bendsynth(1) (roff; 'bendsynth --man-page | man -l -')"),
        OptionSpec("completion", value: "bash|zsh", help: "print the shell completion script for bash or zsh"),
        OptionSpec("help", "h", help: "show this help"),
    ]

    static var names: [String] { all.map(\.name) }

    static func command(_ name: String) -> CommandInfo? { all.first { $0.name == name } }

    /// `bendsynth COMMAND --help`: the usage text and every option.
    static func help(_ name: String) -> String {
        guard let c = command(name) else { return topHelp }
        return c.usage + OptionParser.help(c.specs) + (OptionParser.negationNote(c.specs).map { "\n\n" + $0 } ?? "")
    }

    /// The usage line(s) of `name` (the top-level one for an unknown command): the first
    /// paragraph of its help.
    static func usageLine(_ name: String) -> String {
        guard let c = command(name) else {
            return "usage: bendsynth COMMAND [options]   (commands: \(names.joined(separator: ", ")))"
        }
        return c.usage.split(separator: "\n", omittingEmptySubsequences: false)
            .prefix { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            .joined(separator: "\n")
    }

    static var topHelp: String {
        let width = (names.map(\.count).max() ?? 0) + 3
        let list = all.map { "  " + $0.name + String(repeating: " ", count: width - $0.name.count) + $0.summary }
        return """
        usage: bendsynth COMMAND [options]
               bendsynth --version | --man-page | --completion bash|zsh

        A real-time synth: touch the pad and looping tone voices bend in pitch (x),
        gain (y) and pan (tilt).

        commands:
        \(list.joined(separator: "\n"))

        'bendsynth COMMAND --help' shows a command's options.

        options:
        \(OptionParser.help(topSpecs))
        """
    }
}

extension OptionSpec {
    /// What the value of this option is, for completion, read off its value name:
    /// `FILE`, `OUT.wav`, `/dev/...` → a file; `PCM` → an ALSA PCM; `a|b` → one of the words.
    enum ValueKind: Equatable {
        case none, file, pcm
        case words([String])
        /// Files with these extensions (and folders), and these words: `--scale` (a
        /// Scala file or a built-in's name), `--tone` (the sound formats read).
        case files(extensions: [String], words: [String])
        case other
    }

    /// Sound files a tone may be (what libsndfile reads that a tone is made in).
    static let toneExtensions = ["wav", "wave", "caf", "aif", "aiff", "aifc", "flac", "ogg", "w64", "rf64"]

    var valueKind: ValueKind {
        guard let v = value else { return .none }
        if long == "scale" { return .files(extensions: ["scl"], words: Scale.builtIns.map(\.name) + ["edo:12", "edo:19", "edo:24", "edo:31"]) }
        if long == "tone" { return .files(extensions: Self.toneExtensions, words: []) }
        if v == "PCM" { return .pcm }
        if v.contains("FILE") || v.contains(".") || v == "DEV" || v == "DIR" { return .file }
        if v.contains("|") && !v.contains("[") { return .words(v.split(separator: "|").map(String.init)) }
        return .other
    }
}
