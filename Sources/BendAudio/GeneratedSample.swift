// SPDX-License-Identifier: GPL-3.0-or-later
import BendSFZ
import CSndFile
import Foundation

/// The sample of an SFZ generator (`*sine`, `*saw`, …; `SFZGenerator`), made as a file
/// would have been read, so it goes through the same tables as any sample: one cycle at
/// about middle C's pitch, summed from its harmonics below the table's Nyquist (exact and
/// band-limited; the engine's band-limited levels take it higher), looped whole. Its
/// keycenter is the cycle's own pitch, so every key sounds its own frequency, as sfizz's
/// oscillators do. `*noise` is 1 s of white noise (a fixed seed: every load the same),
/// played as made at key 60; `*silence` a cycle of zeros.
enum GeneratedSample {
    /// Key 60's frequency, Hz: what a cycle is sized for.
    static let middleC = 440 * pow(2, -9.0 / 12)

    /// The file and the key it sounds at as made.
    static func make(_ generator: SFZGenerator, rate: Double) -> (file: ToneLoader.FileAudio, keycenter: Double) {
        let cycle = max(32, Int((rate / middleC).rounded()))
        let keycenter = 69 + 12 * log2(rate / Double(cycle) / 440)
        let samples: [Float]
        switch generator {
        case .sine: samples = harmonics(cycle) { $0 == 1 ? 1 : 0 }
        // Fourier series of the ideal waves: saw 2/π·(−1)^(k+1)/k, square 4/(πk) for odd k,
        // triangle 8/π²·(−1)^((k−1)/2)/k² for odd k (peak 1 each before the Gibbs overshoot).
        case .saw: samples = harmonics(cycle) { k in 2 / Double.pi * (k % 2 == 1 ? 1 : -1) / Double(k) }
        case .square: samples = harmonics(cycle) { k in k % 2 == 1 ? 4 / (Double.pi * Double(k)) : 0 }
        case .triangle:
            samples = harmonics(cycle) { k -> Double in
                guard k % 2 == 1 else { return 0 }
                let sign: Double = (k / 2) % 2 == 0 ? 1 : -1
                return 8 / (Double.pi * Double.pi) * sign / Double(k * k)
            }
        case .noise:
            var state: UInt64 = 0x9E37_79B9_7F4A_7C15
            samples = (0..<max(Int(rate), 32)).map { _ -> Float in
                // xorshift64*: reproducible white noise, uniform in −1…1.
                state ^= state >> 12
                state ^= state << 25
                state ^= state >> 27
                let bits: UInt64 = (state &* 0x2545_F491_4F6C_DD1D) >> 11
                let unit: Double = Double(bits) / 9_007_199_254_740_992  // 2^53
                return Float(unit * 2 - 1)
            }
        case .silence: samples = [Float](repeating: 0, count: cycle)
        }
        var instrument = SF_INSTRUMENT()
        instrument.gain = 1
        instrument.velocity_hi = 127
        instrument.key_hi = 127
        instrument.loop_count = 1
        csndfile_set_instrument_loop(&instrument, 0, csndfile_loop(mode: Int32(SF_LOOP_FORWARD), start: 0, end: UInt32(samples.count), count: 0))
        let file = ToneLoader.FileAudio(interleaved: samples, channels: 1, rate: Int(rate.rounded()), frames: samples.count,
                                        format: Int32(SF_FORMAT_WAV | SF_FORMAT_FLOAT), instrument: instrument, loopInfo: nil)
        return (file, generator == .noise || generator == .silence ? 60 : keycenter)
    }

    /// One cycle of `frames` frames: the sum of harmonics k (1 … below Nyquist) of
    /// amplitude `amplitude(k)`, in sine phase.
    static func harmonics(_ frames: Int, amplitude: (Int) -> Double) -> [Float] {
        let top = (frames - 1) / 2
        let weights = (1...max(top, 1)).map { (k: $0, a: amplitude($0)) }.filter { $0.a != 0 }
        return (0..<frames).map { n in
            let x = 2 * Double.pi * Double(n) / Double(frames)
            return Float(weights.reduce(0.0) { $0 + $1.a * sin(Double($1.k) * x) })
        }
    }
}
