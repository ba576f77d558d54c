import BendAudio
import BendEngine
import BendSystem
import Foundation

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
            // The band-limited tables, only for the mode that reads them, and only when
            // they can be made (else cubic, for play and render alike).
            var interpolation = sound.interpolation
            if interpolation == .bandLimited {
                if let reason = ToneLevelMaker.refusal(frames: loaded.samples.count) {
                    printErr("note: tone '\(path)': \(reason); the voices read it with cubic interpolation")
                    interpolation = .cubic
                } else if ToneLevelMaker.tableBytes(frames: loaded.samples.count) >= bigTables {
                    printErr("note: tone '\(path)': making its band-limited tables: \(megabytes(loaded.samples.count)) MB "
                             + "(\(ToneLevelMaker.bytesPerFrame) bytes a frame at \(Int(rate)) Hz)")
                }
            }
            let table = ToneTable(samples: loaded.samples, rate: rate)
            if interpolation == .bandLimited && levelsNow {
                do { try makeLevels(table, loaded.samples, path: path) } catch {
                    table.deallocate()
                    throw error
                }
            }
            return Loaded(path: path, table: table, samples: loaded.samples, interpolation: interpolation)
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

    /// Tables from this size on (bytes) are announced before they are made, and their
    /// time said after: 100 MB, a tone of about 6.5 s at 48 kHz.
    static let bigTables = 100_000_000

    static func megabytes(_ frames: Int) -> Int { (ToneLevelMaker.tableBytes(frames: frames) + 500_000) / 1_000_000 }

    /// Makes the levels and installs them in `table`; for big tables, says how long they
    /// took.
    static func makeLevels(_ table: ToneTable, _ samples: [Float], path: String) throws {
        let start = MonotonicClock.nanos()
        table.install(try ToneLevelMaker.make(samples, path: path))
        if ToneLevelMaker.tableBytes(frames: samples.count) >= bigTables {
            let seconds = Double(MonotonicClock.nanos() - start) * 1e-9
            printErr("note: tone '\(path)': band-limited tables made: \(megabytes(samples.count)) MB in \(String(format: "%.1f", seconds)) s")
        }
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
                do { try makeLevels(table, samples, path: path) } catch {
                    printErr("bendsynth: \(error); the voices read the tone with cubic interpolation")
                }
            }
        } catch {
            throw AppError.runtime("cannot start the thread that makes the band-limited tables: \(error)")
        }
    }
}
