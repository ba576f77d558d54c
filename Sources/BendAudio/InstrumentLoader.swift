// SPDX-License-Identifier: GPL-3.0-or-later
import BendEngine
import BendSFZ
import BendSystem
import Foundation

/// Loads an SFZ instrument (`--tone FILE.sfz`, the plugin's tone parameter) as the
/// engine's `Sound`: each region's sample sliced, looped and converted to the output rate
/// (`RegionSample`), laid out as tables (`RegionMaker`), and placed among the others
/// (`RegionPlacement`, `ZonePlacement`): its keys and velocities as voice ratios and touch
/// gains, its tuning, level, envelope and round robin. Off the render thread.
///
/// Ratio 1 is the instrument's reference key (`reference`; the tone note MIDI and the
/// pads' guides use): `--tone-note`, else key 60 (C4) when a region plays it, else the
/// middle of the keys the regions play.
public enum InstrumentLoader {
    /// What a region's envelope is where its `ampeg_*` opcodes say nothing: the
    /// instrument's (`--attack`, `--decay`, `--sustain`, `--release`), seconds and linear.
    public struct EnvelopeDefaults: Sendable {
        public var attack: Double, decay: Double, sustain: Double, release: Double
        public init(attack: Double, decay: Double, sustain: Double, release: Double) {
            self.attack = attack; self.decay = decay; self.sustain = sustain; self.release = release
        }
    }

    public struct Loaded: Sendable {
        /// The regions, placed (tables without band-limited levels yet: `RegionMaker.install`).
        public var sound: Sound
        /// Each region's tables' signals, for their levels.
        public var layouts: [RegionMaker.Layout]
        /// The key ratio 1 stands for (MIDI note, fractional).
        public var reference: Double
        /// Frames of every table, for the levels' size.
        public var frames: Int
        /// The files it was made from: the instrument, the files it includes, its samples.
        public var files: [String]
    }

    /// The hysteresis of a zone's edges: a voice crosses into the next
    /// zone 20 cents past the edge (`RegionPlacement.stayLow`, `stayHigh`).
    public static let hysteresisCents = 20.0

    /// Shortest loop a region may have, frames at the output rate (as a tone's).
    public static let minimumLoopFrames = 32

    /// - Parameters:
    ///   - path: the `.sfz` file.
    ///   - reference: the key ratio 1 stands for; nil: the type's rule.
    ///   - note: told what the instrument holds that is not played, each sample's
    ///     conversion, the reference key (one line each, without a prefix).
    /// - Throws: `SFZError` (file and line) for text that does not read, a sample that does
    ///   not exist or load (at its `sample=` line), a slice or loop outside its sample.
    public static func load(path: String, rate: Double, reference given: Double?, envelope: EnvelopeDefaults,
                            note: (String) -> Void) throws -> Loaded {
        let instrument = try read(path: path)
        if let ignored = instrument.ignoredNote { note("instrument '\(path)': \(ignored)") }
        if !instrument.silentRegions.isEmpty {
            note("instrument '\(path)': \(instrument.silentRegions.count) region(s) never sound (an empty key or velocity range, or end=-1): "
                 + instrument.silentRegions.map { $0.description }.joined(separator: ", "))
        }
        if instrument.takesInitialCCs {
            note("instrument '\(path)': opcodes driven by a controller (_onccN) are taken at the controllers' initial values (set_ccN, else 0); "
                 + "a CC that changes while playing does not move them yet")
        }
        let stacked = instrument.stackedRegions
        if !stacked.isEmpty {
            let shown = stacked.prefix(8).map { $0.file == path ? "line \($0.line)" : $0.description }.joined(separator: ", ")
            note("instrument '\(path)': \(stacked.count) region\(stacked.count == 1 ? " is" : "s are") stacked on an earlier one's keys and velocities ("
                 + shown + (stacked.count > 8 ? ", …" : "") + "): layers do not sound yet, only the first region of each stack plays")
        }
        let reference = given ?? Self.reference(of: instrument)
        if given == nil {
            note("instrument '\(path)': " + referenceNote(reference) + "; --tone-note N sets another")
        }
        // Each file read once.
        var files: [String: ToneLoader.FileAudio] = [:]
        var layouts: [RegionMaker.Layout] = []
        var regions: [SoundRegion] = []
        var placed: [ZonePlacement.Region] = []
        for region in instrument.regions {
            func fail(_ message: String) -> SFZError {
                SFZError(file: region.sampleLocation.file, line: region.sampleLocation.line, message)
            }
            let file: ToneLoader.FileAudio
            let generated = region.generator.map { GeneratedSample.make($0, rate: rate) }
            if let generated { file = generated.file } else if let known = files[region.sample] { file = known } else {
                guard FileManager.default.fileExists(atPath: region.sample) else {
                    throw fail("sample '\(region.sample)' not found; expected a sound file there (paths are relative to the instrument's folder)")
                }
                do { file = try ToneLoader.read(path: region.sample) { ToneLoadError(path: region.sample, reason: $0) } } catch {
                    throw fail("sample \(error)")
                }
                files[region.sample] = file
            }
            let end = min(region.end.map { $0 + 1 } ?? file.frames, file.frames)
            guard region.offset < end else {
                throw fail("offset=\(region.offset) is not inside the sample's \(file.frames) frames (end \(end)); expected an offset below its end")
            }
            var ignored: [String] = []
            let own = ToneLoader.sustainLoop(file.instrument, frames: file.frames, notes: &ignored)
            let loops: Bool
            switch region.loopMode {
            case .loopContinuous?, .loopSustain?: loops = true
            case .noLoop?, .oneShot?: loops = false
            // (A file whose loop is the whole file has one too: `fromFile` says only that it
            // is not the whole file.)
            case nil: loops = (file.instrument.map { $0.loop_count > 0 } ?? false) || own.fromFile || region.loopStart != nil || region.loopEnd != nil
            }
            var requested: (start: Int, end: Int)?
            if region.loopStart != nil || region.loopEnd != nil {
                let s = region.loopStart ?? (own.fromFile ? own.start : region.offset)
                let e = region.loopEnd.map { $0 + 1 } ?? (own.fromFile ? own.end : end)
                guard region.offset <= s && s < e && e <= end else {
                    throw SFZError(file: region.location.file, line: region.location.line,
                                   "<region>: the loop \(s)…\(e - 1) is not inside the sample's frames \(region.offset)…\(end - 1); expected loop_start and loop_end inside it")
                }
                requested = (s, e)
            }
            let sample: RegionSample
            do {
                sample = try RegionSample.make(file, path: region.sample, outputRate: rate, offset: region.offset, end: end,
                                               loop: requested, loops: loops)
            } catch { throw fail("sample \(error)") }
            if let (s, e, _) = sample.loop, e - s < minimumLoopFrames {
                throw SFZError(file: region.location.file, line: region.location.line,
                               "<region>: its loop is \(e - s) frame\(e - s == 1 ? "" : "s") at \(Int(rate)) Hz; at least \(minimumLoopFrames) are needed (a shorter loop plays as a DC offset or a buzz, not a tone)")
            }
            let mode: SoundRegion.LoopMode = switch region.loopMode {
            case .noLoop?: .noLoop
            case .oneShot?: .oneShot
            case .loopSustain?: .loopSustain
            case .loopContinuous?: .loopContinuous
            case nil: loops ? .loopContinuous : .noLoop
            }
            let layout = RegionMaker.layout(channels: sample.channels, loop: sample.loop, mode: mode)
            // As the format says: 60 unless given; the file's own root only with
            // `pitch_keycenter=sample` (60 when it names none).
            let keycenter = generated?.keycenter
                ?? (region.keycenterFromSample ? (ToneLoader.fileRoot(file)?.note ?? 60) : Double(region.pitchKeycenter ?? 60))
            layouts.append(layout)
            var made = RegionMaker.region(layout, rate: rate, pan: Float(region.pan / 100))
            made.effectSends = SIMD2(Float((region.effect1 ?? -100) / 100), Float((region.effect2 ?? -100) / 100))
            regions.append(made)
            placed.append(ZonePlacement.Region(sfz: region, keycenter: keycenter, layout: layout))
        }
        let placements = ZonePlacement.place(placed, reference: reference, rate: rate, envelope: envelope)
        let sound = Sound(regions: zip(regions, placements).map { $0.placed($1) })
        let frames = layouts.reduce(0) { $0 + ToneSourceFrames.of($1) }
        let samples = instrument.regions.filter { $0.generator == nil }.map(\.sample)
        let made = [path] + instrument.files.filter { $0 != path } + Array(Set(samples)).sorted()
        return Loaded(sound: sound, layouts: layouts, reference: reference, frames: frames, files: made)
    }

