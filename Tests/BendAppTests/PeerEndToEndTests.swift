// SPDX-License-Identifier: GPL-3.0-or-later
import BendTestSupport
import Foundation
import Glibc
import XCTest

/// `play --listen` and `remote` as two processes on this machine.
final class PeerEndToEndTests: XCTestCase {
    /// A `bendsynth play` running in the background, stderr to a file.
    final class Instrument {
        let process = Process()
        let log: String
        let wav: String
        let port: UInt16

        /// - Parameter port: the port to listen on (a restarted instrument: the same
        ///   again); nil: a free one.
        init(dir: URL, listen: (UInt16) -> String, port: UInt16? = nil, extra: [String] = [], environment: [String: String] = [:]) throws {
            self.port = port ?? PeerEndToEndTests.freePort()
            log = dir.appendingPathComponent("play.err").path
            wav = dir.appendingPathComponent("take.wav").path
            FileManager.default.createFile(atPath: log, contents: nil)
            process.executableURL = BinaryRunner.executable
            // The seed's linear map, unrounded: the peer tests' pitches are 2·x.
            process.arguments = ["play", "--no-terminal", "--listen", listen(self.port), "-d", "bendsynth_no_such_pcm", "--record", wav,
                                 "--pitch-map", "linear", "--round", "off"] + extra
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            process.standardInput = FileHandle(forReadingAtPath: "/dev/null")
            process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
            process.standardError = FileHandle(forWritingAtPath: log)
            try process.run()
        }

        var stderr: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

        func waitFor(_ text: String, seconds: Double = 15) -> Bool {
            Poll.until(seconds) { stderr.contains(text) }
        }

        func stop() -> Int32 {
            if process.isRunning { kill(process.processIdentifier, SIGTERM) }
            process.waitUntilExit()
            return process.terminationStatus
        }
    }

