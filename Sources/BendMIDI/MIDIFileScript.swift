// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import Foundation

/// A Standard MIDI File as a touch script: every channel message and SysEx, in time order
/// through the tempo map, goes through the same `MIDIInterpreter` as live MIDI in, and the
/// touches it makes become the script's entries (`ControlEvent.pitched`). Notes still
/// held at the end are released at the file's end (its last end-of-track), so every
/// touch the file starts ends; the script's `end` is the file's end, so a render lasts
/// until then even when the last notes end sooner.
public enum MIDIFileScript {
    /// Converts a parsed file.
    /// - Throws: `SMFError` when an event lies past `TouchScript.maximumTime` (24 h).
    public static func script(_ file: StandardMIDIFile, toneNote: Double = 69) throws(SMFError) -> TouchScript {
        try script(file, keys: KeyboardTuning(toneNote: toneNote))
    }

    /// Converts a parsed file, its notes through `keys` (a scale through a keyboard map).
    /// - Throws: `SMFError` when an event lies past `TouchScript.maximumTime` (24 h).
    public static func script(_ file: StandardMIDIFile, keys: KeyboardTuning) throws(SMFError) -> TouchScript {
        var interpreter = MIDIInterpreter(keys: keys)
        var entries: [TouchScript.Entry] = []
        for (seconds, event) in file.timedEvents() {
            guard seconds <= TouchScript.maximumTime else {
                throw SMFError(offset: 0, expected: "events up to \(Int(TouchScript.maximumTime)) s (24 h), found one at \(Int(seconds)) s")
            }
            let add = { entries.append(TouchScript.Entry(time: seconds, event: $0)) }
            switch event {
            case .message(let message): interpreter.interpret(message, emit: add)
            case .sysEx(let bytes): interpreter.interpret(sysEx: bytes, emit: add)
            }
        }
        let end = min(max(file.duration, entries.last?.time ?? 0), TouchScript.maximumTime)
        interpreter.releaseAll { entries.append(TouchScript.Entry(time: end, event: $0)) }
        // The script lasts as long as the file: a render runs to the last end of track
        // (a take lines up with the rest of a song), not only to the last release.
        var script = TouchScript(entries: entries, end: end)
        script.tempo = file.tempoChanges().map { ScriptTempo(changes: $0.map { ScriptTempo.Change(seconds: $0.seconds, beat: $0.beat, bpm: $0.bpm) }) }
        return script
    }

    /// A file that cannot be played: its path and the reader's error.
    public struct LoadError: Error, Sendable, CustomStringConvertible {
        public var path: String
        public var reason: String
        public var description: String { "\(path): \(reason)" }
    }

    /// Reads, parses and converts the MIDI file at `path`.
    /// - Throws: `LoadError` naming the file, and for bad content the byte offset and
    ///   what was expected.
    public static func load(path: String, toneNote: Double = 69) throws(LoadError) -> TouchScript {
        try load(path: path, keys: KeyboardTuning(toneNote: toneNote))
    }

    /// Reads, parses and converts the MIDI file at `path`, its notes through `keys`.
    /// - Throws: `LoadError` as `load(path:toneNote:)`.
    public static func load(path: String, keys: KeyboardTuning) throws(LoadError) -> TouchScript {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw LoadError(path: path, reason: "cannot be read (no such file, or permission denied)")
        }
        do {
            return try script(StandardMIDIFile.parse([UInt8](data)), keys: keys)
        } catch {
            throw LoadError(path: path, reason: error.description)
        }
    }
}
