// SPDX-License-Identifier: GPL-3.0-or-later
import BendPeers
import BendTestSupport
import Dispatch
import Foundation
import Glibc
import Synchronization
import XCTest

/// `remote` after its link drops: it connects again with backoff (a new socket each
/// time, no descriptor left behind), its held touches start again on the instrument,
/// and it gives up after `--retry-for` with one line.
final class RemoteReconnectTests: XCTestCase {
    /// A `remote --script` running in the background, stderr to a file.
    final class Remote {
        let process = Process()
        let log: String

        init(dir: URL, _ arguments: [String]) throws {
            log = dir.appendingPathComponent("remote.err").path
            FileManager.default.createFile(atPath: log, contents: nil)
            process.executableURL = BinaryRunner.executable
            process.arguments = ["remote"] + arguments
            process.standardInput = FileHandle(forReadingAtPath: "/dev/null")
            process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
            process.standardError = FileHandle(forWritingAtPath: log)
            try process.run()
        }

        var stderr: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

        /// Waits up to `seconds` for the exit; its status, nil when still running.
        func exit(within seconds: Double) -> Int32? {
            guard Poll.until(seconds, { !process.isRunning }) else { return nil }
            process.waitUntilExit()
            return process.terminationStatus
        }

        deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() } }
    }

    func subdirectory(_ dir: URL, _ name: String) throws -> URL {
        let d = dir.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        return d
    }

    /// The instrument stops (its listener with it) and a new one starts on the same
    /// port 2 s later: the remote reconnects; the touch it still holds starts again
    /// there (660 Hz, x = 0.75) and a new touch plays after it (440 Hz, x = 0.5) — both
    /// measured in the second instrument's recording, which only the reconnection can fill.
    /// (The attempts come 0.25, 0.75, 1.75, 3.75 and 7.75 s after the drop: the touch is
    /// held 12 s so that even the fifth finds it down.)
    func testRemoteReconnectsToARestartedInstrumentWhereItsHeldTouchAndANewOnePlay() throws {
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let script = dir.appendingPathComponent("touches.jsonl").path
        try """
        {"t": 0.0, "type": "down", "id": 1, "x": 0.75, "y": 1}
        {"t": 12.0, "type": "up", "id": 1}
        {"t": 12.5, "type": "down", "id": 2, "x": 0.5, "y": 1}
        {"t": 13.5, "type": "up", "id": 2}
        """.write(toFile: script, atomically: true, encoding: .utf8)
        let first = try PeerEndToEndTests.Instrument(dir: try subdirectory(dir, "first"), listen: { String($0) })
        XCTAssertTrue(first.waitFor("listening for peers"), first.stderr)
        let remote = try Remote(dir: dir, ["127.0.0.1:\(first.port)", "--script", script, "--name", "tester", "--retry-for", "20"])
        XCTAssertTrue(first.waitFor("'tester' (127.0.0.1:"), first.stderr)
        usleep(500_000)   // the touch sounds on the first instrument for a while
        XCTAssertEqual(first.stop(), 0, first.stderr)
        usleep(2_000_000)  // the scenario: no instrument for 2 s
        let second = try PeerEndToEndTests.Instrument(dir: try subdirectory(dir, "second"), listen: { String($0) }, port: first.port)
        defer { _ = second.stop() }
        XCTAssertTrue(second.waitFor("'tester' (127.0.0.1:"), "reconnected: \(second.stderr)\n\(remote.stderr)")
        XCTAssertEqual(remote.exit(within: 20), 0, remote.stderr)
        XCTAssertTrue(remote.stderr.contains("reconnecting for up to 20 s"), remote.stderr)
        XCTAssertTrue(remote.stderr.contains("; 1 held touch started again"), remote.stderr)
        XCTAssertTrue(second.waitFor("left: normal"), second.stderr)
        XCTAssertEqual(second.stop(), 0, second.stderr)

        let left = Measure.channel(try WAVReader.read(second.wav).samples, 0)
        let start = try XCTUnwrap(left.firstIndex { $0 != 0 }, "the second instrument sounded")
        let end = try XCTUnwrap(left.lastIndex { $0 != 0 })
        guard end - start > 48_000 else {
            return XCTFail("the second instrument sounded \(Double(end - start) / 48_000) s from \(Double(start) / 48_000) s; remote: \(remote.stderr)\nsecond: \(second.stderr)")
        }
        let held = Measure.peakFrequency(Array(left[(start + 2_400)..<(start + 14_400)]), rate: 48_000)
        XCTAssertEqual(held, 660, accuracy: 660 * 0.005, "the held touch started again at its position")
        let new = Measure.peakFrequency(Array(left[(end - 40_000)..<(end - 4_000)]), rate: 48_000)
        XCTAssertEqual(new, 440, accuracy: 440 * 0.005, "a new touch after the reconnection")
        let line = remote.stderr.split(separator: "\n").first { $0.contains("reconnected to") } ?? ""
        print("reconnect: \(line); second instrument: held touch \(String(format: "%.1f", held)) Hz, new touch \(String(format: "%.1f", new)) Hz")
    }

    /// Nobody listens after the drop: the remote gives up once `--retry-for` (2 s) has
    /// passed — not at once, not after the default 60 s — with exit 1 and one line.
    func testWithNobodyListeningTheRemoteGivesUpAfterRetryFor() throws {
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let script = dir.appendingPathComponent("hold.jsonl").path
        try """
        {"t": 0.0, "type": "down", "id": 1, "x": 0.5, "y": 1}
        {"t": 60.0, "type": "up", "id": 1}
        """.write(toFile: script, atomically: true, encoding: .utf8)
        let instrument = try PeerEndToEndTests.Instrument(dir: dir, listen: { String($0) })
        XCTAssertTrue(instrument.waitFor("listening for peers"), instrument.stderr)
        let remote = try Remote(dir: dir, ["127.0.0.1:\(instrument.port)", "--script", script, "--name", "quitter", "--retry-for", "2"])
        XCTAssertTrue(instrument.waitFor("'quitter' (127.0.0.1:"), instrument.stderr)
        kill(instrument.process.processIdentifier, SIGTERM)   // its BYE drops the link
        XCTAssertTrue(Poll.until(10) { remote.stderr.contains("reconnecting for up to 2 s") }, remote.stderr)
        let dropped = Date()
        XCTAssertEqual(remote.exit(within: 15), 1, remote.stderr)
        let waited = Date().timeIntervalSince(dropped)
        XCTAssertEqual(instrument.stop(), 0, instrument.stderr)
        XCTAssertGreaterThan(waited, 1.8, "kept trying for --retry-for: \(remote.stderr)")
        XCTAssertLessThan(waited, 5, "gave up after --retry-for, not the default 60 s")
        let gaveUp = remote.stderr.split(separator: "\n").filter { $0.contains("gave up") }
        XCTAssertEqual(gaveUp.count, 1, remote.stderr)
        XCTAssertTrue(gaveUp.first?.hasPrefix("bendsynth: remote: gave up reconnecting to 127.0.0.1:\(instrument.port) after 2 s (4 attempts; the last: connect(127.0.0.1:\(instrument.port)): ") ?? false,
                      remote.stderr)
        print("gave up \(String(format: "%.2f", waited)) s after the drop: \(gaveUp.first ?? "")")
    }

    /// The link's own loop, in this process with a fast backoff: the open descriptors
    /// (/proc/self/fd) are the same after each of 20 failed attempts (one socket per
    /// attempt, closed when it fails), and the pad's line says it is reconnecting.
    func testDescriptorsStayConstantAcrossTwentyFailedAttempts() throws {
        let server = try PeerSession(configuration: .init(displayName: "fd-test", role: .server))
        let bound = try server.listen(on: "127.0.0.1:0")
        let client = try PeerSession(configuration: .init(displayName: "fd-client", role: .client))
        defer { client.stop() }
        let link = RemoteLink(session: client, target: bound, timeout: 1, retryFor: 3600, backoff: .init(first: 0.005, most: 0.02))
        let counts = Mutex<[Int]>([])
        let twenty = DispatchSemaphore(value: 0)
        let lines = Mutex<[String]>([])
        link.onAttemptFailed = { n in
            counts.withLock { $0.append(Self.openDescriptors()) }
            if n == 3 { lines.withLock { $0.append(link.status().line) } }
            if n == 20 { twenty.signal() }
        }
        _ = try link.connect()
        server.stop()
        XCTAssertEqual(twenty.wait(timeout: .now() + 30), .success, "20 attempts")
        link.stop()
        let seen = counts.withLock { Array($0.prefix(20)) }
        XCTAssertEqual(seen.count, 20)
        XCTAssertEqual(Set(seen).count, 1, "open descriptors after each failed attempt: \(seen)")
        XCTAssertTrue(lines.withLock { $0.first ?? "" }.hasPrefix("fd-test: reconnecting ("), lines.withLock { $0 }.description)
        print("descriptors after 20 failed attempts: \(seen.first ?? 0) each time")
    }

    static func openDescriptors() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
    }
}
