import BendAudio
import BendEngine

/// Loads the tone a command asked for (or the default asset) at the output rate and
/// prints libsndfile/libsamplerate notes (mix-down, resampling) on standard error.
enum ToneSource {
    struct Loaded {
        var path: String
        var table: ToneTable
    }

    /// Shortest loop accepted, frames at the output rate (0.67 ms at 48 kHz).
    static let minimumFrames = 32

    /// - Throws: `AppError.input` naming the file and libsndfile's reason, or when the
    ///   tone is shorter than `minimumFrames` at the output rate.
    static func load(_ sound: SoundOptions, rate: Double) throws -> Loaded {
        let path = try sound.tone ?? DefaultTone.path()
        do {
            let loaded = try ToneLoader.load(path: path, outputRate: rate)
            guard loaded.samples.count >= minimumFrames else {
                throw AppError.input("tone file '\(path)': \(loaded.samples.count) frames at \(Int(rate)) Hz; at least \(minimumFrames) are needed (a shorter loop plays as a DC offset or a buzz at the Nyquist frequency, not a tone)")
            }
            for note in loaded.notes { printErr("note: tone '\(path)': \(note)") }
            if loaded.samples.allSatisfy({ $0 == 0 }) { printErr("note: tone '\(path)': every sample is 0; touches will be silent") }
            // The band-limited tables, only for the mode that reads them.
            let levels = sound.interpolation == .bandLimited ? try ToneLevelMaker.make(loaded.samples, path: path) : nil
            return Loaded(path: path, table: ToneTable(samples: loaded.samples, rate: rate, levels: levels))
        } catch let e as AppError {
            throw e
        } catch {
            throw AppError.input("\(error)")
        }
    }
}
