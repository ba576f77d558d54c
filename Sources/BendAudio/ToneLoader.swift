import CSampleRate
import CSndFile

/// A tone file read and converted for the engine: mono float samples at the output
/// rate, one loop long. Make the engine's table with
/// `ToneTable(samples: loaded.samples, rate: outputRate)`.
public struct LoadedTone: Sendable, Equatable {
    /// One loop of the tone, mono, at the output rate; all finite; at least 1 frame.
    /// Length `round(sourceFrames · outputRate / sourceRate)` (≥ 1).
    public var samples: [Float]
    /// The file's rate, frames per second.
    public var sourceRate: Int
    /// The file's channel count (≥ 1).
    public var sourceChannels: Int
    /// Frames actually read from the file (never the header's claim).
    public var sourceFrames: Int
    /// What the loader did to the audio, one sentence each (mix-down, resampling, …),
    /// for the log.
    public var notes: [String]
}

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
/// Ogg, …) and converts it for the engine.
///
/// Rules:
/// - Frames are read in chunks until `sf_readf_float` returns 0; nothing is sized from
///   the header's frame count (pipe-written WAVs claim 2 GB or 4 GB). At most
///   `maximumSamples` samples (frames × channels) are accepted.
/// - Integer formats are scaled by libsndfile to −1…+1 (8-bit unsigned 0x80 → 0.0).
/// - Several channels → their average. When the channels cancel (the average's RMS is
///   more than 40 dB below the loudest channel's, e.g. a sine and its inverse), the
///   loudest channel is taken instead (the lowest-numbered one on a tie).
/// - A file with 0 frames, or with a NaN or infinite sample, is an error.
/// - A different rate is converted once, here, with libsamplerate's
///   `SRC_SINC_BEST_QUALITY`, treating the tone as a loop: the input is extended on both
///   sides by wrap-around copies of itself, so the filter sees the loop's own
///   continuation (no click at the seam), and exactly `round(frames · out / in)` frames
///   are cut from the middle. The loop period is that integer frame count.
/// - Any length ≥ 1 frame is accepted (a 9-frame µ-law file plays as a 54-frame loop
///   at 48 kHz).
public enum ToneLoader {
    /// Largest number of samples (frames × channels) a tone file may hold:
    /// 2²⁴ (64 MB as float; e.g. 174 s of 48 kHz stereo).
    public static let maximumSamples = 1 << 24

    /// Channel-cancellation threshold of the mix-down: 40 dB as an RMS ratio.
    static let cancellationRatio = 0.01

    /// Frames read per `sf_readf_float` call.
    static let chunkFrames = 4096

