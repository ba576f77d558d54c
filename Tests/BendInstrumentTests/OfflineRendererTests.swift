// SPDX-License-Identifier: GPL-3.0-or-later
import BendAudio
import BendControl
import BendEngine
import BendInstrument
import BendTestSupport
import Foundation
import XCTest

final class OfflineRendererTests: XCTestCase {
    let rate = 48_000.0

    func defaultTone() throws -> ToneTable {
        ToneTable(samples: try ToneLoader.load(path: defaultTonePath, outputRate: rate).samples, rate: rate)
    }

    /// Touch 1 down at the pad's centre (ratio 1) at full gain for 1 s, then up.
    let oneSecond = TouchScript(entries: [
        .init(time: 0, event: .touch(id: 1, phase: .down, x: 0.5, y: 1)),
        .init(time: 1, event: .touch(id: 1, phase: .up, x: 0, y: 0)),
    ])

    func testRendersThe440HzToneAndEndsSoonAfterTheUp() throws {
        let tone = try defaultTone()
        defer { tone.deallocate() }
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/out.wav"
        let summary = try OfflineRenderer.render(script: oneSecond, tone: tone, voices: 8, pitchMap: .linear, to: path)

        let file = try XCTUnwrap(readSoundFile(path))
        XCTAssertEqual(Int(file.info.channels), 2)
        XCTAssertEqual(Int(file.info.samplerate), 48_000)
        XCTAssertEqual(Int(file.info.frames), summary.frames)
        XCTAssertEqual(summary.seconds, Double(summary.frames) / rate)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir), ["out.wav"], "no temporary file left")

        let left = stride(from: 0, to: file.samples.count, by: 2).map { file.samples[$0] }
        let right = stride(from: 1, to: file.samples.count, by: 2).map { file.samples[$0] }
        XCTAssertEqual(Spectrum.peakFrequency(Array(left[0..<48_000]), rate: rate), 440, accuracy: 440 * 0.005)
        XCTAssertEqual(left, right, "centre pan: equal channels")
        // Centre pan, gain 1: −3 dBFS tone × equal-power −3 dB ≈ 0.5.
        XCTAssertEqual(summary.peak, file.samples.map(abs).max()!)
        XCTAssertEqual(Double(summary.peak), 0.708 * 0.7071, accuracy: 0.01)

        // Ends within 20 ms after the up (release 8 ms + at most one 256-frame period),
        // and the release really sounded until near the end.
        XCTAssertGreaterThan(summary.frames, 48_000)
        XCTAssertLessThanOrEqual(summary.frames, 48_000 + 960)
        let lastSound = left.lastIndex { abs($0) > 1e-4 }!
        XCTAssertGreaterThan(lastSound, 48_000 + 100, "the release fade is in the file")
        XCTAssertEqual(Array(left[(lastSound + 1)...]).map(abs).max() ?? 0, 0, accuracy: 1e-4)

        // The buffer path is the same code: identical samples.
        XCTAssertEqual(OfflineRenderer.renderToBuffer(script: oneSecond, tone: tone, voices: 8, pitchMap: .linear),
                       file.samples)
    }

    func testHeldTouchStopsOneSecondAfterTheLastEvent() throws {
        let tone = try defaultTone()
        defer { tone.deallocate() }
        let held = TouchScript(entries: [.init(time: 0.5, event: .touch(id: 7, phase: .down, x: 1, y: 0.5))])
        let out = OfflineRenderer.renderToBuffer(script: held, tone: tone, voices: 4, pitchMap: .linear)
        // Last event at frame 24 000, cap 1 s later: the first 256-frame period boundary ≥ 72 000.
        XCTAssertEqual(out.count / 2, 72_192)
        let left = stride(from: 0, to: out.count, by: 2).map { out[$0] }
        XCTAssertEqual(Array(left[0..<24_000]).map(abs).max()!, 0, "silent before the touch")
        XCTAssertEqual(Spectrum.peakFrequency(Array(left[24_000..<72_000]), rate: rate), 880, accuracy: 880 * 0.005,
                       "x = 1: ratio 2")
    }

    /// A script's end (a MIDI file's End-of-Track, a script's `end` line) later than its
    /// sound: the render runs to exactly that frame, silence after the release; an end
    /// before the sound's end changes nothing; silence alone lasts its length (issue 28).
    func testRenderLastsUntilTheScriptsEnd() throws {
        let tone = try defaultTone()
        defer { tone.deallocate() }
        var late = oneSecond
        late.end = 1.5
        let out = OfflineRenderer.renderToBuffer(script: late, tone: tone, voices: 8, pitchMap: .linear)
        XCTAssertEqual(out.count / 2, 72_000, "ends on the end's frame, not on a period boundary")
        let left = stride(from: 0, to: out.count, by: 2).map { out[$0] }
        XCTAssertEqual(Spectrum.peakFrequency(Array(left[0..<48_000]), rate: rate), 440, accuracy: 440 * 0.005)
        XCTAssertEqual(Array(left[49_000...]).map(abs).max()!, 0, "silence after the release")
        var early = oneSecond
        early.end = 0.5
        XCTAssertEqual(OfflineRenderer.renderToBuffer(script: early, tone: tone, voices: 8, pitchMap: .linear),
                       OfflineRenderer.renderToBuffer(script: oneSecond, tone: tone, voices: 8, pitchMap: .linear),
                       "an end before the sound's: the sound's length")
        let silence = OfflineRenderer.renderToBuffer(script: TouchScript(entries: [], end: 2.0001), tone: tone, voices: 8,
                                                     pitchMap: .linear, periodFrames: 100)
        XCTAssertEqual(silence.count / 2, 96_005)
        XCTAssertEqual(silence.map(abs).max()!, 0)
    }

    func testMissingDirectoryCreatesNothingAndNamesTheFile() throws {
        let tone = try defaultTone()
        defer { tone.deallocate() }
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/missing/out.wav"
        XCTAssertThrowsError(try OfflineRenderer.render(script: oneSecond, tone: tone, voices: 8, pitchMap: .linear, to: path)) { error in
            // The unnamed file (`O_TMPFILE`) is opened in the folder first: its open names the error.
            XCTAssertTrue("\(error)".hasPrefix("WAV file '\(path)': open: "), "\(error)")
            XCTAssertTrue("\(error)".hasSuffix("No such file or directory"), "\(error)")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir), [])
    }

    /// OUT is a directory: refused before anything is written, the directory is kept.
    func testDirectoryAsOutputIsRefusedAndKept() throws {
        let tone = try defaultTone()
        defer { tone.deallocate() }
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/out.wav"
        try FileManager.default.createDirectory(atPath: path + "/keep", withIntermediateDirectories: true)
        XCTAssertThrowsError(try OfflineRenderer.render(script: oneSecond, tone: tone, voices: 8, pitchMap: .linear, to: path)) { error in
            XCTAssertTrue("\(error)".contains("not a regular file"), "\(error)")
            XCTAssertTrue("\(error)".hasPrefix("WAV file '\(path)'"), "\(error)")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir), ["out.wav"], "no temporary file")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: path), ["keep"])
    }

    func testRenderReplacesAnExistingFile() throws {
        let tone = try defaultTone()
        defer { tone.deallocate() }
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/out.wav"
        try "old".write(toFile: path, atomically: false, encoding: .utf8)
        let summary = try OfflineRenderer.render(script: oneSecond, tone: tone, voices: 1, pitchMap: .linear, to: path)
        XCTAssertEqual(Int(try XCTUnwrap(readSoundFile(path)).info.frames), summary.frames)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir), ["out.wav"])
    }
}

