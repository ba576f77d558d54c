import BendAudio
import BendControl
import BendEngine
import BendSystem

/// Loads the tone an instrument plays (or the default asset) at the output rate, and
/// tells the front end libsndfile/libsamplerate's notes (mix-down, resampling).
public enum ToneSource {
    public struct Loaded: Sendable {
        public var path: String
        public var table: ToneTable
        /// The loop at the output rate (what the band-limited levels are made from).
        public var samples: [Float]
        public var interpolation: Interpolation
    }

    /// Shortest loop accepted, frames at the output rate (0.67 ms at 48 kHz).
    public static let minimumFrames = 32

    /// - Parameters:
    ///   - levelsNow: with `--interp bandlimited`, make the band-limited levels here
    ///     (offline: render, replay); false leaves them to `makeLevelsInBackground` (a live
    ///     instrument: about 0.8 s of a core for a 1 s tone, which start-up need not wait for).
    ///   - assets: where the default tone is looked for (`Installation.assetDirectories()`;
    ///     the LV2 plugin: its bundle).
    ///   - note: told each note about the tone (one line, without a prefix).
    /// - Throws: `InstrumentError(.input)` naming the file and libsndfile's reason, or when
    ///   the tone is shorter than `minimumFrames` at the output rate.
    public static func load(_ sound: SoundSettings, rate: Double, levelsNow: Bool = true,
                            assets: [String] = Installation.assetDirectories(), note: (String) -> Void) throws -> Loaded {
        let path = try sound.tone ?? DefaultTone.path(in: assets)
        do {
            let loaded = try ToneLoader.load(path: path, outputRate: rate, findRoot: false)
            guard loaded.samples.count >= minimumFrames else {
                throw InstrumentError(.input, "tone file '\(path)': \(loaded.samples.count) frames at \(Int(rate)) Hz; at least \(minimumFrames) are needed (a shorter loop plays as a DC offset or a buzz at the Nyquist frequency, not a tone)")
            }
            for n in loaded.notes { note("tone '\(path)': \(n)") }
            if loaded.samples.allSatisfy({ $0 == 0 }) { note("tone '\(path)': every sample is 0; touches will be silent") }
            // The band-limited tables, only for the mode that reads them.
            let levels = sound.interpolation == .bandLimited && levelsNow ? try ToneLevelMaker.make(loaded.samples, path: path) : nil
            return Loaded(path: path, table: ToneTable(samples: loaded.samples, rate: rate, levels: levels),
                          samples: loaded.samples, interpolation: sound.interpolation)
        } catch let e as InstrumentError {
            throw e
        } catch {
            throw InstrumentError(.input, "\(error)")
        }
    }

    /// The tone file's root note (MIDI note, cents as the fraction): its instrument chunk's
    /// (smpl/INST unity note and fine tune), else the pitch found in the sound (YIN on the
    /// loop); nil when neither. `note` is told which, in one line.
    /// - Throws: `InstrumentError(.input)` for a file that does not read.
    public static func root(path: String, note: (String) -> Void) throws -> Double? {
        let root: ToneRoot?
        do { root = try ToneLoader.root(path: path) } catch { throw InstrumentError(.input, "\(error)") }
        guard let root else {
            note("tone '\(path)': no root note in the file and no steady pitch found; MIDI notes and note names take it as A4 = 440 Hz (--tone-note N sets it)")
            return nil
        }
        let how = root.origin == .file ? "from the file's instrument chunk" : "found in the sound (YIN on the loop)"
        note("tone '\(path)': root \(root.name), \(how); --tone-note N overrides")
        return root.note
    }

    /// With `--interp bandlimited` and no levels yet, makes them on a thread of their own
    /// and installs them in the playing table (voices read it cubic until then). Join
    /// the returned thread before freeing the table. A failure is told to `note`; the
    /// instrument goes on with cubic.
    /// - Throws: `InstrumentError(.runtime)` when the thread cannot start.
    public static func makeLevelsInBackground(_ tone: Loaded, note: @escaping @Sendable (String) -> Void) throws -> SystemThread? {
        guard tone.interpolation == .bandLimited, !tone.table.hasLevels else { return nil }
        let (table, samples, path) = (tone.table, tone.samples, tone.path)
        do {
            return try SystemThread(name: "bendsynth tables") {
                do { table.install(try ToneLevelMaker.make(samples, path: path)) } catch {
                    note("\(error); the voices read the tone with cubic interpolation")
                }
            }
        } catch {
            throw InstrumentError(.runtime, "cannot start the thread that makes the band-limited tables: \(error)")
        }
    }
}
