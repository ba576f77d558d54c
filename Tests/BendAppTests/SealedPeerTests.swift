// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Glibc
import XCTest

/// `play --listen` and `remote` with protocol version 2: the key on loopback, the last
/// state before BYE, the messages when a link ends, IPv6.
final class SealedPeerTests: XCTestCase {
    typealias Instrument = PeerEndToEndTests.Instrument

    private func write(_ text: String, _ path: String) throws { try text.write(toFile: path, atomically: true, encoding: .utf8) }

    /// `remote --script` 20 times; each script ends with a tilt sent in the same moment
    /// as the end of the session. The instrument records every tilt it got.
    func testTheLastTiltOfRemoteScriptArrivesIn20Of20Runs() throws {
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let touches = dir.appendingPathComponent("touches.jsonl").path
        let instrument = try Instrument(dir: dir, listen: { String($0) }, extra: ["--record-touches", touches])
        XCTAssertTrue(instrument.waitFor("listening for peers"), instrument.stderr)
        let runs = 20
        for run in 1...runs {
            let script = dir.appendingPathComponent("run\(run).jsonl").path
            try write("""
            {"t": 0.0, "type": "down", "id": 1, "x": 0.5, "y": 1}
            {"t": 0.0, "type": "tilt", "value": 0.9}
            {"t": 0.02, "type": "tilt", "value": 0.8}
            {"t": 0.04, "type": "up", "id": 1}
            {"t": 0.04, "type": "tilt", "value": -0.\(String(format: "%02d", run))}

            """, script)
            let r = try BinaryRunner.run(["remote", String(instrument.port), "--script", script, "--name", "run\(run)"])
            XCTAssertEqual(r.status, 0, r.stderr)
        }
        XCTAssertTrue(Poll.until(10) { instrument.stderr.components(separatedBy: " left: ").count - 1 >= runs }, instrument.stderr)
        XCTAssertEqual(instrument.stop(), 0, instrument.stderr)
        let tilts = try String(contentsOfFile: touches, encoding: .utf8).split(separator: "\n").compactMap { line -> Double? in
            guard line.contains("\"tilt\""), let r = line.range(of: "\"value\": ") else { return nil }
            return Double(line[r.upperBound...].prefix { "-0123456789.e".contains($0) })
        }
        let arrived = (1...runs).filter { run in tilts.contains { abs($0 + Double(run) / 100) < 1e-6 } }
        XCTAssertEqual(arrived.count, runs, "last tilts that arrived: \(arrived)")
        print("last tilt of remote --script: arrived in \(arrived.count) of \(runs) runs")
    }