/// Outputs that are not plain files: a symbolic link is written through, a device is refused.
final class OfflineRendererOutputPathTests: XCTestCase {
    let script = try! TouchScript.parse("""
    {"t": 0, "type": "down", "id": 1, "x": 0.5, "y": 1}
    {"t": 0.1, "type": "up", "id": 1}
    """)

    func testSymbolicLinkIsWrittenThrough() throws {
        let tone = ToneTable(samples: Measure.harmonicTone(), rate: 48_000)
        defer { tone.deallocate() }
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createSymbolicLink(atPath: dir + "/link.wav", withDestinationPath: dir + "/target.wav")
        let summary = try OfflineRenderer.render(script: script, tone: tone, voices: 4, pitchMap: .linear, to: dir + "/link.wav")
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: dir + "/link.wav"), dir + "/target.wav")
        XCTAssertEqual(readSoundFile(dir + "/target.wav")?.info.frames, Int64(summary.frames))
    }

    func testDeviceNodeIsRefused() throws {
        let tone = ToneTable(samples: Measure.harmonicTone(), rate: 48_000)
        defer { tone.deallocate() }
        XCTAssertThrowsError(try OfflineRenderer.render(script: script, tone: tone, voices: 4, pitchMap: .linear, to: "/dev/null")) {
            XCTAssertTrue("\($0)".contains("'/dev/null'") && "\($0)".contains("not a regular file"), "\($0)")
        }
        var info = stat()
        XCTAssertEqual(stat("/dev/null", &info), 0)
        XCTAssertEqual(info.st_mode & S_IFMT, S_IFCHR, "/dev/null is still a device")
    }
}
