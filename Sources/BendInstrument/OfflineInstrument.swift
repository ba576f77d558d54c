// SPDX-License-Identifier: GPL-3.0-or-later
import BendAudio
import BendControl
import BendSystem
import Foundation

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
        let heard = sound.arpeggiator.pattern != .off || (sound.effects?.delaySend ?? 0) > 0
        switch sound.tempoSource ?? (script.tempo != nil ? .midiFile : .internal) {
        case .midiFile:
            guard let map = script.tempo else {
                throw InstrumentError(.input, "--tempo-source midi-file: the script is not a MIDI file with a tempo map (a touch script plays at --bpm)")
            }
            let changes = map.changes.count - 1
            if heard { note("tempo: the MIDI file's tempo map (\(bpmText(map.changes[0].bpm)) BPM at the start\(changes > 0 ? ", \(changes) change\(changes == 1 ? "" : "s")" : ""))") }
        case .internal, .host:  // (no host offline: the internal tempo)
            script.tempo = nil
            if heard { note("tempo: internal, \(bpmText(sound.tempo)) BPM (--bpm)") }
        }
        return script
    }

    /// A tempo as the notes write it: 120, 93.75 (to 0.01 BPM).
    static func bpmText(_ bpm: Double) -> String { String(format: "%g", (bpm * 100).rounded() / 100) }
}
