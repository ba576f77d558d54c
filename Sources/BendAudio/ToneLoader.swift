// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem
import CSndFile
import Foundation

/// A tone file that cannot be used: the file and the reason, e.g.
/// `tone file 'x.wav': libsndfile: Channel count is zero.`
public struct ToneLoadError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The file as given to `ToneLoader.load`.
    public var path: String
    /// Why: libsndfile's or libsamplerate's own text (prefixed with the library's name),
    /// or what the loader expected.
    public var reason: String
    public var description: String { "tone file '\(path)': \(reason)" }
}

/// Reads a tone file with libsndfile (any format it knows: WAV, AIFF/AIFC, CAF, FLAC,
/// Ogg, …) and converts it for the engine (`LoadedTone`).
///
/// Rules:
/// - Frames are read in chunks until `sf_readf_float` returns 0; nothing is sized from
///   the header's frame count (pipe-written WAVs claim 2 GB or 4 GB). At most
///   `maximumSamples` samples (frames × channels) are accepted.
/// - Integer formats are scaled by libsndfile to −1…+1 (8-bit unsigned 0x80 → 0.0).
/// - The sustain loop is the file's first loop (`SFC_GET_INSTRUMENT`: WAV `smpl`, AIFF
///   `INST`/`MARK`; a FLAC's kept `smpl`, `FLACForeignChunks`), or the whole file when it
///   has none (or one outside the file).
/// - The root: the instrument's base note and fine tune, else ACID loop info's root key
///   (`SFC_GET_LOOP_INFO`), else (with `findRoot`) the pitch `PitchDetector` finds in the
///   loop.
/// - DC: each channel's sustain-loop mean is subtracted when above −96 dBFS (for a
///   looped tone this removes the DC exactly; a DC blocker filter would leave a
///   transient at the start of every note).
/// - Mono and stereo files keep their channels; 3 or more are mixed to one. The mono
///   mix (`samples`, and `channels` for 3+): their average, but when the channels cancel
///   (the average's RMS more than 40 dB below the loudest channel's, e.g. a sine and its
///   inverse), the loudest channel (the lowest-numbered one on a tie).
/// - A file with 0 frames, or with a NaN or infinite sample, is an error; so is a
///   folder.
/// - A different rate is converted once, here (`ToneRateConverter`: the loop stays
///   seamless).
/// - Any length ≥ 1 frame is accepted (a 9-frame µ-law file plays as a 54-frame loop
///   at 48 kHz).
public enum ToneLoader {
    /// Largest number of samples (frames × channels) a tone file may hold:
    /// 2²⁴ (64 MB as float; e.g. 174 s of 48 kHz stereo).
    public static let maximumSamples = 1 << 24

    /// Channel-cancellation threshold of the mix-down: 40 dB as an RMS ratio.
    static let cancellationRatio = 0.01

    /// DC below this is left alone: −96 dBFS (half a 16-bit step), linear.
    static let dcThreshold = 1.584_893e-5

    /// Frames read per `sf_readf_float` call.
    static let chunkFrames = 4096

