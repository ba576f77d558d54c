import BendAudio
import Foundation

/// `play`'s recording options checked before anything starts: each a file that may be
/// written (`OutputPath.check`), no two naming one file, none an input of play's.
/// (The names are claimed when play starts: `BendInstrument.RecordingFiles`.)
enum RecordingChecks {
    /// - Returns: the recording options given, as (option, path).
    /// - Throws: `AppError.usage`/`.input` (exit 2).
    @discardableResult
    static func check(_ o: PlayCommand.Options) throws -> [(option: String, path: String)] {
        let outputs = [("--record", o.record), ("--record-touches", o.recordTouches), ("--record-midi", o.recordMIDI)]
            .compactMap { name, path in path.map { (option: name, path: $0) } }
        for (i, a) in outputs.enumerated() {
            if let b = outputs[(i + 1)...].first(where: { OutputPath.same($0.path, a.path) }) {
                throw AppError.usage("play: \(a.option) and \(b.option) name the same file '\(a.path)'")
            }
        }
        for (name, path) in outputs {
            try OutputPath.check(path, option: name, command: "play")
            try OutputPath.checkNotInput(path, option: name, command: "play", inputs: o.inputs)
        }
        // Its format from its name, as render -o, before anything plays.
        if let record = o.record { _ = try format(record) }
        return outputs
    }

    /// The format `--record`'s name asks for (its extension, as `render -o`).
    /// - Throws: `AppError.usage` for an extension no format is written in.
    static func format(_ path: String) throws -> SoundFileFormat {
        guard path != "-" else { throw AppError.usage("play: --record: standard output is the terminal's; name a file (take.wav, take.flac…)") }
        do { return try SoundFileFormat.forOutput(path: path, sample: nil) } catch {
            throw AppError.usage("play: --record: " + "\(error)".replacingOccurrences(of: " (or - for WAV on standard output)", with: ""))
        }
    }
}
