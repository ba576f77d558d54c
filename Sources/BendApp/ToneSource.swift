import BendAudio
import BendEngine
import BendSystem

/// Loads the tone a command asked for (or the default asset) at the output rate and
/// prints libsndfile/libsamplerate notes (mix-down, resampling) on standard error.
enum ToneSource {
    struct Loaded {
        var path: String
        var table: ToneTable
        /// The loop at the output rate (what the band-limited levels are made from).
        var samples: [Float]
        var interpolation: Interpolation
    }

    /// Shortest loop accepted, frames at the output rate (0.67 ms at 48 kHz).
    static let minimumFrames = 32

    /// - Throws: `AppError.input` naming the file and libsndfile's reason, or when the
    ///   tone is shorter than `minimumFrames` at the output rate.
    /// - Parameter levelsNow: with `--interp bandlimited`, make the band-limited levels
    ///   here (offline commands); false leaves them to `makeLevelsInBackground` (play:
    ///   about 0.8 s of a core for a 1 s tone, which start-up need not wait for).
    static func load(_ sound: SoundOptions, rate: Double, levelsNow: Bool = true) throws -> Loaded {
        let path = try sound.tone ?? DefaultTone.path()
        do {
            let loaded = try ToneLoader.load(path: path, outputRate: rate, findRoot: false)
            guard loaded.samples.count >= minimumFrames else {
                throw AppError.input("tone file '\(path)': \(loaded.samples.count) frames at \(Int(rate)) Hz; at least \(minimumFrames) are needed (a shorter loop plays as a DC offset or a buzz at the Nyquist frequency, not a tone)")
            }
            for note in loaded.notes { printErr("note: tone '\(path)': \(note)") }
            if loaded.samples.allSatisfy({ $0 == 0 }) { printErr("note: tone '\(path)': every sample is 0; touches will be silent") }
            // The band-limited tables, only for the mode that reads them.
            let levels = sound.interpolation == .bandLimited && levelsNow ? try ToneLevelMaker.make(loaded.samples, path: path) : nil
            return Loaded(path: path, table: ToneTable(samples: loaded.samples, rate: rate, levels: levels),
                          samples: loaded.samples, interpolation: sound.interpolation)
        } catch let e as AppError {
            throw e
        } catch {
            throw AppError.input("\(error)")
        }
    }

    /// Sets `sound.toneNote` from the tone when `--tone-note` was not given: the file's
    /// root note (WAV `smpl`, AIFF `INST`), else the pitch found in it, with one note
    /// line saying which and that `--tone-note` overrides; the default tone is A4 (69)
    /// by definition. Call before anything reads `toneNote` (MIDI sources, scripts).
    /// - Throws: `AppError.input` when the tone file cannot be read.
    static func resolveRoot(_ sound: inout SoundOptions) throws {
        guard !sound.toneNoteGiven, let path = sound.tone else { return }
        let root: ToneRoot?
        do { root = try ToneLoader.root(path: path) } catch { throw AppError.input("\(error)") }
        guard let root else {
            printErr("note: tone '\(path)': no root note in the file and no steady pitch found; MIDI notes and note names take it as A4 = 440 Hz (--tone-note N sets it)")
            return
        }
        sound.toneNote = root.note
        let how = root.origin == .file ? "from the file's instrument chunk" : "found in the sound (YIN on the loop)"
        printErr("note: tone '\(path)': root \(root.name), \(how); --tone-note N overrides")
    }

    /// With `--interp bandlimited` and no levels yet, makes them on a thread of their own
    /// and installs them in the playing table (voices read it cubic until then). Join
    /// the returned thread before freeing the table. A failure is printed; play goes on
    /// with cubic.
    static func makeLevelsInBackground(_ tone: Loaded) throws -> SystemThread? {
        guard tone.interpolation == .bandLimited, !tone.table.hasLevels else { return nil }
        let (table, samples, path) = (tone.table, tone.samples, tone.path)
        do {
            return try SystemThread(name: "bendsynth tables") {
                do { table.install(try ToneLevelMaker.make(samples, path: path)) } catch {
                    printErr("bendsynth: \(error); the voices read the tone with cubic interpolation")
                }
            }
        } catch {
            throw AppError.runtime("cannot start the thread that makes the band-limited tables: \(error)")
        }
    }
}
