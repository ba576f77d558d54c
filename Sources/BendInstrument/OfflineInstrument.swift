// SPDX-License-Identifier: GPL-3.0-or-later
import BendAudio
import BendControl
import BendSystem

/// Where an offline render goes and in what steps.
public struct RenderSettings: Sendable {
    /// The file to write ("-": WAV on standard output).
    public var output: String
    /// Container and encoding of `output`.
    public var format = SoundFileFormat.wavFloat
    /// Render block, frames (as a live sink's period).
    public var periodFrames = 256

    public init(output: String, format: SoundFileFormat = .wavFloat, periodFrames: Int = 256) {
        self.output = output
        self.format = format
        self.periodFrames = periodFrames
    }
}

/// The instrument rendered offline (`render`, `replay -o`): the tone loaded at the
/// settings' rate, a touch script played through the same engine and render step as
/// `play`, faster than real time, into a file that appears only when the whole render
/// succeeded.
public enum OfflineInstrument {
    /// Renders `script` with `sound` into `settings.output`.
    /// - Parameters:
    ///   - note: told each note (the tone's) as one line.
    ///   - progress: the render's progress, about every 0.25 s and at the end; nil: none.
    ///   - interrupted: SIGINT, SIGTERM or SIGHUP mid-render: the half-written temporary
    ///     file is removed first (`OUT` is never half-written), then this is called with
    ///     the signal on the signal thread (the front end says so and exits). Nil: the
    ///     caller handles the stop signals itself.
    /// - Throws: `InstrumentError(.input)` for the tone; `(.runtime)` naming the output
    ///   when it cannot be written.
    /// - Thread: setup (the main thread: it blocks the stop signals before any thread starts).
    public static func render(_ script: TouchScript, sound: SoundSettings, settings: RenderSettings,
                              note: (String) -> Void, progress: ((RenderProgress) -> Void)? = nil,
                              interrupted: (@Sendable (Int32) -> Void)? = nil) throws -> RenderSummary {
        if let interrupted {
            StopSignals.block()
            StopSignals.wait { sig in
                RenderFile.removeTemporaryFile()
                interrupted(sig)
            }
        }
        let tone = try ToneSource.load(sound, rate: Double(sound.rate), note: note)
        defer { tone.deallocate() }
        let script = try tempoLed(script, sound: sound, note: note)
        do {
            return try OfflineRenderer.render(script: script, sound: tone.sound, voices: sound.voices, pitchMap: sound.pitchMap,
                                              rounding: sound.rounding, periodFrames: settings.periodFrames,
                                              configure: sound.configure, to: settings.output, format: settings.format,
                                              progress: progress, note: note)
        } catch {
            throw InstrumentError(.runtime, "cannot write '\(settings.output)': \(error)")
        }
    }

    /// `script` with the tempo `sound.tempoSource` chooses (auto: a MIDI file's tempo map,
    /// else `--bpm`): the map kept or dropped; the note says which leads when the tempo is
    /// heard (the arpeggiator on, or a delay sent to).
    /// - Throws: `InstrumentError(.input)` for `midi-file` with a script that has no tempo map.
    static func tempoLed(_ script: TouchScript, sound: SoundSettings, note: (String) -> Void) throws -> TouchScript {
        var script = script
        let source = sound.tempoSource ?? (script.tempo != nil ? .midiFile : .internal)
        switch source {
        case .midiFile:
            guard let map = script.tempo else {
                throw InstrumentError(.input, "--tempo-source midi-file: the script is not a MIDI file with a tempo map (a touch script plays at --bpm)")
            }
            if case .off = sound.arpeggiator.pattern, (sound.effects?.delaySend ?? 0) == 0 { break }
            let bpm = map.changes[0].bpm
            note("tempo: the MIDI file's tempo map (\(bpmText(bpm)) BPM at the start\(map.changes.count > 1 ? ", \(map.changes.count - 1) change\(map.changes.count == 2 ? "" : "s")" : ""))")
        case .internal:
            script.tempo = nil
            if case .off = sound.arpeggiator.pattern, (sound.effects?.delaySend ?? 0) == 0 { break }
            note("tempo: internal, \(bpmText(sound.tempo)) BPM (--bpm)")
        case .host, .jack, .midiClock, .link:
            throw InstrumentError(.input, "--tempo-source \(source.name): a live source; render follows the MIDI file's tempo map or --bpm")
        }
        return script
    }

    /// A tempo as the note writes it: 120, 93.75 (to 0.01 BPM).
    static func bpmText(_ bpm: Double) -> String {
        let hundredths = Int((bpm * 100).rounded())
        let cents = hundredths % 100
        return cents == 0 ? "\(hundredths / 100)" : "\(hundredths / 100).\(cents < 10 ? "0" : "")\(cents % 10 == 0 ? cents / 10 : cents)"
    }
}
