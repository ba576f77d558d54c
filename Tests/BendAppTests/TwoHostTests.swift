// SPDX-License-Identifier: GPL-3.0-or-later
import BendTestSupport
import Foundation
import Glibc
import XCTest

/// "Another machine": two network namespaces joined by a veth pair. The instrument
/// listens on its non-loopback address with a shared key; `bendsynth remote` runs in the
/// other namespace inside tmux and is played with SGR mouse reports. Needs root and
/// iproute2 (`ip netns`); skipped otherwise.
final class TwoHostTests: XCTestCase {
    let tag = getpid() % 100_000
    var nsInstrument: String { "bsi\(tag)" }
    var nsRemote: String { "bsr\(tag)" }
    var vethInstrument: String { "bvi\(tag)" }
    var vethRemote: String { "bvr\(tag)" }
    /// A /24 of 10.0.0.0/8 per test process.
    var base: String { "10.\(77 + Int(tag % 100)).\(Int(tag / 100) % 250)" }
    var instrumentIP: String { base + ".1" }
    let tmux = Tmux("bendsynth-twohost")

    func spawn(_ args: [String]) throws -> (Int32, String) { try BinaryRunner.spawn(args) }

    func ip(_ args: String) throws {
        let (rc, _) = try spawn(["ip"] + args.split(separator: " ").map(String.init))
        if rc != 0 { throw XCTSkip("'ip \(args)' failed (\(rc)): network namespaces unavailable") }
    }

    override func setUpWithError() throws {
        guard getuid() == 0 else { throw XCTSkip("needs root for ip netns") }
        guard FileManager.default.isExecutableFile(atPath: "/usr/sbin/ip") || FileManager.default.isExecutableFile(atPath: "/sbin/ip") else {
            throw XCTSkip("iproute2 (ip) is not installed")
        }
        guard Tmux.installed else { throw XCTSkip("tmux is not installed") }
        try ip("netns add \(nsInstrument)")
        try ip("netns add \(nsRemote)")
        try ip("link add \(vethInstrument) type veth peer name \(vethRemote)")
        try ip("link set \(vethInstrument) netns \(nsInstrument)")
        try ip("link set \(vethRemote) netns \(nsRemote)")
        try ip("-n \(nsInstrument) addr add \(base).1/24 dev \(vethInstrument)")
        try ip("-n \(nsRemote) addr add \(base).2/24 dev \(vethRemote)")
        for (ns, dev) in [(nsInstrument, vethInstrument), (nsRemote, vethRemote)] {
            try ip("-n \(ns) link set \(dev) up")
            try ip("-n \(ns) link set lo up")
        }
    }

    override func tearDown() {
        try? tmux(["kill-server"])
        _ = try? spawn(["ip", "netns", "del", nsInstrument])
        _ = try? spawn(["ip", "netns", "del", nsRemote])
    }

    func startInstrument(_ dir: URL, key: String) throws -> (Process, String, String) {
        let log = dir.appendingPathComponent("play.err").path, wav = dir.appendingPathComponent("take.wav").path
        FileManager.default.createFile(atPath: log, contents: nil)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        p.arguments = ["netns", "exec", nsInstrument, BinaryRunner.executable.path, "play", "--no-terminal",
                       "--listen", "\(instrumentIP):47810", "--key-file", key, "-d", "bendsynth_no_such_pcm", "--record", wav,
                       "--pitch-map", "linear", "--round", "off"]  // the seed's map: the expected pitch below is 2·x
        p.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        p.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        p.standardError = FileHandle(forWritingAtPath: log)
        try p.run()
        try waitUntil("the instrument to listen") { ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains("listening for peers") }
        return (p, log, wav)
    }

    func left(_ path: String) throws -> [Float] {
        Measure.channel(try WAVReader.read(path).samples, 0)
    }

