import BendAudio
import BendControl
import BendSystem
import BendEvdev
import Foundation
import Glibc

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
        let (options, operands) = try parse(arguments, specs: specs + ConfigFile.specs)
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
            case "period": period = try OptionValues.integer(value, option: name, in: 16...8192)
            default: break
            }
        }
        try sound.validate()
        guard operands.count == 1 || operands.count == 2 else {
            throw AppError.usage(operands.isEmpty ? "replay: missing the recording (RECORDING.evemu, or DEVICE.desc EVENTS.events)"
                                 : "replay: expected one recording or a .desc and an .events file, got \(operands.count) arguments")
        }
        let inputs = OutputPath.inputs(options: options, operands: operands, specs: specs, outputs: ["output", "touches"])
        if let output {
            try OutputPath.check(output, option: "-o", command: "replay")
            try OutputPath.checkNotInput(output, option: "-o", command: "replay", inputs: inputs)
        }
        if let touches {
            try OutputPath.check(touches, option: "--touches", command: "replay")
            try OutputPath.checkNotInput(touches, option: "--touches", command: "replay", inputs: inputs)
            if let output, OutputPath.same(output, touches) {
                throw AppError.usage("replay: -o and --touches name the same file '\(touches)'")
            }
        }
        let recording: EvemuRecording
        do { recording = try EvemuRecording.load(paths: operands) } catch let e as EvemuRecording.ParseError {
            throw AppError.input("replay: \(e)")
        }
        guard !recording.events.isEmpty else {
            throw AppError.input("replay: \(operands.last!): the recording has no events"
                + (operands.count == 1 && operands[0].hasSuffix(".desc") ? "; a .desc file comes with its .events file: bendsynth replay DEVICE.desc EVENTS.events" : ""))
        }
        let kind = EvdevDeviceKind.classify(recording.device)
        if case .skipped(let why) = kind {
            throw AppError.input("replay: \(operands[0]): device \"\(UntrustedText.escaped(recording.device.name))\" is no touch device or accelerometer: \(why)")
        }
        let frames = EvdevReplay.frames(device: recording.device, events: recording.events, mapping: evdev.mapping, releaseAtEnd: true)
        let script = EvdevReplay.script(frames)
        let touchCount = script.entries.filter { if case .touch(_, .down, _, _) = $0.event { true } else { false } }.count
        printErr("replay: \"\(UntrustedText.escaped(recording.device.name))\" — \(kind.summary); \(recording.events.count) events, \(touchCount) touches, \(String(format: "%.3f", script.duration)) s")

        if let touches {
            do { try Data(script.text.utf8).write(to: URL(fileURLWithPath: touches), options: .atomic) } catch {
                throw AppError.runtime("replay: cannot write '\(touches)': \(error.localizedDescription)")
            }
            printErr("wrote \(touches): \(script.entries.count) events")
        }
        if let output {
            let tone = try ToneSource.load(sound, rate: Double(sound.rate))
            defer { tone.deallocate() }
            do {
                let summary = try OfflineRenderer.render(script: script, region: tone.region, voices: sound.voices,
                                                         pitchMap: sound.pitchMap, rounding: sound.rounding, periodFrames: period, configure: sound.configure, to: output)
                printErr("wrote \(output): \(summary.frames) frames, \(String(format: "%.3f", summary.seconds)) s at \(sound.rate) Hz")
            } catch {
                throw AppError.runtime("replay: cannot write '\(output)': \(error)")
            }
        }
        if output == nil && touches == nil {
            var o = PlayCommand.Options()
            o.sound = sound
            o.device = device
            o.period = period
            o.terminal = false
            o.noOutputHint = "render offline with -o OUT.wav"
            try PlayCommand.play(o, sources: [ScriptSource(name: "replay '\(operands[0])'", script: script)])
        }
    }
}
