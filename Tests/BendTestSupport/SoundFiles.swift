// SPDX-License-Identifier: GPL-3.0-or-later
import CSndFile
import Foundation

/// Writes interleaved float samples with libsndfile (test input files: tones, samples).
/// - Parameters:
///   - format: libsndfile's major format and subtype (default float WAV).
public func writeSoundFile(_ path: String, _ samples: [Float], rate: Int, channels: Int = 1,
                           format: Int32 = Int32(SF_FORMAT_WAV | SF_FORMAT_FLOAT)) {
    var info = SF_INFO()
    info.samplerate = Int32(rate)
    info.channels = Int32(channels)
    info.format = format
    guard let file = sf_open(path, Int32(SFM_WRITE), &info) else {
        fatalError("sf_open(\(path)): \(String(cString: sf_strerror(nil)))")
    }
    let frames = samples.count / channels
    let written = samples.withUnsafeBufferPointer { sf_writef_float(file, $0.baseAddress, sf_count_t(frames)) }
    precondition(written == frames)
    sf_close(file)
}

/// A fresh temporary directory for one test.
public func makeTemporaryDirectory() throws -> String {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bendsynth-test-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    return dir
}

/// Reads a whole file with libsndfile: interleaved samples and its SF_INFO.
public func readSoundFile(_ path: String) -> (samples: [Float], info: SF_INFO)? {
    var info = SF_INFO()
    guard let file = sf_open(path, Int32(SFM_READ), &info) else { return nil }
    defer { sf_close(file) }
    var samples = [Float](repeating: 0, count: Int(info.frames) * Int(info.channels))
    let got = samples.withUnsafeMutableBufferPointer { sf_readf_float(file, $0.baseAddress, info.frames) }
    return (Array(samples[0..<(Int(got) * Int(info.channels))]), info)
}
