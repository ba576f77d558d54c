import BendControl
import BendMIDI
import Foundation

/// The file `render` and `play --script` play: a Standard MIDI File when it starts with
/// `MThd` (whatever its name: .mid, .midi, .smf), played through the MIDI-in mapping at
/// `--tone-note`; otherwise a touch script (JSON Lines).
enum ScriptFile {
    /// - Throws: `AppError.input` naming the file and, for a MIDI file, the byte offset
    ///   and what was expected; for a touch script, the line and field.
    static func load(path: String, toneNote: Int) throws -> TouchScript {
        guard FileManager.default.fileExists(atPath: path) else {
            throw AppError.input("\(path): no such file; expected a touch script (JSON Lines) or a MIDI file")
        }
        if let what = InputFile.notARegularFile(path) {
            throw AppError.input("\(path): \(what); expected a touch script (JSON Lines) or a MIDI file")
        }
        if MIDIFileScript.isMIDIFile(path: path) {
            do { return try MIDIFileScript.load(path: path, toneNote: toneNote) } catch {
                throw AppError.input("\(error)")
            }
        }
        do { return try TouchScript.load(path: path) } catch {
            throw AppError.input("\(error)")
        }
    }
}