    func testRemoteInTmuxOnAnotherHostPlaysTheInstrumentAndAWrongKeyIsDeclined() throws {
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let key = dir.appendingPathComponent("key").path, wrong = dir.appendingPathComponent("wrong").path
        try (String(repeating: "5a", count: 32) + "\n").write(toFile: key, atomically: true, encoding: .utf8)
        try (String(repeating: "a5", count: 32) + "\n").write(toFile: wrong, atomically: true, encoding: .utf8)
        let (instrument, log, wav) = try startInstrument(dir, key: key)
        defer { if instrument.isRunning { kill(instrument.processIdentifier, SIGTERM) }; instrument.waitUntilExit() }
        var stderr: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

        // A wrong key from the other host is declined with the reason.
        let tap = dir.appendingPathComponent("tap.jsonl").path
        try "{\"t\": 0.0, \"type\": \"down\", \"id\": 1, \"x\": 0.5, \"y\": 1}\n".write(toFile: tap, atomically: true, encoding: .utf8)
        let errPath = dir.appendingPathComponent("wrong.err").path
        let (rc, _) = try spawn(["sh", "-c", "ip netns exec \(nsRemote) \(BinaryRunner.executable.path) remote \(instrumentIP) --script \(tap) --key-file \(wrong) 2>\(errPath)"])
        XCTAssertEqual(rc, 1)
        XCTAssertTrue(((try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "").contains("declined: authentication failed (wrong key)"))

        // The remote pad in tmux on the other host.
        let (columns, rows) = (100, 30)
        let command = "ip netns exec \(nsRemote) \(BinaryRunner.executable.path) remote \(instrumentIP):47810 --key-file \(key) --name far-away 2>\(dir.path)/remote.err"
        try tmux(["new-session", "-d", "-s", "remote", "-x", "\(columns)", "-y", "\(rows)", command])
        try waitUntil("the remote pad") { try tmux.screen("remote").contains("connected, RTT") }
        XCTAssertTrue(stderr.contains("'far-away' (\(base).2:"), stderr)
        let pad = TerminalScreenLayout.geometry(columns: columns, rows: rows)
        let cell = pad.cell(x: 0.75, y: 1)
        let expected = 440 * 2 * pad.point(column: cell.column, row: pad.top).x
        try tmux(["send-keys", "-t", "remote", "-l", "\u{1B}[<0;\(cell.column);\(cell.row)M"])
        try waitUntil("a remote voice") { try tmux.screen("remote").contains("voices 1") }
        usleep(1_000_000)
        try tmux(["send-keys", "-t", "remote", "-l", "\u{1B}[<0;\(cell.column);\(cell.row)m"])
        try waitUntil("the release") { try tmux.screen("remote").contains("voices 0") }
        // "/" opens a text line; Enter sends it; the instrument shows it with the name.
        try tmux(["send-keys", "-t", "remote", "-l", "/hello from afar"])
        try waitUntil("the text line") { try tmux.screen("remote").contains("message: hello from afar_") }
        try tmux(["send-keys", "-t", "remote", "Enter"])
        try waitUntil("the message at the instrument") { stderr.contains("message from far-away: hello from afar") }
        try tmux(["send-keys", "-t", "remote", "q"])
        try waitUntil("the remote to leave") { stderr.contains("'far-away'") && stderr.contains("left:") }
        usleep(300_000)
        kill(instrument.processIdentifier, SIGTERM)
        instrument.waitUntilExit()
        XCTAssertEqual(instrument.terminationStatus, 0, stderr)

        let l = try left(wav)
        let first = try XCTUnwrap(l.firstIndex { $0 != 0 })
        let f = Measure.peakFrequency(Array(l[(first + 2_400)..<(first + 30_000)]), rate: 48_000)
        XCTAssertEqual(f, expected, accuracy: expected * 0.005)
        print("two hosts: remote touch at column \(cell.column) → \(String(format: "%.1f", f)) Hz (expected \(String(format: "%.1f", expected)))")
    }

    func testPulledLinkEndsTheRemoteVoiceAfterTheHeartbeatTimeout() throws {
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let key = dir.appendingPathComponent("key").path
        try (String(repeating: "5a", count: 32) + "\n").write(toFile: key, atomically: true, encoding: .utf8)
        let (instrument, log, wav) = try startInstrument(dir, key: key)
        defer { if instrument.isRunning { kill(instrument.processIdentifier, SIGTERM) }; instrument.waitUntilExit() }
        var stderr: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }
        let hold = dir.appendingPathComponent("hold.jsonl").path
        try "{\"t\": 0.0, \"type\": \"down\", \"id\": 1, \"x\": 0.5, \"y\": 1}\n{\"t\": 60.0, \"type\": \"up\", \"id\": 1}\n"
            .write(toFile: hold, atomically: true, encoding: .utf8)
        let remote = Process()
        remote.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        remote.arguments = ["netns", "exec", nsRemote, BinaryRunner.executable.path, "remote", instrumentIP, "--script", hold, "--key-file", key, "--name", "cable"]
        remote.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        remote.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        remote.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try remote.run()
        defer { if remote.isRunning { kill(remote.processIdentifier, SIGKILL) }; remote.waitUntilExit() }
        try waitUntil("the remote") { stderr.contains("'cable'") }
        usleep(500_000)
        let pulled = Date()
        try ip("-n \(nsRemote) link set \(vethRemote) down")
        try waitUntil("the heartbeat timeout", seconds: 5) { stderr.contains("left: no heartbeat") }
        print("pulled link: peer dropped after \(String(format: "%.2f", Date().timeIntervalSince(pulled))) s")
        usleep(500_000)
        kill(instrument.processIdentifier, SIGTERM)
        instrument.waitUntilExit()
        let l = try left(wav)
        let last = try XCTUnwrap(l.lastIndex { $0 != 0 })
        XCTAssertGreaterThan(l.count - last, 12_000, "silence at the end: the voice was released")
    }
}
