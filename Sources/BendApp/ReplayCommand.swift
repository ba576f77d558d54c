// SPDX-License-Identifier: GPL-3.0-or-later
import BendInstrument
import BendControl
import BendSystem
import BendEvdev
import Foundation

/// `bendsynth replay RECORDING`: an evemu recording decoded by the same code as a live
/// device, played to ALSA in real time, rendered to WAV (`-o`), or written as a touch
/// script (`--touches`).
enum ReplayCommand {
    static let specs: [OptionSpec] = [
        OptionSpec("output", "o", value: "OUT.wav", help: "render offline to this WAV (float32 stereo) instead of playing"),
        OptionSpec("touches", value: "OUT.jsonl", help: "write the decoded touches as a touch script (the format render and play --script read)"),
        OptionSpec("device", "d", value: "PCM", help: "ALSA playback PCM when playing (default 'default')"),
        OptionSpec("period", value: "FRAMES", help: "period / render block in frames (16…8192, default 256)"),
    ] + EvdevOptions.mappingSpecs + SoundOptions.specs + [OptionSpec("help", "h", help: "show this help")]

    static let usage = """
    usage: bendsynth replay RECORDING.evemu [-o OUT.wav] [--touches OUT.jsonl] [options]
           bendsynth replay DEVICE.desc EVENTS.events [...]

    Decodes an evemu recording (evemu-record's text format; older recordings come as a
    .desc and an .events file) exactly as 'play --evdev' decodes a live device, and
    plays it through ALSA in real time — or, with -o and/or --touches, writes a WAV
    and/or the touch script instead. Times count from the recording's first event;
    touches still down when the recording ends are released there (the device goes
    away). A malformed recording is an error naming the file and line (exit 2) and
    no output file is written.

    """

    static func run(_ arguments: [String]) throws {
        StopSignals.block()  // before any source makes a thread
        let (options, operands) = try OptionParser.parse(arguments, specs: specs + CommandTable.configSpecs)
        var sound = SoundOptions()
        var evdev = EvdevOptions()
        var output: String?, touches: String?
        var device = "default"
        var period = 256
        for (name, value) in options {
            if try sound.apply(name, value) { continue }
            if try evdev.apply(name, value) { continue }
            switch name {
            case "help":
                print(CommandTable.help("replay"))
                return
            case "output": output = value
            case "touches": touches = value
            case "device": device = value ?? ""
            case "period": period = try OptionValue.integer(value, option: name, in: 16...8192)
            default: break
            }
        }
        try sound.validate()
        guard operands.count == 1 || operands.count == 2 else {
            throw AppError.usage(operands.isEmpty ? "replay: missing the recording (RECORDING.evemu, or DEVICE.desc EVENTS.events)"
                                 : "replay: expected one recording or a .desc and an .events file, got \(operands.count) arguments")
        }
        let outputs = [("-o", output), ("--touches", touches)].compactMap { o, p in p.map { (option: o, path: $0) } }
        try OutputPath.checkAll(outputs, command: "replay",
                                inputs: OutputPath.inputs(options: options, operands: operands, specs: specs, outputs: ["output", "touches"]))
        let script: TouchScript, summary: String
        do { (script, summary) = try EvdevReplay.load(paths: operands, mapping: evdev.mapping) } catch let e as InstrumentError {
            throw AppError.input("replay: \(e)")
        }
        printErr("replay: \(summary)")

        if let touches {
            do { try Data(script.text.utf8).write(to: URL(fileURLWithPath: touches), options: .atomic) } catch {
                throw AppError.runtime("replay: cannot write '\(touches)': \(error.localizedDescription)")
            }
            printErr("wrote \(touches): \(script.entries.count) events")
        }
        if let output {
            do {
                let summary = try OfflineInstrument.render(script, sound: sound.settings, settings: RenderSettings(output: output, periodFrames: period),
                                                           note: { printErr("note: \($0)") })
                printErr("wrote \(output): \(summary.frames) frames, \(String(format: "%.3f", summary.seconds)) s at \(sound.rate) Hz")
            } catch let e as InstrumentError where e.kind == .runtime {
                throw AppError.runtime("replay: \(e)")
            }
        }
        if output == nil && touches == nil {
            var output = OutputSettings(driver: .alsa(device: device, periodFrames: period, periods: 3))
            output.noOutputHint = "render offline with -o OUT.wav"
            try PlayCommand.play(LiveSettings(sound: sound.settings, output: output, sources: [.script(name: "replay '\(operands[0])'", script)]))
        }
    }
}
