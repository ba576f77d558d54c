// SPDX-License-Identifier: GPL-3.0-or-later
import BendAudio
import BendControl
import BendEngine
import BendSystem
import Foundation

/// Loads the tone an instrument plays (or the default asset) at the output rate, and
/// tells the front end libsndfile/libsamplerate's notes (mix-down, resampling) and the
/// band-limited tables' size and time.
public enum ToneSource {
    public struct Loaded: Sendable {
        public var path: String
        /// What the voices play: one region (a tone file: its loop points, its channels) or
        /// an SFZ instrument's regions. Freed by `deallocate`.
        public var sound: Sound
        /// Each region's tables' signals (what the band-limited levels are made from).
        public var layouts: [RegionMaker.Layout]
        /// How voices read it: the settings' way, or cubic when its tables cannot be made.
        public var interpolation: Interpolation
        /// The files it was made from (the tone file; an instrument's text and samples).
        public var files: [String]
        /// The first region (a tone file's only one).
        public var region: SoundRegion { sound[0] }
        /// The first region's held table (the whole tone for a tone without a loop of its own).
        public var table: ToneTable { region.held }

        /// Frees the regions' tables and the sound. - Thread: setup, after the render
        /// thread stopped (or once the mixer gave the sound back).
        public func deallocate() { sound.deallocateWithTables() }
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
        if InstrumentLoader.isInstrument(path) { return try loadInstrument(path, sound: sound, rate: rate, levelsNow: levelsNow, note: note) }
        do {
            let loaded = try ToneLoader.load(path: path, outputRate: rate, findRoot: false)
            guard loaded.samples.count >= minimumFrames else {
                throw InstrumentError(.input, "tone file '\(path)': \(loaded.samples.count) frames at \(Int(rate)) Hz; at least \(minimumFrames) are needed (a shorter loop plays as a DC offset or a buzz at the Nyquist frequency, not a tone)")
            }
            for n in loaded.notes { note("tone '\(path)': \(n)") }
            if loaded.samples.allSatisfy({ $0 == 0 }) { note("tone '\(path)': every sample is 0; touches will be silent") }
            // A loop of the file's own: attack, sustain loop, tail (`RegionMaker`); its
            // tail plays whole after the touch ends. Without one the tone loops whole.
            // A tone that loops whole has its seam crossfaded (`--loop-crossfade`, default
            // `SoundSettings.wholeLoopCrossfadeSeconds`); a loop of the file's own only when asked.
            let whole = sound.loopCrossfadeSeconds ?? SoundSettings.wholeLoopCrossfadeSeconds
            let layout = RegionMaker.layout(loaded, crossfadeFrames: Int(((sound.loopCrossfadeSeconds ?? 0) * rate).rounded()),
                                            wholeCrossfadeFrames: Int((whole * rate).rounded()))
            let region = RegionMaker.region(layout, rate: rate, releaseFades: false)
            return try finish(Loaded(path: path, sound: Sound(region: region), layouts: [layout], interpolation: sound.interpolation,
                                     files: [path]),
                              rate: rate, levelsNow: levelsNow, note: note)
        } catch let e as InstrumentError {
            throw e
        } catch {
            throw InstrumentError(.input, "\(error)")
        }
    }

    /// An SFZ instrument (`InstrumentLoader`), ratio 1 at the settings' tone note.
    static func loadInstrument(_ path: String, sound: SoundSettings, rate: Double, levelsNow: Bool, note: (String) -> Void) throws -> Loaded {
        let defaults = InstrumentLoader.EnvelopeDefaults(attack: sound.attackSeconds, decay: sound.decaySeconds,
                                                         sustain: sound.sustainLevel, release: sound.releaseSeconds)
        let loaded: InstrumentLoader.Loaded
        do {
            loaded = try InstrumentLoader.load(path: path, rate: rate, reference: sound.toneNote, envelope: defaults, note: note)
        } catch {
            throw InstrumentError(.input, "\(error)")
        }
        return try finish(Loaded(path: path, sound: loaded.sound, layouts: loaded.layouts, interpolation: sound.interpolation,
                                 files: loaded.files),
                          rate: rate, levelsNow: levelsNow, note: note)
    }

