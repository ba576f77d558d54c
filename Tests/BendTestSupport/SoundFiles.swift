// SPDX-License-Identifier: GPL-3.0-or-later
import CSndFile

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