    /// Reads `path` and converts it for the engine at `outputRate`.
    /// - Parameters:
    ///   - path: the tone file.
    ///   - outputRate: the engine's rate, frames per second (> 0).
    ///   - findRoot: when the file names no root, estimate it (`PitchDetector`); false
    ///     leaves `root` nil (the default tone is A4 by definition).
    /// - Throws: `ToneLoadError` naming `path`: "is a folder"; libsndfile's
    ///   `sf_strerror` text when it cannot open or read the file (missing, not audio,
    ///   0 channels, …); "holds no audio frames"; a non-finite sample; too many samples;
    ///   libsamplerate's `src_strerror` text when the rate conversion fails (ratio beyond
    ///   1/256…256).
    /// - Thread: any non-real-time thread (a file may take long to parse: never the
    ///   render thread).
    public static func load(path: String, outputRate: Double, findRoot: Bool = true) throws -> LoadedTone {
        func fail(_ reason: String) -> ToneLoadError { ToneLoadError(path: path, reason: reason) }
        precondition(outputRate > 0 && outputRate.isFinite, "outputRate must be > 0")
        let file = try read(path: path, fail: fail)
        let frames = file.frames, rate = file.rate, count = file.channels
        var notes: [String] = file.warnings

        let loop = sustainLoop(file.instrument, frames: frames, notes: &notes)
        var sources: [[Float]]
        if count <= 2 {
            sources = (0..<count).map { c in (0..<frames).map { file.interleaved[$0 * count + c] } }
        } else {
            sources = [mixDown(deinterleave(file.interleaved, channels: count), notes: &notes)]
        }
        // DC: the sustain loop's mean, per channel.
        var removed = [Double](repeating: 0, count: sources.count)
        for c in sources.indices {
            let mean = sources[c][loop.start..<loop.end].reduce(0.0) { $0 + Double($1) } / Double(loop.end - loop.start)
            guard abs(mean) > dcThreshold else { continue }
            removed[c] = mean
            let dc = Float(mean)
            sources[c] = sources[c].map { $0 - dc }
        }
        if let worst = removed.map(abs).max(), worst > 0 {
            notes.append("removed a DC offset of \(formatDB(worst)) dBFS (the loop's mean\(sources.count > 1 ? ", per channel" : ""))")
        }
        let peak = sources.map { $0.reduce(Float(0)) { max($0, abs($1)) } }.max() ?? 0
        if peak > 1 {
            notes.append("samples exceed full scale (peak \(peak)); played as they are")
        }

        // The mono mix at the file's rate: for the root and, with a loop in the file,
        // for what the engine plays today.
        let mix = sources.count == 1 ? sources[0] : mixDown(sources, notes: &notes, quiet: true)  // (for the root only: the channels play as they are)
        let root = fileRoot(file) ?? (findRoot ? detectedRoot(mix, loop: loop.start..<loop.end, rate: rate) : nil)

        var channels = sources
        var converted = ToneLoop(start: loop.start, end: loop.end, mode: loop.mode, fromFile: loop.fromFile,
                                 sourceStart: loop.start, sourceEnd: loop.end)
        if Double(rate) != outputRate {
            let ratio = outputRate / Double(rate)
            let plan = ToneRateConverter.plan(frames: frames, loopStart: loop.start, loopEnd: loop.end,
                                              alternating: loop.mode == .alternating, ratio: ratio)
            channels = try sources.map { try ToneRateConverter.convert($0, plan: plan, fail: fail) }
            converted.start = plan.attackFrames
            converted.end = plan.attackFrames + plan.loopFrames
            converted.repetitions = plan.repetitions
            converted.pitchErrorCents = plan.pitchErrorCents
            notes.append("resampled \(rate) Hz → \(formatRate(outputRate)) Hz with the loop kept seamless (libsamplerate SINC_BEST_QUALITY): "
                         + "\(frames) → \(plan.totalFrames) frames" + (plan.repetitions > 1 ? ", the loop repeated \(plan.repetitions) times to be a whole number of frames" : ""))
            if abs(plan.pitchErrorCents) > ToneRateConverter.pitchTolerance {
                notes.append("the loop's length at \(formatRate(outputRate)) Hz is rounded to whole frames: its pitch moves by \(format2(plan.pitchErrorCents)) cents")
            }
        }
        // What the engine plays today: the whole file looped, mono.
        var samples: [Float]
        if !loop.fromFile {
            samples = channels.count == 1 ? channels[0] : mixDown(channels, notes: &notes, quiet: true)
        } else {
            var mix = mix
            // The whole file's own mean (the loop's is gone already).
            let mean = Float(mix.reduce(0.0) { $0 + Double($1) } / Double(frames))
            if abs(Double(mean)) > dcThreshold { mix = mix.map { $0 - mean } }
            if Double(rate) != outputRate {
                let plan = ToneRateConverter.plan(frames: frames, loopStart: 0, loopEnd: frames, alternating: false,
                                                  ratio: outputRate / Double(rate))
                mix = try ToneRateConverter.convert(mix, plan: plan, fail: fail)
            }
            samples = mix
            notes.append("the file's loop (\(loop.mode), frames \(loop.start)…\(loop.end - 1) of \(frames)): a touch plays the attack once, the loop while held, the tail after")
        }
        return LoadedTone(samples: samples, channels: channels, loop: converted, root: root, sourceRate: rate,
                          sourceChannels: count, sourceFrames: frames, removedDC: removed, notes: notes)
    }

    /// The tone's root alone, as `load` finds it (without converting anything): the
    /// file's, or the pitch detected in the loop; nil when neither.
    /// - Throws: `ToneLoadError` as `load` does for a file it cannot read.
    /// - Thread: any non-real-time thread.
    public static func root(path: String) throws -> ToneRoot? {
        func fail(_ reason: String) -> ToneLoadError { ToneLoadError(path: path, reason: reason) }
        let file = try read(path: path, fail: fail)
        if let root = fileRoot(file) { return root }
        var ignored: [String] = []
        let loop = sustainLoop(file.instrument, frames: file.frames, notes: &ignored)
        let mix = mixDown(deinterleave(file.interleaved, channels: file.channels), notes: &ignored, quiet: true)
        return detectedRoot(mix, loop: loop.start..<loop.end, rate: file.rate)
    }

    /// The pitch `PitchDetector` finds in `loop` of `mix` (at `rate`), as a root.
    static func detectedRoot(_ mix: [Float], loop: Range<Int>, rate: Int) -> ToneRoot? {
        guard let hz = PitchDetector.pitch(Array(mix[loop]), rate: Double(rate)) else { return nil }
        let note = 69 + 12 * log2(hz / 440)
        return (0...127).contains(note) ? ToneRoot(note: note, origin: .detected) : nil
    }

