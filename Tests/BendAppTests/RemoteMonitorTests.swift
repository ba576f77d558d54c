// SPDX-License-Identifier: GPL-3.0-or-later
import BendPeers
import BendTestSupport
import Foundation
import Synchronization
import XCTest

/// `remote --monitor`: the same touches reach the instrument and sound locally.
final class RemoteMonitorTests: XCTestCase {
    func testMonitoredRemoteSoundsLocallyAtThePitchAndTheInstrumentGetsTheTouches() throws {
        let server = try PeerSession(configuration: .init(displayName: "monitor-test", role: .server))
        let touches = Mutex<[String]>([])
        server.onReceive = { m, _ in
            if case let .touch(id, phase, x, _, _) = m { touches.withLock { $0.append(phase == .up ? "\(id) up" : "\(id) \(phase) \(x)") } }
        }
        defer { server.stop() }
        let bound = try server.listen(on: "127.0.0.1:0")
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let script = dir.appendingPathComponent("touch.jsonl").path
        let wav = dir.appendingPathComponent("local.wav").path
        // x = 0.75 on the default pad (two octaves, exponential) → 600 cents over the
        // 440 Hz default tone: 622.25 Hz; held 1 s.
        try """
        {"t": 0.0, "type": "down", "id": 7, "x": 0.75, "y": 1}
        {"t": 1.0, "type": "up", "id": 7}
        """.write(toFile: script, atomically: true, encoding: .utf8)
        let r = try BinaryRunner.run(["remote", bound, "--monitor", "--script", script, "-d", "bendsynth_no_such_pcm", "--record", wav])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("monitored here"), r.stderr)
        XCTAssertEqual(touches.withLock { $0 }, ["7 down 0.75", "7 up"])

        let left = Measure.channel(try WAVReader.read(wav).samples, 0)
        let first = try XCTUnwrap(left.firstIndex { $0 != 0 })
        let last = try XCTUnwrap(left.lastIndex { $0 != 0 })
        let held = Double(last - first) / 48_000
        XCTAssertEqual(held, 1.0, accuracy: 0.1, "sounded locally while the touch was down")
        let f = Measure.peakFrequency(Array(left[(first + 2_400)..<(first + 40_000)]), rate: 48_000)
        XCTAssertEqual(f, 440 * 2.0.squareRoot(), accuracy: 622 * 0.005)
        print("remote --monitor: local \(String(format: "%.1f", f)) Hz for \(String(format: "%.2f", held)) s")
    }

    func testLocalSoundOptionsNeedMonitor() throws {
        let r = try BinaryRunner.run(["remote", "127.0.0.1:1", "--record", "/tmp/x.wav", "--script", "/dev/null"])
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("--device and --record are for the local sound; add --monitor"), r.stderr)
    }

    /// `--record`'s name is checked before connecting, as play checks it: a format
    /// bendsynth does not write, standard output or a folder are exit 2 and the instrument
    /// never sees the remote; the message offers nothing remote cannot do ('-').
    func testMonitorRecordingIsCheckedBeforeConnecting() throws {
        let server = try PeerSession(configuration: .init(displayName: "monitor-record-test", role: .server))
        let joined = Mutex(0)
        server.onStateChange = { _ in joined.withLock { $0 += 1 } }
        defer { server.stop() }
        let bound = try server.listen(on: "127.0.0.1:0")
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let script = dir.appendingPathComponent("touch.jsonl").path
        try #"{"t": 0.0, "type": "down", "id": 1, "x": 0.5, "y": 1}"# .write(toFile: script, atomically: true, encoding: .utf8)
        let mp3 = dir.appendingPathComponent("take.mp3").path
        for (record, expected) in [
            (mp3, "remote: --record: cannot tell the format of '\(mp3)' from its extension '.mp3'; expected .wav, .flac, .ogg, .aiff, .aif or .caf\n"),
            ("-", "remote: --record: the local sound is recorded to a file, not to standard output; name one (take.wav, take.flac…)\n"),
            (dir.path, "remote: --record '\(dir.path)' is a folder; expected a file name\n"),
        ] {
            let r = try BinaryRunner.run(["remote", bound, "--monitor", "--script", script, "-d", "bendsynth_no_such_pcm", "--record", record])
            XCTAssertEqual(r.status, 2, r.stderr)
            XCTAssertTrue(r.stderr.hasPrefix("bendsynth: " + expected), r.stderr)
            XCTAssertFalse(r.stderr.contains("standard output)"), r.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: mp3))
        }
        XCTAssertEqual(joined.withLock { $0 }, 0, "the instrument saw the remote")
    }
}
