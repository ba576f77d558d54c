// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation

/// The low-pass filter's response measured in rendered output: a tone whose harmonics are
/// all equally loud goes through a voice with and without the filter; each harmonic's
/// level out over in is the response at its frequency.
public enum FilterMeasure {
    public static let rate = 48_000.0

    /// One loop (480 frames, 100 Hz) of a tone whose 239 harmonics are equally loud
    /// (Schroeder's phases keep its peak low), peak 0.5.
    public static let flatTone: [Float] = {
        let n = 480, top = 239
        let x = (0..<n).map { i in
            (1...top).reduce(0.0) { $0 + cos(2 * Double.pi * Double($1 * i) / Double(n) + Double.pi * Double($1 * $1) / Double(top)) }
        }
        let peak = x.map(abs).max()!
        return x.map { Float(0.5 * $0 / peak) }
    }()

    /// Amplitude of harmonics 1…239 (of 100 Hz) in `x` (a whole number of 10 ms periods).
    public static func harmonics(_ x: ArraySlice<Float>) -> [Double] {
        let n = x.count
        return (1...239).map { h in
            var re = 0.0, im = 0.0
            for (i, v) in x.enumerated() {
                let p = 2 * Double.pi * Double(h * 100) * Double(i) / rate
                re += Double(v) * cos(p); im += Double(v) * sin(p)
            }
            return 2 * (re * re + im * im).squareRoot() / Double(n)
        }
    }

    /// Where `wet`'s harmonics (against `dry`'s, the lowest harmonic's ratio the
    /// reference) first fall 3 dB, Hz, interpolated in dB between harmonics.
    public static func minus3dB(wet: [Double], dry: [Double]) -> Double {
        let response = zip(wet, dry).map { 20 * log10($0 / $1) }
        let reference = response[0]
        for k in 1..<response.count where response[k] - reference <= -3 {
            let (a, b) = (response[k - 1] - reference, response[k] - reference)
            return 100 * (Double(k) + (-3 - a) / (b - a))  // harmonic k is (k + 1)·100 Hz
        }
        return .infinity
    }
}