    /// A file's samples as libsndfile gives them, and its instrument data.
    struct FileAudio {
        var interleaved: [Float]
        var channels: Int
        var rate: Int
        var frames: Int
        var format: Int32
        var instrument: SF_INSTRUMENT?
        var loopInfo: SF_LOOP_INFO?
        /// What was wrong with the file though it loaded (`WAVChunkCheck`).
        var warnings: [String] = []
    }

    /// Opens and reads `path` whole (the rules in the type's doc).
    static func read(path: String, fail: (String) -> ToneLoadError) throws -> FileAudio {
        // (libsndfile says "Format not recognised." of a folder.)
        // (A FIFO or a device would be read without end.)
        if let what = InputFile.notARegularFile(path) {
            throw fail("\(what); expected a sound file (WAV, AIFF, CAF, FLAC, Ogg, …)")
        }
        if access(path, F_OK) != 0 {
            let code = errno
            throw fail(code == ENOENT ? "no such file; expected a sound file (WAV, AIFF, CAF, FLAC, Ogg, …): check the name and folder"
                : "cannot be opened (\(String(cString: strerror(code))))")
        }
        var info = SF_INFO()
        guard let file = sf_open(path, Int32(SFM_READ), &info) else {
            throw fail("libsndfile: " + String(cString: sf_strerror(nil)))
        }
        defer { sf_close(file) }
        let channels = Int(info.channels)
        let rate = Int(info.samplerate)
        guard channels >= 1 else { throw fail("libsndfile reports \(channels) channels; expected at least 1") }
        guard rate >= 1 else { throw fail("sample rate \(rate) Hz; expected at least 1 Hz") }

        // Interleaved samples, grown chunk by chunk from what the file really holds.
        var interleaved: [Float] = []
        var chunk = [Float](repeating: 0, count: chunkFrames * channels)
        while true {
            let got = chunk.withUnsafeMutableBufferPointer {
                Int(sf_readf_float(file, $0.baseAddress, sf_count_t(chunkFrames)))
            }
            if got <= 0 { break }
            guard interleaved.count + got * channels <= maximumSamples else {
                let longest = Double(maximumSamples / channels) / Double(rate)
                let length = info.frames > 0 ? format1(Double(info.frames) / Double(rate)) + " s" : "longer"
                throw fail("is \(length) (\(channels) channel\(channels == 1 ? "" : "s") at \(rate) Hz); a tone may last at most "
                    + format1(longest) + " s at that rate and channel count (\(maximumSamples) samples, frames × channels): cut it shorter")
            }
            interleaved.append(contentsOf: chunk[0..<(got * channels)])
        }
        if sf_error(file) != 0 {
            throw fail("libsndfile: " + String(cString: sf_strerror(file)))
        }
        var frames = interleaved.count / channels
        var warnings: [String] = []
        if info.format & Int32(SF_FORMAT_TYPEMASK) == Int32(SF_FORMAT_WAV), let found = WAVChunkCheck.check(path: path, readFrames: frames) {
            warnings.append("warning: " + found.warning)
            frames = found.frames
            interleaved.removeLast(interleaved.count - frames * channels)
        }
        guard frames > 0 else { throw fail("holds no audio frames") }
        if let bad = interleaved.firstIndex(where: { !$0.isFinite }) {
            throw fail("sample at frame \(bad / channels), channel \(bad % channels) is \(interleaved[bad]); expected finite samples")
        }
        var instrument = SF_INSTRUMENT()
        var hasInstrument = sf_command(file, Int32(SFC_GET_INSTRUMENT), &instrument, Int32(MemoryLayout<SF_INSTRUMENT>.size)) == Int32(SF_TRUE)
        // A FLAC keeps a WAV's `smpl` where libsndfile does not look (`FLACForeignChunks`).
        if !hasInstrument, info.format & Int32(SF_FORMAT_TYPEMASK) == Int32(SF_FORMAT_FLAC), let kept = FLACForeignChunks.instrument(path: path) {
            instrument = kept
            hasInstrument = true
        }
        var loopInfo = SF_LOOP_INFO()
        let hasLoopInfo = sf_command(file, Int32(SFC_GET_LOOP_INFO), &loopInfo, Int32(MemoryLayout<SF_LOOP_INFO>.size)) == Int32(SF_TRUE)
        return FileAudio(interleaved: interleaved, channels: channels, rate: rate, frames: frames, format: info.format,
                         instrument: hasInstrument ? instrument : nil, loopInfo: hasLoopInfo ? loopInfo : nil, warnings: warnings)
    }