    /// The instrument's text (`SFZInstrument`), its samples not read.
    /// - Throws: `SFZError` (file and line), also when no region plays.
    public static func read(path: String) throws -> SFZInstrument {
        let directory = (path as NSString).deletingLastPathComponent
        let document = try SFZDocument.read(path: path, directory: directory) { file in
            if let what = InputFile.notARegularFile(file) { throw Reason(what) }
            guard let data = FileManager.default.contents(atPath: file) else {
                throw Reason(FileManager.default.fileExists(atPath: file) ? "cannot be read" : "no such file")
            }
            return Array(data)
        }
        let instrument = try SFZInstrument.make(document, directory: directory)
        guard !instrument.regions.isEmpty else {
            if let silent = instrument.silentRegions.first {
                throw SFZError(file: silent.file, line: silent.line,
                               "no <region> plays: this one has an empty key or velocity range (lokey above hikey, lovel above hivel) or end=-1")
            }
            throw SFZError(file: path, line: 1, "no <region> plays; expected at least one <region> with a sample")
        }
        return instrument
    }

    /// The key ratio 1 stands for when none is given: 60 (C4) when a region plays it, else
    /// the middle of the keys the regions play.
    public static func reference(of instrument: SFZInstrument) -> Double {
        let lowest = instrument.regions.map { $0.lokey }.min() ?? 0, highest = instrument.regions.map { $0.hikey }.max() ?? 127
        return instrument.regions.contains { $0.lokey <= 60 && 60 <= $0.hikey } ? 60 : Double((lowest + highest) / 2)
    }

    /// What the note line says of the reference key `reference` chosen by the rule.
    public static func referenceNote(_ reference: Double) -> String {
        reference == 60 ? "ratio 1 (the tone note) is key 60 (C4, which a region plays)"
            : "ratio 1 (the tone note) is key \(Int(reference)), the middle of the keys its regions play (none plays C4)"
    }

    struct Reason: Error, CustomStringConvertible {
        var description: String
        init(_ text: String) { description = text }
    }

    /// Whether `path` names an SFZ instrument (by its extension, as every SFZ player does).
    public static func isInstrument(_ path: String) -> Bool { (path as NSString).pathExtension.lowercased() == "sfz" }
}

/// Frames a layout's tables hold over their channels (what their levels take).
public enum ToneSourceFrames {
    public static func of(_ layout: RegionMaker.Layout) -> Int {
        layout.held.count * (layout.held[0].count + (layout.release?[0].count ?? 0))
    }
}
