// SPDX-License-Identifier: GPL-3.0-or-later
import CSndFile
import XCTest

/// Reads a WAV the tests' commands wrote (libsndfile).
enum WAVReader {
    /// Interleaved float samples, frames, channels and rate of the file at `path`.
    static func read(_ path: String) throws -> (samples: [Float], frames: Int, channels: Int, rate: Int32) {
        var info = SF_INFO()
        let file = try XCTUnwrap(sf_open(path, Int32(SFM_READ), &info), "open \(path)")
        defer { sf_close(file) }
        var samples = [Float](repeating: 0, count: Int(info.frames) * Int(info.channels))
        XCTAssertEqual(sf_readf_float(file, &samples, info.frames), info.frames)
        return (samples, Int(info.frames), Int(info.channels), info.samplerate)
    }

    /// Frames in the file at `path` so far (a take still being recorded); 0 before it
    /// can be opened.
    static func frames(_ path: String) -> Int {
        var info = SF_INFO()
        guard let f = sf_open(path, Int32(SFM_READ), &info) else { return 0 }
        sf_close(f)
        return Int(info.frames)
    }
}