    func testAKeyFileOnLoopbackIsDemandedBothWaysAndWrongKeysAreLoggedOnce() throws {
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let key = dir.appendingPathComponent("key").path, wrong = dir.appendingPathComponent("wrong").path
        try write(String(repeating: "5a", count: 32) + "\n", key)
        try write(String(repeating: "a5", count: 32) + "\n", wrong)
        let tap = dir.appendingPathComponent("tap.jsonl").path
        try write("{\"t\": 0.0, \"type\": \"down\", \"id\": 1, \"x\": 0.5, \"y\": 1}\n{\"t\": 0.1, \"type\": \"up\", \"id\": 1}\n", tap)
        let keyed = try Instrument(dir: dir, listen: { "127.0.0.1:\($0)" }, extra: ["--key-file", key])
        defer { _ = keyed.stop() }
        XCTAssertTrue(keyed.waitFor("listening for peers on 127.0.0.1:\(keyed.port) (shared key required)"), keyed.stderr)
        let target = "127.0.0.1:\(keyed.port)"
        let none = try BinaryRunner.run(["remote", target, "--script", tap])
        XCTAssertEqual(none.status, 1)
        XCTAssertTrue(none.stderr.contains("declined: authentication failed (this instrument needs the shared key (--key-file))"), none.stderr)
        for _ in 0..<3 {
            let r = try BinaryRunner.run(["remote", target, "--script", tap, "--key-file", wrong])
            XCTAssertEqual(r.status, 1)
            XCTAssertTrue(r.stderr.contains("declined: authentication failed (wrong key)"), r.stderr)
        }
        let right = try BinaryRunner.run(["remote", target, "--script", tap, "--key-file", key])
        XCTAssertEqual(right.status, 0, right.stderr)
        // Four refusals within 10 s: one line, for the first.
        let declined = keyed.stderr.split(separator: "\n").filter { $0.contains("declined 127.0.0.1:") }
        XCTAssertEqual(declined.count, 1, keyed.stderr)
        XCTAssertTrue(declined.first?.hasSuffix(": this instrument needs the shared key (--key-file)") == true, keyed.stderr)

        // The other way: a remote with a key does not play an instrument that cannot prove it.
        let openDir = dir.appendingPathComponent("open")
        try FileManager.default.createDirectory(at: openDir, withIntermediateDirectories: true)
        let open = try Instrument(dir: openDir, listen: { "127.0.0.1:\($0)" })
        defer { _ = open.stop() }
        XCTAssertTrue(open.waitFor("(loopback only)"), open.stderr)
        let refused = try BinaryRunner.run(["remote", "127.0.0.1:\(open.port)", "--script", tap, "--key-file", key])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.stderr.contains("the instrument asks for no shared key, so it cannot prove it holds yours (--key-file)"), refused.stderr)
        XCTAssertFalse(open.stderr.contains("connected"), open.stderr)
        // The player of the open instrument is told someone tried, and why it did not play.
        XCTAssertTrue(open.waitFor("it refused to play: it holds a shared key and this instrument asks for none"), open.stderr)
    }

    /// SIGSTOP the remote past the heartbeat timeout: the instrument drops it; when it
    /// runs again it says it was dropped, not that the instrument left (`--retry-for 0`:
    /// it leaves with that line instead of connecting again).
    func testAFrozenRemoteIsToldItWasDroppedNotThatTheInstrumentLeft() throws {
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let hold = dir.appendingPathComponent("hold.jsonl").path
        try write("{\"t\": 0.0, \"type\": \"down\", \"id\": 1, \"x\": 0.5, \"y\": 1}\n{\"t\": 60.0, \"type\": \"up\", \"id\": 1}\n", hold)
        let instrument = try Instrument(dir: dir, listen: { String($0) })
        defer { _ = instrument.stop() }
        XCTAssertTrue(instrument.waitFor("listening for peers"), instrument.stderr)
        let log = dir.appendingPathComponent("remote.err").path
        FileManager.default.createFile(atPath: log, contents: nil)
        let remote = Process()
        remote.executableURL = BinaryRunner.executable
        remote.arguments = ["remote", String(instrument.port), "--script", hold, "--name", "sleeper", "--retry-for", "0"]   // leave at once, not reconnect
        remote.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        remote.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        remote.standardError = FileHandle(forWritingAtPath: log)
        try remote.run()
        defer { if remote.isRunning { kill(remote.processIdentifier, SIGKILL) }; remote.waitUntilExit() }
        XCTAssertTrue(instrument.waitFor("'sleeper' (127.0.0.1:"), instrument.stderr)
        kill(remote.processIdentifier, SIGSTOP)
        XCTAssertTrue(instrument.waitFor("'sleeper' (127.0.0.1:", seconds: 1) && instrument.waitFor("left: no heartbeat", seconds: 5), instrument.stderr)
        kill(remote.processIdentifier, SIGCONT)
        XCTAssertTrue(Poll.until(10) { !remote.isRunning })
        remote.waitUntilExit()
        let said = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        XCTAssertEqual(remote.terminationStatus, 1, said)
        XCTAssertTrue(said.contains("remote: the instrument heard nothing from this remote and dropped it (nothing heard for 1.0 s); was this program stopped, or the machine asleep?"), said)
        XCTAssertFalse(said.contains("the instrument left"), said)
    }

    func testListeningOnIPv6LoopbackPlaysAndConnectedToNamesTheAddress() throws {
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let touches = dir.appendingPathComponent("touches.jsonl").path
        let instrument = try Instrument(dir: dir, listen: { "[::1]:\($0)" }, extra: ["--record-touches", touches])
        defer { _ = instrument.stop() }
        XCTAssertTrue(instrument.waitFor("listening for peers on [::1]:\(instrument.port) (loopback only)"), instrument.stderr)
        let script = dir.appendingPathComponent("s.jsonl").path
        try write("{\"t\": 0.0, \"type\": \"down\", \"id\": 1, \"x\": 0.5, \"y\": 1}\n{\"t\": 0.05, \"type\": \"move\", \"id\": 1, \"x\": 0.25, \"y\": 1}\n{\"t\": 0.1, \"type\": \"up\", \"id\": 1}\n", script)
        let r = try BinaryRunner.run(["remote", "[::1]:\(instrument.port)", "--script", script, "--name", "six"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("connected to 'bendsynth on "), r.stderr)
        XCTAssertTrue(r.stderr.contains("([::1]:\(instrument.port))"), r.stderr)
        XCTAssertTrue(instrument.waitFor("'six' ([::1]:"), instrument.stderr)
        XCTAssertTrue(instrument.waitFor("left: normal"), instrument.stderr)
        XCTAssertEqual(instrument.stop(), 0, instrument.stderr)
        let recorded = try String(contentsOfFile: touches, encoding: .utf8)
        XCTAssertTrue(recorded.contains("\"x\": 0.25"), recorded)   // the move came (as a datagram, or before the BYE)
    }

    /// `remote PORT` names the host it reached, not ":PORT".
    func testConnectedToNamesTheHostForABarePort() throws {
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let instrument = try Instrument(dir: dir, listen: { String($0) })
        defer { _ = instrument.stop() }
        XCTAssertTrue(instrument.waitFor("listening for peers"), instrument.stderr)
        let script = dir.appendingPathComponent("s.jsonl").path
        try write("{\"t\": 0.0, \"type\": \"tilt\", \"value\": 0.5}\n", script)
        let r = try BinaryRunner.run(["remote", String(instrument.port), "--script", script])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("(127.0.0.1:\(instrument.port))"), r.stderr)
    }
}
