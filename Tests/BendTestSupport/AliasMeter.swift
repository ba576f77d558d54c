// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation

/// Measures alias and image energy in a rendered periodic tone: a 4-term
/// Blackman–Harris window (side lobes −92 dB, so −75 dB can be seen; a plain Blackman
/// window's −58 dB side lobes would hide it), the power in narrow bands around the
/// expected harmonics counted as signal, everything else as alias and image.
public enum AliasMeter {
    /// A band-limited sawtooth of `period` frames: harmonics 1…(period − 1)/2 (all below
    /// the Nyquist frequency), amplitude 0.5·(2/π)/h, sine phase. With a period such as
    /// 127 that does not divide the rate evenly into the ratios tested, aliases and
    /// images fall between harmonics, never on them.
    public static func sawtooth(period: Int) -> [Float] {
        (0..<period).map { i in
            var s = 0.0
            for h in 1...((period - 1) / 2) { s += sin(2 * Double.pi * Double(h * i) / Double(period)) / Double(h) }
            return Float(0.5 * 2 / Double.pi * s)
        }
    }

    /// Amplitude of harmonic h of `sawtooth`.
    public static func sawtoothAmplitude(_ h: Int) -> Double { 0.5 * 2 / Double.pi / Double(h) }

    /// The 4-term Blackman–Harris window (Harris 1978: a0 0.35875, a1 0.48829,
    /// a2 0.14128, a3 0.01168), `n` points.
    public static func blackmanHarris(_ n: Int) -> [Double] {
        (0..<n).map { i in
            let x = 2 * Double.pi * Double(i) / Double(n)
            return 0.35875 - 0.48829 * cos(x) + 0.14128 * cos(2 * x) - 0.01168 * cos(3 * x)
        }
    }

    /// Power per bin (0…size/2) of `samples` under the window; `size` = `samples.count`,
    /// a power of two. Bin i is i·rate/size Hz.
    public static func powerSpectrum(_ samples: ArraySlice<Float>) -> [Double] {
        let n = samples.count
        let w = blackmanHarris(n)
        var re = [Double](repeating: 0, count: n), im = [Double](repeating: 0, count: n)
        for (i, s) in samples.enumerated() { re[i] = Double(s) * w[i] }
        Measure.fft(&re, &im)
        return (0...(n / 2)).map { re[$0] * re[$0] + im[$0] * im[$0] }
    }

    /// Signal and alias powers: bins within `guardBins` of a band (lo…hi Hz, e.g. one
    /// harmonic's frequency, or the range it sweeps in a glide) are signal, the rest
    /// alias and image. Returns (alias / signal in dB, signal power, per-band power).
    public static func measure(_ samples: ArraySlice<Float>, rate: Double, bands: [(lo: Double, hi: Double)],
                               guardBins: Int = 6) -> (aliasDB: Double, bandPowers: [Double]) {
        let power = powerSpectrum(samples)
        let size = samples.count
        var isSignal = [Bool](repeating: false, count: power.count)
        var bandPowers: [Double] = []
        for band in bands {
            let lo = max(0, Int((band.lo * Double(size) / rate).rounded(.down)) - guardBins)
            let hi = min(power.count - 1, Int((band.hi * Double(size) / rate).rounded(.up)) + guardBins)
            var p = 0.0
            if lo <= hi { for i in lo...hi { isSignal[i] = true; p += power[i] } }
            bandPowers.append(p)
        }
        var signal = 0.0, alias = 0.0
        for i in power.indices { if isSignal[i] { signal += power[i] } else { alias += power[i] } }
        return (10 * log10(max(alias, 1e-300) / signal), bandPowers)
    }
}
