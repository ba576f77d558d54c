import BendAudio
import BendEngine

/// Loads the tone a command asked for (or the default asset) at the output rate and
/// prints libsndfile/libsamplerate notes (mix-down, resampling) on standard error.
enum ToneSource {
    struct Loaded {
        var path: String
        var table: ToneTable
    }

    /// - Throws: `AppError.input` naming the file and libsndfile's reason.
    static func load(_ sound: SoundOptions, rate: Double) throws -> Loaded {
        let path = try sound.tone ?? DefaultTone.path()
        do {
            let loaded = try ToneLoader.load(path: path, outputRate: rate)
            for note in loaded.notes { printErr("note: tone '\(path)': \(note)") }
            return Loaded(path: path, table: ToneTable(samples: loaded.samples, rate: rate))
        } catch {
            throw AppError.input("\(error)")
        }
    }
}
