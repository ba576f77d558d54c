// SPDX-License-Identifier: GPL-3.0-or-later
import BendTestSupport
import BendAudio
import BendEngine
import BendSystem
import CSndFile
import Foundation
import XCTest

final class RecorderTests: XCTestCase {
    static let rate = 48_000

    /// Frame `i` of the test signal: left counts up in steps of 2⁻¹⁶, right is its
    /// negative; both exact in float32, so any lost, repeated or reordered frame shows.
    static func frame(_ i: Int) -> (Float, Float) {
        let v = Float(i % 65_536) / 65_536
        return (v, -v)
    }

    /// Writes frames `range` into the ring as the render thread would (480-frame periods).
    func produce(_ range: Range<Int>, into ring: SPSCRing<Float>) {
        var period: [Float] = []
        for start in stride(from: range.lowerBound, to: range.upperBound, by: 480) {
            period.removeAll(keepingCapacity: true)
            for i in start..<min(start + 480, range.upperBound) {
                let (l, r) = Self.frame(i)
                period.append(l); period.append(r)
            }
            XCTAssertTrue(period.withUnsafeBufferPointer { ring.write($0.baseAddress!, count: $0.count) })
        }
    }

    /// Polls `framesWritten` (the writer has no completion signal) until it reaches `count`.
    func waitUntilWritten(_ recorder: WAVRecorder, _ count: Int) {
        let deadline = Date().addingTimeInterval(30)
        while recorder.framesWritten < count && Date() < deadline { usleep(1_000) }
        XCTAssertEqual(recorder.framesWritten, count)
    }

    func checkSignal(_ samples: [Float], frames: Int, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(samples.count, 2 * frames, file: file, line: line)
        var mismatches = 0
        for i in 0..<min(frames, samples.count / 2) {
            let (l, r) = Self.frame(i)
            if samples[2 * i] != l || samples[2 * i + 1] != r { mismatches += 1 }
        }
        XCTAssertEqual(mismatches, 0, "frames that differ from what was played", file: file, line: line)
    }

    func testFileStaysReadableWhileRecordingAndIsExactAfterStop() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/take.wav"
        let ring = SPSCRing<Float>(capacity: 2 * Self.rate * 2)  // 2 s of stereo
        defer { ring.deallocate() }
        let recorder = try WAVRecorder(path: path, rate: Self.rate, channels: 2, ring: ring)

        // 1.5 s played; copy the file's bytes while the writer thread still runs (as if
        // the process were killed now) and read the copy with libsndfile.
        produce(0..<72_000, into: ring)
        waitUntilWritten(recorder, 72_000)
        let copy = dir + "/copy.wav"
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        let snapshot = try XCTUnwrap(readSoundFile(copy), "the copy taken mid-recording must open")
        XCTAssertGreaterThanOrEqual(Int(snapshot.info.frames), 72_000 - Self.rate, "at most the last second may be missing")
        XCTAssertEqual(Int(snapshot.info.frames), 72_000, "header rewritten after every write")
        XCTAssertEqual(snapshot.info.format, Int32(SF_FORMAT_WAV | SF_FORMAT_FLOAT))
        checkSignal(snapshot.samples, frames: Int(snapshot.info.frames))

        // 0.5 s more, then stop: everything played is in the file, bit for bit.
        produce(72_000..<96_000, into: ring)
        recorder.stop()
        recorder.stop()  // idempotent
        XCTAssertEqual(recorder.framesWritten, 96_000)
        XCTAssertNil(recorder.failure)
        XCTAssertEqual(ring.dropped, 0)
        let final = try XCTUnwrap(readSoundFile(path))
        XCTAssertEqual(Int(final.info.frames), 96_000)
        XCTAssertEqual(Int(final.info.samplerate), Self.rate)
        XCTAssertEqual(Int(final.info.channels), 2)
        checkSignal(final.samples, frames: 96_000)
    }

    func testStopDrainsWhatTheRingStillHolds() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/mono.wav"
        let ring = SPSCRing<Float>(capacity: 1 << 16)
        defer { ring.deallocate() }
        let recorder = try WAVRecorder(path: path, rate: 8_000, channels: 1, ring: ring)
        let samples = (0..<10_000).map { Float($0) / 10_000 }
        XCTAssertTrue(samples.withUnsafeBufferPointer { ring.write($0.baseAddress!, count: $0.count) })
        recorder.stop()
        let file = try XCTUnwrap(readSoundFile(path))
        XCTAssertEqual(Int(file.info.channels), 1)
        XCTAssertEqual(Int(file.info.samplerate), 8_000)
        XCTAssertEqual(file.samples, samples)
    }

    func testCannotCreateNamesTheFileAndTheReason() throws {
        let path = "/nonexistent-bendsynth-dir/take.wav"
        let ring = SPSCRing<Float>(capacity: 1024)
        defer { ring.deallocate() }
        XCTAssertThrowsError(try WAVRecorder(path: path, rate: 48_000, ring: ring)) { error in
            XCTAssertEqual("\(error)", "WAV file '\(path)': sf_open: System error : No such file or directory.")
        }
    }

    /// With no descriptor left for its event loop's eventfd (the file took the last one
    /// the limit allows), the error names the call that failed and the recording, not a
    /// thread that was never asked for; the file is closed again.
    func testAnEventLoopThatCannotStartNamesTheFailingCall() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("recorder-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("take.wav").path
        let ring = SPSCRing<Float>(capacity: 1024)
        defer { ring.deallocate() }
        var saved = rlimit()
        XCTAssertEqual(getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &saved), 0)
        let lowest = open("/dev/null", O_RDONLY)  // the lowest free descriptor: the file's
        XCTAssertGreaterThanOrEqual(lowest, 0)
        close(lowest)
        var tight = saved
        tight.rlim_cur = rlim_t(lowest + 1)
        XCTAssertEqual(setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &tight), 0)
        var thrown: Error?
        do { _ = try WAVRecorder(path: path, rate: 48_000, ring: ring) } catch { thrown = error }
        XCTAssertEqual(setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &saved), 0)
        let error = try XCTUnwrap(thrown as? SystemError, "\(String(describing: thrown))")
        XCTAssertEqual(error.call, "eventfd(bendsynth wav), the event loop recording '\(path)'")
        XCTAssertEqual(error.code, EMFILE)
        let again = open("/dev/null", O_RDONLY)
        XCTAssertEqual(again, lowest, "the file's descriptor was closed")
        close(again)
    }
}
