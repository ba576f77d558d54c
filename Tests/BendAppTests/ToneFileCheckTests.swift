// SPDX-License-Identifier: GPL-3.0-or-later
import BendAudio
import BendTestSupport
import CSndFile
import Foundation
import XCTest

/// Issue 38 item 6: tone files checked at load. A WAV whose data chunk claims more than
/// the file holds — a chunk after the audio, or a truncated file — loads what is audio,
/// with a warning naming the file and what was wrong; a missing tone and a tone too long
/// are said in the project's words.
final class ToneFileCheckTests: XCTestCase {
    var dir: URL!
    override func setUpWithError() throws { dir = try BinaryRunner.temporaryDirectory() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    /// A 16-bit mono 48 kHz WAV of `frames` frames of a 261.63 Hz sine, its data chunk
    /// claiming `claim` bytes, `tail` after the samples.
    func wav(_ name: String, frames: Int = 24_000, claim: Int? = nil, tail: [UInt8] = [], cutTo: Int? = nil) throws -> String {
        func le(_ v: Int, _ n: Int) -> [UInt8] { (0..<n).map { UInt8((v >> (8 * $0)) & 0xFF) } }
        let pcm = (0..<frames).flatMap { le(Int(Int16(16_000 * sin(2 * Double.pi * 261.63 * Double($0) / 48_000))) & 0xFFFF, 2) }
        let fmt = le(1, 2) + le(1, 2) + le(48_000, 4) + le(96_000, 4) + le(2, 2) + le(16, 2)
        let body = Array("WAVE".utf8) + Array("fmt ".utf8) + le(16, 4) + fmt + Array("data".utf8) + le(claim ?? pcm.count, 4) + pcm + tail
        var file = Array("RIFF".utf8) + le(body.count, 4) + body
        if let cutTo { file = Array(file.prefix(cutTo)) }
        let path = dir.appendingPathComponent(name).path
        try Data(file).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The render's stderr with `tone`, and its status.
    func render(_ tone: String) throws -> BinaryRunner.Result {
        let script = dir.appendingPathComponent("s.jsonl").path
        try (#"{"t": 0, "type": "down", "id": 1, "x": 0.5, "y": 1}"# + "\n" + #"{"t": 0.2, "type": "up", "id": 1}"# + "\n")
            .write(toFile: script, atomically: true, encoding: .utf8)
        return try BinaryRunner.run(["render", "--no-config", script, "-o", dir.appendingPathComponent("out.wav").path, "--tone", tone])
    }

    func testChunkAfterTheAudioIsNotPlayed() throws {
        let info = Array("INFOISFT".utf8) + [14, 0, 0, 0] + Array("some editor".utf8) + [0, 0, 0]
        let path = try wav("over.wav", claim: 480_000, tail: Array("LIST".utf8) + [UInt8(info.count), 0, 0, 0] + info)
        let tone = try ToneLoader.load(path: path, outputRate: 48_000, findRoot: false)
        let r = try render(path)
        let line = r.stderr.split(separator: "\n").first { $0.contains("warning") } ?? ""
        print("a LIST chunk after the audio, data chunk claiming 480000 bytes: \(tone.samples.count) frames loaded; said: \(line)")
        XCTAssertEqual(tone.samples.count, 24_000, "the LIST chunk's 17 frames are not audio")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(line.contains("'\(path)'") && line.contains("'LIST' chunk") && line.contains("480000 bytes"), String(line))
    }

    func testTruncatedFileLoadsWithAWarning() throws {
        let path = try wav("cut.wav", cutTo: 44 + 24_000)
        let tone = try ToneLoader.load(path: path, outputRate: 48_000, findRoot: false)
        let r = try render(path)
        let line = r.stderr.split(separator: "\n").first { $0.contains("warning") } ?? ""
        print("a WAV cut to half its data: \(tone.samples.count) frames loaded; said: \(line)")
        XCTAssertEqual(tone.samples.count, 12_000)
        XCTAssertTrue(line.contains("'\(path)'") && line.contains("truncated") && line.contains("24000 frames"), String(line))
    }

    func testMissingToneInTheProjectsWords() throws {
        let path = dir.appendingPathComponent("nope.wav").path
        let r = try render(path)
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("tone file '\(path)': no such file"), r.stderr)
        XCTAssertFalse(r.stderr.contains("libsndfile"), r.stderr)
    }

    func testOverLongToneSaysBothDurations() throws {
        let path = dir.appendingPathComponent("long.wav").path
        writeSoundFile(path, [Float](repeating: 0.1, count: 360 * 48_000), rate: 48_000, format: Int32(SF_FORMAT_WAV | SF_FORMAT_PCM_16))
        let r = try render(path)
        print("a 360 s tone: \(r.stderr)")
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("is 360.0 s") && r.stderr.contains("at most 349.5 s"), r.stderr)
    }
}
