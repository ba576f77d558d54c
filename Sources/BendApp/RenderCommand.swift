// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem
import BendAudio
import BendControl
import BendInstrument
import Foundation
import Glibc

/// `bendsynth render SCRIPT -o OUT.wav`: plays a touch script through the mixer,
/// faster than real time, into a float32 stereo WAV.
enum RenderCommand {
    static let specs: [OptionSpec] = [
        OptionSpec("output", "o", value: "OUT.wav", help: "the file to write, its format from the extension: .wav, .flac, .ogg (Vorbis), .aiff, .caf; '-': WAV on standard output; required"),
        OptionSpec("format", value: "s16|s24|f32", help: "sample format of .wav, .aiff, .caf (default f32) and .flac (s16 or s24, default s24)"),
        OptionSpec("period", value: "FRAMES", help: "render block in frames (16…8192, default 256)"),
    ] + SoundOptions.specs + [OptionSpec("help", "h", help: "show this help")]

    static let usage = """
    usage: bendsynth render SCRIPT -o OUT.wav [--tone FILE] [--rate HZ] [options]

    Plays the touch script SCRIPT (JSON Lines: TOUCH SCRIPTS in bendsynth(1)), or a
    Standard MIDI File (known by its 'MThd' header; notes as MIDI in plays them, --tone-note), through
    the same mixer as 'play' and writes what it would have sounded like, in the format
    of OUT's extension. OUT appears only when the whole render succeeded, and then
    replaces a file of that name (never one of the inputs: exit 2). On a terminal,
    a progress line on standard error shows the percent done, the speed as a multiple
    of real time and the time left.

    """

    static func run(_ arguments: [String]) throws {
        let (options, operands) = try OptionParser.parse(arguments, specs: specs + CommandTable.configSpecs)
        var sound = SoundOptions()
        var output: String?
        var period = 256
        var sampleFormat: String?
        for (name, value) in options {
            if try sound.apply(name, value) { continue }
            switch name {
            case "help":
                print(CommandTable.help("render"))
                return
            case "output": output = value
            case "period": period = try OptionValue.integer(value, option: name, in: 16...8192)
            case "format": sampleFormat = value
            default: break
            }
        }
        try sound.validate()
        guard operands.count == 1 else {
            throw AppError.usage(operands.isEmpty ? "render: missing the touch script or MIDI file (SCRIPT)" : "render: expected one touch script, got \(operands.count): \(operands.joined(separator: " "))")
        }
        guard let output else { throw AppError.usage("render: missing -o OUT.wav") }
        guard !output.isEmpty else { throw AppError.usage("render: -o needs a file name, got ''") }
        try OutputPath.check(output, option: "-o", command: "render")
        try OutputPath.checkNotInput(output, option: "-o", command: "render",
                                     inputs: OutputPath.inputs(options: options, operands: operands, specs: specs, outputs: ["output"]))
        let format: SoundFileFormat
        do {
            format = try SoundFileFormat.forOutput(path: output, sample: sampleFormat)
        } catch let e as SoundFileFormatError {
            throw AppError.usage("render: \(e)")
        }
        if output == "-" && isatty(1) != 0 {
            throw AppError.usage("render: -o - writes WAV to standard output, which is a terminal; pipe it (| sox -t wav - ...) or give a file")
        }
        try sound.resolveRoot()  // before the script (a MIDI file) reads toneNote
        let script = try ScriptFile.load(path: operands[0], keys: sound.keyboardTuning, warn: warn)
        let line = ProgressLine(enabled: isatty(2) != 0)
        let progress: ((RenderProgress) -> Void)? = line.enabled ? { line.draw($0) } : nil
        // Ctrl-C or SIGTERM mid-render: the half-written temporary file goes, OUT stays.
        let summary: RenderSummary
        do {
            summary = try OfflineInstrument.render(script, sound: sound.settings,
                                                   settings: RenderSettings(output: output, format: format, periodFrames: period),
                                                   note: { printErr("note: \($0)") }, progress: progress, interrupted: { sig in
            printErr("bendsynth: render interrupted; '\(output)' not written")
            exit(128 + sig)
            })
        } catch let e as InstrumentError where e.kind == .runtime {
            throw AppError.runtime("render: \(e)")
        }
        printErr("wrote \(output == "-" ? "standard output" : output) (\(format)): \(summary.frames) frames, \(String(format: "%.3f", summary.seconds)) s at \(sound.rate) Hz, peak \(String(format: "%.1f", 20 * log10(max(Double(summary.peak), 1e-10)))) dBFS")
    }
}
