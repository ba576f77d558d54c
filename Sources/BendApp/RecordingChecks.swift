
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
        return outputs
    }
}
