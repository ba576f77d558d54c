// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendMIDI
import BendSystem
import Foundation

/// The file `render` and `play --script` play: a Standard MIDI File when it starts with
/// `MThd` (whatever its name: .mid, .midi, .smf), played through the MIDI-in mapping
/// (`keys`: `--tone-note`, `--scale`, `--kbm`); otherwise a touch script (JSON Lines). A file named .mid, .midi or .smf
/// is a MIDI file or an error; so is one that is neither (its first byte is not JSON's
/// `{`). An empty file, or a script with nothing in it, is an error too: it would render
/// a silent WAV.
public enum ScriptFile {
    /// Names that promise a MIDI file (lower case).
    static let midiExtensions: Set<String> = ["mid", "midi", "smf"]

    /// - Parameter warn: told a touch script's warnings (a touch never lifted), a line each.
    /// - Throws: `InstrumentError(.input)` naming the file and, for a MIDI file, the byte
    ///   offset and what was expected; for a touch script, the line and field.
    public static func load(path: String, keys: KeyboardTuning, warn: (String) -> Void) throws -> TouchScript {
        guard FileManager.default.fileExists(atPath: path) else {
            throw InstrumentError(.input, "\(path): no such file; expected a touch script (JSON Lines) or a MIDI file")
        }
        if let what = InputFile.notARegularFile(path) {
            throw InstrumentError(.input, "\(path): \(what); expected a touch script (JSON Lines) or a MIDI file")
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw InstrumentError(.input, "\(path): cannot be read (permission denied?); expected a touch script (JSON Lines) or a MIDI file")
        }
        let head = [UInt8](handle.readData(ofLength: 4096))
        try? handle.close()
        guard !head.isEmpty else {
            throw InstrumentError(.input, "\(path): empty file (0 bytes); expected a touch script (JSON Lines) or a MIDI file")
        }
        let ext = URL(fileURLWithPath: path).pathExtension.lowercased()
        let firstByte = head.first { !(0x09...0x0D).contains($0) && $0 != 0x20 }
        let script: TouchScript
        if StandardMIDIFile.isMIDI(head) {
            do { script = try MIDIFileScript.load(path: path, keys: keys) } catch {
                throw InstrumentError(.input, "\(error)")
            }
            guard !script.isEmpty else {
                throw InstrumentError(.input, "\(path): a MIDI file with no events that lasts 0 s; nothing to play")
            }
        } else if midiExtensions.contains(ext) {
            throw InstrumentError(.input, "\(path): not a MIDI file (no MThd header)")
        } else if firstByte != nil && firstByte != UInt8(ascii: "{") && ext != "jsonl" && ext != "json" {
            throw InstrumentError(.input, "\(path): not a MIDI file (no MThd header), nor a touch script (JSON Lines: a {\"t\": …, \"type\": …} object a line)")
        } else {
            do { script = try TouchScript.load(path: path) } catch {
                throw InstrumentError(.input, "\(error)")
            }
            guard !script.isEmpty else {
                throw InstrumentError(.input, "\(path): no events (blank lines only); expected touch-script lines ({\"t\": …, \"type\": …})")
            }
            script.warnings.forEach(warn)
        }
        return script
    }
}