    /// The file's first loop, in source frames, or the whole file.
    static func sustainLoop(_ instrument: SF_INSTRUMENT?, frames: Int, notes: inout [String]) -> (start: Int, end: Int, mode: ToneLoop.Mode, fromFile: Bool) {
        let whole = (start: 0, end: frames, mode: ToneLoop.Mode.forward, fromFile: false)
        guard let instrument, instrument.loop_count > 0 else { return whole }
        var copy = instrument
        let first = csndfile_instrument_loop(&copy, 0)
        let mode: ToneLoop.Mode
        switch Int(first.mode) {
        case Int(SF_LOOP_FORWARD): mode = .forward
        case Int(SF_LOOP_BACKWARD): mode = .backward
        case Int(SF_LOOP_ALTERNATING): mode = .alternating
        default: return whole
        }
        // libsndfile gives the end one past the loop's last frame (a WAV `smpl` end + 1).
        var (start, end) = (Int(first.start), Int(first.end))
        if end == frames + 1 { end = frames }  // a writer that counted the end inclusive of a last frame
        guard start < end, end <= frames else {
            notes.append("the file's loop (frames \(start)…\(end)) is not inside its \(frames) frames; the whole file loops")
            return whole
        }
        if start == 0 && end == frames && mode == .forward { return (0, frames, .forward, false) }
        return (start, end, mode, true)
    }

    /// The root the file names: the instrument's base note (1…127; 0, which some writers
    /// leave when they mean none, is taken as none) and fine tune, or ACID loop info's
    /// root key. WAV `smpl`'s pitch fraction is how far above the note the
    /// sample sounds (0…100 cents, as libsndfile gives it); AIFF `INST`'s detune is how
    /// far a player should raise it (−50…+50 cents), so the sample sounds that far below.
    static func fileRoot(_ file: FileAudio) -> ToneRoot? {
        if let i = file.instrument, (1...127).contains(Int(i.basenote)) {
            let aiff = file.format & Int32(SF_FORMAT_TYPEMASK) == Int32(SF_FORMAT_AIFF)
            let cents = Double(i.detune) * (aiff ? -1 : 1)
            return ToneRoot(note: Double(i.basenote) + cents / 100, origin: .file)
        }
        if let l = file.loopInfo, (0...127).contains(Int(l.root_key)) {
            return ToneRoot(note: Double(l.root_key), origin: .file)
        }
        return nil
    }

    static func deinterleave(_ interleaved: [Float], channels: Int) -> [[Float]] {
        let frames = interleaved.count / channels
        return (0..<channels).map { c in (0..<frames).map { interleaved[$0 * channels + c] } }
    }

    /// Channels → mono by the rule in the type's doc (`quiet`: no note).
    static func mixDown(_ channels: [[Float]], notes: inout [String], quiet: Bool = false) -> [Float] {
        let count = channels.count
        if count == 1 { return channels[0] }
        let frames = channels[0].count
        var average = [Float](repeating: 0, count: frames)
        var power = [Double](repeating: 0, count: count)
        let scale = 1 / Float(count)
        for (c, channel) in channels.enumerated() {
            for f in 0..<frames {
                let s = channel[f]
                average[f] += s
                power[c] += Double(s) * Double(s)
            }
        }
        for f in 0..<frames { average[f] *= scale }
        let averagePower = average.reduce(0.0) { $0 + Double($1) * Double($1) }
        var loudest = 0
        for c in 1..<count where power[c] > power[loudest] { loudest = c }
        // Compare powers: RMS ratio r ⇔ power ratio r².
        if power[loudest] > 0 && averagePower < power[loudest] * cancellationRatio * cancellationRatio {
            if !quiet { notes.append("\(count)-channel file: the channels cancel when averaged (more than 40 dB down), so channel \(loudest) (the loudest) is used") }
            return channels[loudest]
        }
        if !quiet { notes.append("\(count)-channel file mixed down to mono (average of \(count) channels)") }
        return average
    }

    static func formatRate(_ rate: Double) -> String {
        rate == rate.rounded() ? String(Int(rate)) : String(rate)
    }

    /// 20·log10(x) with one decimal.
    static func formatDB(_ x: Double) -> String { format1(20 * log10(x)) }
}

/// `x` with one decimal, "−" for negatives.
func format1(_ x: Double) -> String {
    let tenths = Int((x * 10).rounded())
    return (tenths < 0 ? "−" : "") + "\(abs(tenths) / 10).\(abs(tenths) % 10)"
}

/// `x` with two decimals, "−" for negatives.
func format2(_ x: Double) -> String {
    let hundredths = Int((x * 100).rounded())
    let frac = abs(hundredths) % 100
    return (hundredths < 0 ? "−" : "+") + "\(abs(hundredths) / 100)." + (frac < 10 ? "0" : "") + "\(frac)"
}
