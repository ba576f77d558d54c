// SPDX-License-Identifier: GPL-3.0-or-later
import BendAudio
import BendEngine
import Foundation

/// Measurements for tests: spectra, levels, steps. Plain, slow, obviously correct.
public enum Measure {
    /// In-place radix-2 complex FFT (Cooley–Tukey, iterative). `re.count` must be a power of two.
    public static func fft(_ re: inout [Double], _ im: inout [Double]) {
        let n = re.count
        precondition(n > 0 && n & (n - 1) == 0, "FFT size must be a power of two")
        var j = 0
        for i in 1..<n {
            var bit = n >> 1
            while j & bit != 0 { j ^= bit; bit >>= 1 }
            j |= bit
            if i < j { re.swapAt(i, j); im.swapAt(i, j) }
        }
        var len = 2
        while len <= n {
            let ang = -2 * Double.pi / Double(len)
            for start in stride(from: 0, to: n, by: len) {
                for k in 0..<(len / 2) {
                    let wr = cos(ang * Double(k)), wi = sin(ang * Double(k))
                    let a = start + k, b = a + len / 2
                    let xr = re[b] * wr - im[b] * wi
                    let xi = re[b] * wi + im[b] * wr
                    re[b] = re[a] - xr; im[b] = im[a] - xi
                    re[a] += xr; im[a] += xi
                }
            }
            len <<= 1
        }
    }

    /// Magnitude spectrum of `samples` (Hann window, zero-padded to a power of two ≥ 4×count).
    public static func spectrum(_ samples: [Float]) -> (magnitudes: [Double], size: Int) {
        var size = 1
        while size < samples.count * 4 { size <<= 1 }
        var re = [Double](repeating: 0, count: size)
        var im = [Double](repeating: 0, count: size)
        let n = samples.count
        for i in 0..<n {
            let w = 0.5 - 0.5 * cos(2 * Double.pi * Double(i) / Double(max(n - 1, 1)))
            re[i] = Double(samples[i]) * w
        }
        fft(&re, &im)
        var mags = [Double](repeating: 0, count: size / 2)
        for i in 0..<(size / 2) { mags[i] = (re[i] * re[i] + im[i] * im[i]).squareRoot() }
        return (mags, size)
    }

    /// Frequency (Hz) of the largest spectral peak above `minimumHz`, refined by
    /// parabolic interpolation of the log magnitudes around the peak bin.
    public static func peakFrequency(_ samples: [Float], rate: Double, minimumHz: Double = 20) -> Double {
        let (mags, size) = spectrum(samples)
        let first = max(1, Int(minimumHz * Double(size) / rate))
        var best = first
        for i in first..<(mags.count - 1) where mags[i] > mags[best] { best = i }
        let a = log(max(mags[best - 1], 1e-30)), b = log(max(mags[best], 1e-30)), c = log(max(mags[best + 1], 1e-30))
        let d = a - 2 * b + c
        let offset = d == 0 ? 0 : 0.5 * (a - c) / d
        return (Double(best) + offset) * rate / Double(size)
    }

    /// Spectral peaks: frequencies (Hz) of local maxima at least `floorDB` below the
    /// largest, sorted by magnitude, descending.
    public static func peaks(_ samples: [Float], rate: Double, floorDB: Double = -20, minimumHz: Double = 20) -> [Double] {
        let (mags, size) = spectrum(samples)
        let top = mags.max() ?? 0
        let threshold = top * pow(10, floorDB / 20)
        let first = max(1, Int(minimumHz * Double(size) / rate))
        var found: [(Double, Double)] = []
        for i in first..<(mags.count - 1) where mags[i] >= threshold && mags[i] > mags[i - 1] && mags[i] >= mags[i + 1] {
            found.append((Double(i) * rate / Double(size), mags[i]))
        }
        return found.sorted { $0.1 > $1.1 }.map(\.0)
    }