    /// Reads `path` and converts it to one mono loop at `outputRate`.
    /// - Parameters:
    ///   - path: the tone file.
    ///   - outputRate: the engine's rate, frames per second (> 0).
    /// - Throws: `ToneLoadError` naming `path`: libsndfile's `sf_strerror` text when it
    ///   cannot open or read the file (missing, not audio, 0 channels, …); "holds no
    ///   audio frames"; a non-finite sample; too many samples; libsamplerate's
    ///   `src_strerror` text when the rate conversion fails (ratio beyond 1/256…256).
    /// - Thread: any non-real-time thread (a file may take long to parse: never the
    ///   render thread).
    public static func load(path: String, outputRate: Double) throws -> LoadedTone {
        func fail(_ reason: String) -> ToneLoadError { ToneLoadError(path: path, reason: reason) }
        precondition(outputRate > 0 && outputRate.isFinite, "outputRate must be > 0")

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
                throw fail("more than \(maximumSamples) samples (frames × channels); a tone must be shorter")
            }
            interleaved.append(contentsOf: chunk[0..<(got * channels)])
        }
        let readError = sf_error(file)
        if readError != 0 {
            throw fail("libsndfile: " + String(cString: sf_strerror(file)))
        }
        let frames = interleaved.count / channels
        guard frames > 0 else { throw fail("holds no audio frames") }
        if let bad = interleaved.firstIndex(where: { !$0.isFinite }) {
            throw fail("sample at frame \(bad / channels), channel \(bad % channels) is \(interleaved[bad]); expected finite samples")
        }

        var notes: [String] = []
        let mono = mixDown(interleaved, channels: channels, notes: &notes)
        let peak = mono.reduce(Float(0)) { max($0, abs($1)) }
        if peak > 1 {
            notes.append("samples exceed full scale (peak \(peak)); played as they are")
        }

        var samples = mono
        if Double(rate) != outputRate {
            samples = try resampleLoop(mono, from: rate, to: outputRate, fail: fail)
            notes.append("resampled \(rate) Hz → \(formatRate(outputRate)) Hz as a loop (libsamplerate SINC_BEST_QUALITY): \(frames) → \(samples.count) frames")
        }
        return LoadedTone(samples: samples, sourceRate: rate, sourceChannels: channels,
                          sourceFrames: frames, notes: notes)
    }

    /// Interleaved `channels`-channel samples → mono by the rule in the type's doc.
    static func mixDown(_ interleaved: [Float], channels: Int, notes: inout [String]) -> [Float] {
        if channels == 1 { return interleaved }
        let frames = interleaved.count / channels
        var average = [Float](repeating: 0, count: frames)
        var power = [Double](repeating: 0, count: channels)
        let scale = 1 / Float(channels)
        for f in 0..<frames {
            var sum: Float = 0
            for c in 0..<channels {
                let s = interleaved[f * channels + c]
                sum += s
                power[c] += Double(s) * Double(s)
            }
            average[f] = sum * scale
        }
        let averagePower = average.reduce(0.0) { $0 + Double($1) * Double($1) }
        var loudest = 0
        for c in 1..<channels where power[c] > power[loudest] { loudest = c }
        // Compare powers: RMS ratio r ⇔ power ratio r².
        if power[loudest] > 0 && averagePower < power[loudest] * cancellationRatio * cancellationRatio {
            notes.append("\(channels)-channel file: the channels cancel when averaged (more than 40 dB down), so channel \(loudest) (the loudest) is used")
            return (0..<frames).map { interleaved[$0 * channels + loudest] }
        }
        notes.append("\(channels)-channel file mixed down to mono (average of \(channels) channels)")
        return average
    }

    /// Resamples one loop from `inRate` to `outRate` as a periodic signal and returns
    /// exactly `round(count · outRate / inRate)` frames (at least 1).
    ///
    /// With libsamplerate, still (the band-limited levels are made by FFT,
    /// `ToneLevelMaker`): it keeps a file at another rate flat to 94 % of the lower
    /// rate's Nyquist frequency, so a 44.1 kHz file loses its content above 20.7 kHz
    /// (which ratios below 0.87 bring under 18 kHz). The FFT would keep it all (the loop is
    /// periodic); not done yet.
    static func resampleLoop(_ loop: [Float], from inRate: Int, to outRate: Double,
                             fail: (String) -> ToneLoadError) throws -> [Float] {
        let n = loop.count
        let ratio = outRate / Double(inRate)
        let outCount = max(1, Int((Double(n) * ratio).rounded()))
        // Wrap-around context on each side: more than the sinc filter reaches
        // (SINC_BEST reaches ~150 input frames at ratio ≥ 1, ~150/ratio below).
        var context = max(8192, Int(2048 / min(ratio, 1)))
        // When both rates are integers, make the context a multiple of inRate/gcd so that
        // it lasts a whole number of output frames: the loop's first output frame then
        // falls exactly on its first input frame (no fractional time shift).
        if outRate == outRate.rounded(), outRate < 1e9 {
            let step = inRate / gcd(inRate, Int(outRate))
            if step <= 65_536 { context = (context + step - 1) / step * step }
        }
        return try convertLoop(mono: loop, context: context, ratio: ratio, quality: Int32(SRC_SINC_BEST_QUALITY),
                               start: Int((Double(context) * ratio).rounded()), frames: outCount, fail: fail)
    }

    /// `loop` converted by `ratio` with libsamplerate (`quality`) as a periodic signal:
    /// extended on each side by `context` frames of its own wrap-around continuation,
    /// converted whole, and the output's frames `start ..< start + frames` returned (all
    /// finite). The one libsamplerate call (`resampleLoop`).
    static func convertLoop(mono loop: [Float], context: Int, ratio: Double, quality: Int32, start: Int, frames: Int,
                            fail: (String) -> ToneLoadError) throws -> [Float] {
        let n = loop.count
        var extended = [Float](repeating: 0, count: n + 2 * context)
        extended.withUnsafeMutableBufferPointer { e in
            loop.withUnsafeBufferPointer { l in
                var j = (n - context % n) % n  // frame (i − context) mod n
                for i in 0..<e.count {
                    e[i] = l[j]
                    j = j + 1 == n ? 0 : j + 1
                }
            }
        }
        let capacity = Int((Double(extended.count) * ratio).rounded(.up)) + 16
        var output = [Float](repeating: 0, count: capacity)
        var generated = 0
        let status = extended.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                var data = SRC_DATA()
                data.data_in = input.baseAddress
                data.input_frames = input.count
                data.data_out = out.baseAddress
                data.output_frames = out.count
                data.src_ratio = ratio
                data.end_of_input = 1
                let status = src_simple(&data, quality, 1)
                generated = data.output_frames_gen
                return status
            }
        }
        if status != 0 { throw fail("libsamplerate: " + String(cString: src_strerror(status))) }
        guard generated >= start + frames else {
            throw fail("libsamplerate produced \(generated) frames; expected at least \(start + frames)")
        }
        let result = Array(output[start..<(start + frames)])
        if result.contains(where: { !$0.isFinite }) {
            throw fail("libsamplerate produced a non-finite sample")
        }
        return result
    }

    static func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }

    static func formatRate(_ rate: Double) -> String {
        rate == rate.rounded() ? String(Int(rate)) : String(rate)
    }
}
