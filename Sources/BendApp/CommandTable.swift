// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem
import BendControl

/// The one list of bendsynth's commands and their options (`BendSystem.CommandSet`).
/// `--help`, the usage line printed with an error, the man page (`ManPage`), the bash/zsh
/// completion, the config file's sections and `BendApp.run`'s dispatch are all made from
/// it, so they cannot disagree. A command's options are its `specs` array (in its
/// *Command.swift); add an option there and every view has it.
enum CommandTable {
    static let commandSet = CommandSet(program: "bendsynth", commands: commands.map { c in
        var c = c
        c.specs = kinds(c.specs)
        return c
    }, topSpecs: [
        OptionSpec("version", "V", help: "print the version and the versions of the linked libraries"),
        OptionSpec("man-page", help: "print the man page bendsynth(1) (roff; 'bendsynth --man-page | man -l -')"),
        OptionSpec("completion", value: "bash|zsh", help: "print the shell completion script for bash or zsh"),
        OptionSpec("help", "h", help: "show this help"),
    ])

    private static let commands: [CommandInfo] = [
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

    static var all: [CommandInfo] { commandSet.commands }
    static var topSpecs: [OptionSpec] { commandSet.topSpecs }
    static var names: [String] { commandSet.names }
    /// `--config FILE`, `--no-config`: every command parses them (`ConfigFile`).
    static let configSpecs = ConfigFile.specs(program: "bendsynth")

    /// `bendsynth COMMAND --help`.
    static func help(_ name: String) -> String { commandSet.help(name) ?? topHelp }

    /// Completion of bendsynth's own kinds of values: `--scale` (a Scala file or a
    /// built-in's name), `--tone` (the sound formats read, SFZ), a PCM (`devices --pcm-names`).
    static func kinds(_ specs: [OptionSpec]) -> [OptionSpec] {
        specs.map { spec in
            var s = spec
            if s.long == "scale" {
                s.kind = .files(extensions: ["scl", "ascl"], words: Scale.builtIns.map(\.name) + ["edo:12", "edo:19", "edo:24", "edo:31"])
            } else if s.long == "tone" {
                s.kind = .files(extensions: toneExtensions, words: [])
            } else if s.value == "PCM" {
                s.kind = .listed(by: "devices --pcm-names", name: "pcms")
            }
            return s
        }
    }

    /// Sound files a tone may be (what libsndfile reads that a tone is made in), and SFZ
    /// instruments.
    static let toneExtensions = ["wav", "wave", "caf", "aif", "aiff", "aifc", "flac", "ogg", "w64", "rf64", "sfz"]

    static var topHelp: String {
        """
        usage: bendsynth COMMAND [options]
               bendsynth --version | --man-page | --completion bash|zsh

        A real-time synth: touch the pad and looping tone voices bend in pitch (x),
        gain (y) and pan (tilt).

        commands:
        \(commandSet.commandList)

        'bendsynth COMMAND --help' shows a command's options.

        options:
        \(OptionParser.help(topSpecs))
        """
    }
}