    /// Root mean square.
    public static func rms(_ samples: ArraySlice<Float>) -> Double {
        guard !samples.isEmpty else { return 0 }
        return (samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(samples.count)).squareRoot()
    }
    public static func rms(_ samples: [Float]) -> Double { rms(samples[...]) }

    /// 20·log10(ratio); −∞ for 0.
    public static func dB(_ ratio: Double) -> Double { 20 * log10(ratio) }

    /// Largest |x[i+1] − x[i]|.
    public static func maxStep(_ samples: ArraySlice<Float>) -> Float {
        var m: Float = 0
        var i = samples.startIndex
        while i + 1 < samples.endIndex {
            m = max(m, abs(samples[i + 1] - samples[i]))
            i += 1
        }
        return m
    }

    /// Channel `c` (0 left, 1 right) of interleaved stereo.
    public static func channel(_ interleaved: [Float], _ c: Int) -> [Float] {
        stride(from: c, to: interleaved.count, by: 2).map { interleaved[$0] }
    }

    /// One loop of a test tone: `frames` frames of a 440·(48000/frames)-cycle-exact sum
    /// of harmonics (amplitudes 0.5, 0.25, 0.125 for 1st..3rd) so the loop is seamless.
    public static func harmonicTone(frames: Int = 48_000, cycles: Int = 440) -> [Float] {
        (0..<frames).map { i in
            let p = 2 * Double.pi * Double(cycles) * Double(i) / Double(frames)
            return Float(0.5 * sin(p) + 0.25 * sin(2 * p) + 0.125 * sin(3 * p))
        }
    }

    /// A tone's band-limited levels as the app makes them (`ToneLevelMaker`,
    /// libsamplerate).
    public static func bandLimitedLevels(_ samples: [Float]) throws -> ToneLevels {
        try ToneLevelMaker.make(samples, path: "test tone")
    }

    /// Pitch track of a pure tone: one point per period between rising zero crossings
    /// (placed by linear interpolation), as (time of the period's middle in seconds,
    /// frequency in Hz). Precise to a fraction of a cent for a sine of ≥ 20 frames per
    /// period; meaningless for a tone with strong harmonics.
    public static func zeroCrossingTrack(_ samples: [Float], rate: Double) -> [(time: Double, hz: Double)] {
        var crossings: [Double] = []
        for i in 1..<max(samples.count, 1) where samples[i - 1] < 0 && samples[i] >= 0 {
            let a = Double(samples[i - 1]), b = Double(samples[i])
            crossings.append(Double(i - 1) + a / (a - b))
        }
        return zip(crossings, crossings.dropFirst()).map { ((($0 + $1) / 2) / rate, rate / ($1 - $0)) }
    }

    /// One loop of a sine: `cycles` cycles in `frames` frames, amplitude 0.5.
    public static func sineTone(frames: Int = 48_000, cycles: Int = 440) -> [Float] {
        (0..<frames).map { Float(0.5 * sin(2 * Double.pi * Double(cycles) * Double($0) / Double(frames))) }
    }

    /// What the effects added: the left channel of `wet − dry` (the same mix with and
    /// without effects; the dry mix is bit for bit the same in both), frames `frames`.
    public static func effectsReturn(wet: [Float], dry: [Float], frames: Range<Int>) -> [Float] {
        let l = channel(wet, 0), d = channel(dry, 0)
        return frames.map { l[$0] - d[$0] }
    }

    /// The largest magnitude of `spectrum` (`spectrum(_:)`'s, at `rate`) within 3 bins of `hz`.
    public static func level(_ spectrum: (magnitudes: [Double], size: Int), at hz: Double, rate: Double = 48_000) -> Double {
        let k = Int((hz * Double(spectrum.size) / rate).rounded())
        return spectrum.magnitudes[max(0, k - 3)...min(spectrum.magnitudes.count - 1, k + 3)].max()!
    }
}