    static func freePort() -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var sa = sockaddr_in()
        sa.sin_family = sa_family_t(AF_INET)
        sa.sin_addr.s_addr = inet_addr("127.0.0.1")
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &sa) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) } }
        _ = withUnsafeMutablePointer(to: &sa) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        return UInt16(bigEndian: sa.sin_port)
    }

    func leftChannel(_ path: String) throws -> [Float] {
        Measure.channel(try WAVReader.read(path).samples, 0)
    }

    func testRemoteScriptPlaysTheInstrumentAtThePitchAskedAndTheTextIsShown() throws {
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let script = dir.appendingPathComponent("touch.jsonl").path
        // x = 0.75 → ratio 1.5 → 660 Hz from the 440 Hz tone; held 1.5 s.
        try """
        {"t": 0.0, "type": "down", "id": 7, "x": 0.75, "y": 1}
        {"t": 0.5, "type": "move", "id": 7, "x": 0.75, "y": 1}
        {"t": 1.5, "type": "up", "id": 7}
        """.write(toFile: script, atomically: true, encoding: .utf8)
        let instrument = try Instrument(dir: dir, listen: { String($0) })
        XCTAssertTrue(instrument.waitFor("listening for peers on 127.0.0.1:\(instrument.port) (loopback only)"), instrument.stderr)
        let r = try BinaryRunner.run(["remote", "127.0.0.1:\(instrument.port)", "--script", script, "--name", "tester", "--text", "hello there"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("connected to 'bendsynth on"), r.stderr)
        XCTAssertTrue(instrument.waitFor("'tester' (127.0.0.1:"), instrument.stderr)
        XCTAssertTrue(instrument.waitFor("left: normal"), instrument.stderr)
        usleep(300_000)
        XCTAssertEqual(instrument.stop(), 0, instrument.stderr)
        XCTAssertTrue(instrument.stderr.contains("message from tester: hello there"), instrument.stderr)

        let left = try leftChannel(instrument.wav)
        let first = try XCTUnwrap(left.firstIndex { $0 != 0 })
        let last = try XCTUnwrap(left.lastIndex { $0 != 0 })
        let held = Double(last - first) / 48_000
        XCTAssertEqual(held, 1.5, accuracy: 0.1, "sounded while the remote touch was down")
        let f = Measure.peakFrequency(Array(left[(first + 2_400)..<(first + 40_000)]), rate: 48_000)
        XCTAssertEqual(f, 660, accuracy: 660 * 0.005)
        print("remote touch: \(String(format: "%.1f", f)) Hz for \(String(format: "%.2f", held)) s")
    }

    func testKilledControllerMidTouchFallsSilent() throws {
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let script = dir.appendingPathComponent("long.jsonl").path
        try """
        {"t": 0.0, "type": "down", "id": 1, "x": 0.5, "y": 1}
        {"t": 60.0, "type": "up", "id": 1}
        """.write(toFile: script, atomically: true, encoding: .utf8)
        let instrument = try Instrument(dir: dir, listen: { String($0) })
        XCTAssertTrue(instrument.waitFor("listening for peers"), instrument.stderr)
        let remote = Process()
        remote.executableURL = BinaryRunner.executable
        remote.arguments = ["remote", "127.0.0.1:\(instrument.port)", "--script", script, "--name", "doomed"]
        remote.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        remote.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        remote.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try remote.run()
        XCTAssertTrue(instrument.waitFor("'doomed' (127.0.0.1:"), instrument.stderr)
        usleep(500_000)  // let the voice sound for a while
        kill(remote.processIdentifier, SIGKILL)
        remote.waitUntilExit()
        XCTAssertTrue(instrument.waitFor("left: connection lost"), instrument.stderr)
        usleep(500_000)
        XCTAssertEqual(instrument.stop(), 0, instrument.stderr)
        let left = try leftChannel(instrument.wav)
        let first = try XCTUnwrap(left.firstIndex { $0 != 0 })
        let last = try XCTUnwrap(left.lastIndex { $0 != 0 })
        XCTAssertGreaterThan(left.count - last, 12_000, "at least 0.25 s of silence at the end: no stuck voice")
        print("killed controller: sounded \(String(format: "%.2f", Double(last - first) / 48_000)) s, then silence")
    }

    func testOffLoopbackListenerMakesAKeyOnceAndDeclinesAWrongKey() throws {
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("config").path
        let instrument = try Instrument(dir: dir, listen: { "0.0.0.0:\($0)" }, environment: ["XDG_CONFIG_HOME": config])
        defer { _ = instrument.stop() }
        XCTAssertTrue(instrument.waitFor("(shared key required)"), instrument.stderr)
        let keyPath = config + "/bendsynth/key"
        let key = try String(contentsOfFile: keyPath, encoding: .utf8)
        XCTAssertTrue(instrument.stderr.contains("made a shared key in '\(keyPath)'"), instrument.stderr)
        XCTAssertTrue(instrument.stderr.contains(key.trimmingCharacters(in: .whitespacesAndNewlines)), "printed once")
        let script = dir.appendingPathComponent("tap.jsonl").path
        try "{\"t\": 0.0, \"type\": \"down\", \"id\": 1, \"x\": 0.5, \"y\": 1}\n{\"t\": 0.1, \"type\": \"up\", \"id\": 1}\n"
            .write(toFile: script, atomically: true, encoding: .utf8)

        let none = try BinaryRunner.run(["remote", "127.0.0.1:\(instrument.port)", "--script", script])
        XCTAssertEqual(none.status, 1)
        XCTAssertTrue(none.stderr.contains("declined: authentication failed (this instrument needs the shared key (--key-file))"), none.stderr)
        let wrongPath = dir.appendingPathComponent("wrong.key").path
        try (String(repeating: "ab", count: 32) + "\n").write(toFile: wrongPath, atomically: true, encoding: .utf8)
        let wrong = try BinaryRunner.run(["remote", "127.0.0.1:\(instrument.port)", "--script", script, "--key-file", wrongPath])
        XCTAssertEqual(wrong.status, 1)
        XCTAssertTrue(wrong.stderr.contains("declined: authentication failed (wrong key)"), wrong.stderr)
        let right = try BinaryRunner.run(["remote", "127.0.0.1:\(instrument.port)", "--script", script, "--key-file", keyPath])
        XCTAssertEqual(right.status, 0, right.stderr)
    }
}
