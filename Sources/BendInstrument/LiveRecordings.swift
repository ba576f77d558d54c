// SPDX-License-Identifier: GPL-3.0-or-later
import BendAudio
import BendControl
import BendEngine
import BendMIDI

/// A live take's recorders: the sound (`WAVRecorder`, fed by the render driver's record
/// ring), the touches (`TouchScriptRecorder`) and MPE (`MIDIRecorder`), the last two as
/// observers of every port. Made once the output's rate is known; finished after the
/// output stopped.
/// - Thread: setup.
final class LiveRecordings: @unchecked Sendable {
    let touches: TouchScriptRecorder?
    let midi: MIDIRecorder?
    let sound: WAVRecorder?
    /// What the render driver writes every period into (nil without `sound`).
    let ring: SPSCRing<Float>?
    let names: Recordings

    /// - Parameters:
    ///   - names: the files (already claimed: `RecordingFiles`).
    ///   - position: the stream position (the touch script's times count from it).
    /// - Throws: `InstrumentError(.input)` naming a file that cannot be created.
    ///   - failed: told at once (the writer's thread) when the sound file cannot be written
    ///     on: what failed and how many frames (seconds) were kept; play goes on.
    init(_ names: Recordings, rate: Int, sound: SoundSettings, position: @escaping @Sendable () -> UInt64,
         failed: @escaping @Sendable (String) -> Void = { _ in }) throws {
        self.names = names
        var touches: TouchScriptRecorder?
        if let path = names.touches {
            do { touches = try TouchScriptRecorder(path: path, rate: Double(rate), position: position) } catch {
                throw InstrumentError(.input, "cannot create touch script '\(path)': \(error)")
            }
        }
        var midi: MIDIRecorder?
        if let path = names.midi {
            do { midi = try MIDIRecorder(path: path, rate: Double(rate), toneNote: sound.toneNote, pitchMap: sound.pitchMap) } catch {
                touches?.close()
                throw InstrumentError(.input, "cannot create MIDI file '\(path)': \(error)")
            }
        }
        var ring: SPSCRing<Float>?
        var recorder: WAVRecorder?
        if let path = names.sound {
            let r = SPSCRing<Float>(capacity: rate * 2 * 4)  // 4 s of stereo: the writer is never that late
            do {
                let format = try SoundFileFormat.forOutput(path: path, sample: nil)  // checked by the front end
                recorder = try WAVRecorder(path: path, rate: rate, channels: 2, format: format, ring: r) { error, kept in
                    failed(Self.keptLine(path: path, kept: kept, rate: rate, error: error))
                }
            } catch {
                r.deallocate()
                touches?.close()
                throw InstrumentError(.input, "\(error)")
            }
            ring = r
        }
        self.touches = touches
        self.midi = midi
        self.sound = recorder
        self.ring = ring
    }

    /// The recorders that observe every port.
    var observers: [ControlEventObserver] { (touches.map { [$0] } ?? []) + (midi.map { [$0] } ?? []) }

    /// Stops the sound recorder (the output stopped: nothing more comes). - Thread: setup.
    func stopSound() { sound?.stop() }

    /// "recording stopped: 8181 frames (0.17 s) kept in 'take.wav' (sf_writef_float: …)".
    static func keptLine(path: String, kept: Int, rate: Int, error: WAVFileError, playingOn: Bool = true) -> String {
        let centis = (kept * 100 + rate / 2) / rate
        let seconds = "\(centis / 100)." + (centis % 100 < 10 ? "0" : "") + "\(centis % 100)"
        // The frames first: the pad's status line is as wide as the terminal.
        return "recording stopped: \(kept) frames (\(seconds) s) kept in '\(path)' (\(error.call): \(error.reason))"
            + (playingOn ? "; playing on" : "")
    }

    /// Finishes every file and says what was written.
    /// - Returns: why each file that failed could not be written (empty when all were).
    func finish(log: (String) -> Void) -> [String] {
        sound?.stop()
        touches?.close()
        var failures: [String] = []
        if let sound, let path = names.sound, let error = sound.failure {
            failures.append(Self.keptLine(path: path, kept: sound.framesWritten, rate: sound.rate, error: error, playingOn: false))
        }
        var midiFailure: String?
        do { try midi?.close() } catch { midiFailure = "cannot write MIDI file '\(names.midi ?? "")': \(error)" }
        if let midiFailure { failures.append(midiFailure) }
        if let sound, let path = names.sound {
            log("recorded '\(path)' (\(sound.format)): \(sound.framesWritten) frames" + (sound.failure.map { " (\($0))" } ?? ""))
        }
        if let path = names.touches, let touches {
            log(touches.linesWritten > 0 ? "touches written to '\(path)'" : "no touches played; '\(path)' not written")
        }
        if let path = names.midi, midiFailure == nil { log("MPE written to '\(path)'") }
        return failures
    }

    /// Frees the record ring. - Thread: setup, after the output and the recorder stopped.
    func deallocate() { ring?.deallocate() }
}
