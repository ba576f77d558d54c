import BendPeers
import BendTestSupport
import Foundation
import Glibc
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
        // x = 0.75 → ratio 1.5 → 660 Hz from the 440 Hz default tone; held 1 s.
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
        XCTAssertEqual(f, 660, accuracy: 660 * 0.005)
        print("remote --monitor: local \(String(format: "%.1f", f)) Hz for \(String(format: "%.2f", held)) s")
    }

    func testLocalSoundOptionsNeedMonitor() throws {
        let r = try BinaryRunner.run(["remote", "127.0.0.1:1", "--record", "/tmp/x.wav", "--script", "/dev/null"])
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("--device and --record are for the local sound; add --monitor"), r.stderr)
    }
}
