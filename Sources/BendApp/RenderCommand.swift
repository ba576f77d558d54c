import BendAudio
import BendControl
import BendEngine
import Dispatch
import Foundation
import Glibc

/// `bendsynth render SCRIPT -o OUT.wav`: plays a touch script through the mixer,
/// faster than real time, into a float32 stereo WAV.
enum RenderCommand {
    static let specs: [OptionSpec] = [
        OptionSpec("output", "o", value: "OUT.wav", help: "the WAV file to write (float32 stereo); required"),
        OptionSpec("period", value: "FRAMES", help: "render block in frames (16…8192, default 256)"),
    ] + SoundOptions.specs + [OptionSpec("help", "h", help: "show this help")]

    static let usage = """
    usage: bendsynth render SCRIPT -o OUT.wav [--tone FILE] [--rate HZ] [options]

    Plays the touch script SCRIPT (JSON Lines; see README), or a Standard MIDI File
    (known by its 'MThd' header; notes as MIDI in plays them, --tone-note), through
    the same mixer as 'play' and writes what it would have sounded like. OUT.wav appears only when the
    whole render succeeded.

    """

    static func run(_ arguments: [String]) throws {
        let (options, operands) = try parse(arguments, specs: specs)
        var sound = SoundOptions()
        var output: String?
        var period = 256
        for (name, value) in options {
            if try sound.apply(name, value) { continue }
            switch name {
            case "help":
                print(CommandTable.help("render"))
                return
            case "output": output = value
            case "period": period = try OptionValues.integer(value, option: name, in: 16...8192)
            default: break
            }
        }
        try sound.validate()
        guard operands.count == 1 else {
            throw AppError.usage(operands.isEmpty ? "render: missing the touch script or MIDI file (SCRIPT)" : "render: expected one touch script, got \(operands.count): \(operands.joined(separator: " "))")
        }
        guard let output else { throw AppError.usage("render: missing -o OUT.wav") }
        guard !output.isEmpty else { throw AppError.usage("render: -o needs a file name, got ''") }
        let script = try ScriptFile.load(path: operands[0], toneNote: sound.toneNote)
        let tone = try ToneSource.load(sound, rate: Double(sound.rate))
        defer { tone.table.deallocate() }
        // Ctrl-C or SIGTERM mid-render: remove the half-written temporary file, keep OUT.
        var signalSources: [DispatchSourceSignal] = []
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler {
                OfflineRenderer.removeTemporaryFile()
                printErr("bendsynth: render interrupted; '\(output)' not written")
                exit(128 + sig)
            }
            source.resume()
            signalSources.append(source)
        }
        defer { signalSources.forEach { $0.cancel() } }
        do {
            let summary = try OfflineRenderer.render(script: script, tone: tone.table, voices: sound.voices,
                                                     pitchMap: sound.pitchMap, periodFrames: period, to: output)
            printErr("wrote \(output): \(summary.frames) frames, \(String(format: "%.3f", summary.seconds)) s at \(sound.rate) Hz, peak \(String(format: "%.1f", 20 * log10(max(Double(summary.peak), 1e-10)))) dBFS")
        } catch let e as WAVFileError where e.call == "stat" {
            throw AppError.input("render: \(e)")
        } catch {
            throw AppError.runtime("render: cannot write '\(output)': \(error)")
        }
    }
}