    /// The band-limited tables, only for the mode that reads them and only when they can
    /// be made (else cubic, for play and render alike); made now when `levelsNow`.
    static func finish(_ tone: Loaded, rate: Double, levelsNow: Bool, note: (String) -> Void) throws -> Loaded {
        var tone = tone
        let path = tone.path
        if tone.interpolation == .bandLimited {
            let frames = layoutFrames(tone.layouts)
            if let reason = ToneLevelMaker.refusal(frames: frames) {
                note("tone '\(path)': \(reason); the voices read it with cubic interpolation")
                tone.interpolation = .cubic
            } else if ToneLevelMaker.tableBytes(frames: frames) >= bigTables {
                note("tone '\(path)': making its band-limited tables: \(megabytes(frames)) MB "
                     + "(\(ToneLevelMaker.bytesPerFrame) bytes a frame at \(Int(rate)) Hz)")
            }
        }
        if tone.interpolation == .bandLimited && levelsNow {
            do { try makeLevels(tone.sound, tone.layouts, path: path, note: note) } catch {
                tone.deallocate()
                throw InstrumentError(.input, "\(error)")
            }
        }
        return tone
    }

    /// The tone file's root note (MIDI note, cents as the fraction): its instrument chunk's
    /// (WAV `smpl`, AIFF `INST`: unity note and fine tune), else the pitch found in the
    /// sound (YIN on the loop); nil when neither. `note` is told which, in one line, and
    /// that `--tone-note` overrides. The default tone is A4 (69) by definition.
    /// - Throws: `InstrumentError(.input)` for a file that does not read.
    public static func root(path: String, note: (String) -> Void) throws -> Double? {
        if InstrumentLoader.isInstrument(path) {
            let key: Double
            do { key = InstrumentLoader.reference(of: try InstrumentLoader.read(path: path)) } catch { throw InstrumentError(.input, "\(error)") }
            note("instrument '\(path)': " + InstrumentLoader.referenceNote(key) + "; --tone-note N sets another")
            return key
        }
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

    /// Tables from this size on (bytes) are announced before they are made, and their
    /// time said after: 100 MB, a tone of about 6.5 s at 48 kHz.
    static let bigTables = 100_000_000

    static func megabytes(_ frames: Int) -> Int { (ToneLevelMaker.tableBytes(frames: frames) + 500_000) / 1_000_000 }

    /// Makes the levels of every region's tables and installs them; for big tables, says
    /// how long they took.
    static func makeLevels(_ sound: Sound, _ layouts: [RegionMaker.Layout], path: String, note: (String) -> Void) throws {
        let start = MonotonicClock.nanos()
        for (i, layout) in layouts.enumerated() { try RegionMaker.install(layout, in: sound[i], path: path) }
        let frames = layoutFrames(layouts)
        if ToneLevelMaker.tableBytes(frames: frames) >= bigTables {
            let seconds = Double(MonotonicClock.nanos() - start) * 1e-9
            note("tone '\(path)': band-limited tables made: \(megabytes(frames)) MB in \(String(format: "%.1f", seconds)) s")
        }
    }

    /// Frames the layouts' tables hold, over their channels (what their levels take).
    static func layoutFrames(_ layouts: [RegionMaker.Layout]) -> Int { layouts.reduce(0) { $0 + ToneSourceFrames.of($1) } }

    /// With `--interp bandlimited` and no levels yet, makes them on a thread of their own
    /// and installs them in the playing table (voices read it cubic until then). Join
    /// the returned thread before freeing the table. A failure is told to `log`; the
    /// instrument goes on with cubic.
    /// - Throws: `InstrumentError(.runtime)` when the thread cannot start.
    public static func makeLevelsInBackground(_ tone: Loaded, log: @escaping @Sendable (String) -> Void) throws -> SystemThread? {
        guard tone.interpolation == .bandLimited, !tone.table.hasLevels else { return nil }
        let (sound, layouts, path) = (tone.sound, tone.layouts, tone.path)
        do {
            return try SystemThread(name: "bendsynth tables") {
                do { try makeLevels(sound, layouts, path: path, note: { log("note: \($0)") }) } catch {
                    log("\(error); the voices read the tone with cubic interpolation")
                }
            }
        } catch {
            throw InstrumentError(.runtime, "cannot start the thread that makes the band-limited tables: \(error)")
        }
    }
}

extension ToneSource {
    /// True for an SFZ instrument's path (by its extension), false for a tone file.
    public static func isInstrument(_ path: String) -> Bool { InstrumentLoader.isInstrument(path) }

    /// A tone file's own root — its instrument chunk's (`fromFile`), else the pitch found
    /// in it — as a MIDI note and its name; nil when it has none.
    public static func root(of path: String) -> (note: Double, name: String, fromFile: Bool)? {
        guard let root = try? ToneLoader.root(path: path) else { return nil }
        return (root.note, root.name, root.origin == .file)
    }
}
