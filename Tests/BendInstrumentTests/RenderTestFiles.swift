// SPDX-License-Identifier: GPL-3.0-or-later
import BendTestSupport
import Foundation

// The files the render tests read (the temporary folders and libsndfile reads are
// BendTestSupport's, SoundFiles.swift).

/// The package root, found from this file's path (Tests/BendInstrumentTests/…).
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()
let defaultTonePath = packageRoot.appendingPathComponent("Assets/synth_tone_mono.caf").path

/// Spectrum measurements (BendTestSupport's FFT).
enum Spectrum {
    /// Frequency of the strongest spectral peak, Hz.
    static func peakFrequency(_ x: [Float], rate: Double) -> Double {
        Measure.peakFrequency(x, rate: rate)
    }
}
