// SPDX-License-Identifier: GPL-3.0-or-later
import BendTestSupport
import CSndFile
import Foundation

// The files the render tests read and write (as BendAudioTests' ToneLoaderTests has them).

/// The package root, found from this file's path (Tests/BendInstrumentTests/…).
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()
let defaultTonePath = packageRoot.appendingPathComponent("Assets/synth_tone_mono.caf").path

/// A fresh temporary directory for one test.
func makeTemporaryDirectory() throws -> String {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bendinstrument-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    return dir
}

/// Reads a whole file with libsndfile: interleaved samples and its SF_INFO.
func readSoundFile(_ path: String) -> (samples: [Float], info: SF_INFO)? {
    var info = SF_INFO()
    guard let file = sf_open(path, Int32(SFM_READ), &info) else { return nil }
    defer { sf_close(file) }
    var samples = [Float](repeating: 0, count: Int(info.frames) * Int(info.channels))
    let got = samples.withUnsafeMutableBufferPointer { sf_readf_float(file, $0.baseAddress, info.frames) }
    return (Array(samples[0..<(Int(got) * Int(info.channels))]), info)
}

/// Spectrum measurements (BendTestSupport's FFT).
enum Spectrum {
    /// Frequency of the strongest spectral peak, Hz.
    static func peakFrequency(_ x: [Float], rate: Double) -> Double {
        Measure.peakFrequency(x, rate: rate)
    }
}
