// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Glibc
import XCTest

/// A plain `remote` (its pad, no `--monitor`) stopped by a signal instead of `q`: it
/// ends as `q` ends it (exit 0) and leaves the terminal as it found it (`stty -a`
/// before and after, in the same tmux pane).
final class TmuxRemoteStopTests: XCTestCase {
    let tmux = Tmux("bendsynth-remote-stop-test")

    func testSIGTERMAndSIGHUPGiveTheTerminalBack() throws {
        guard Tmux.installed else { throw XCTSkip("tmux is not installed") }
        for sig in [SIGTERM, SIGHUP] {
            try stopBySignal(sig)
        }
    }

    func stopBySignal(_ sig: Int32) throws {
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let instrument = try PeerEndToEndTests.Instrument(dir: dir, listen: { "127.0.0.1:\($0)" })
        defer { _ = instrument.stop() }
        XCTAssertTrue(instrument.waitFor("listening for peers"), instrument.stderr)
        let (before, after, pid, log) = ["before", "after", "pid", "remote.err"].map { dir.appendingPathComponent($0).path }
            .splat4
        // The inner shell writes its pid and becomes bendsynth (exec), in the foreground
        // of the pane; the outer one reads the terminal's settings around it.
        let remote = "\(BinaryRunner.executable.path) remote 127.0.0.1:\(instrument.port) --name tester"
        try tmux(["new-session", "-d", "-s", "remote", "-x", "100", "-y", "30",
                  "stty -a >\(before); sh -c 'echo $$ >\(pid); exec \(remote)' 2>\(log); echo exit=$? >>\(log); stty -a >\(after); sleep 30"])
        defer { try? tmux(["kill-server"]) }
        try waitUntil("the remote pad") { try tmux.screen("remote").contains("connected, RTT") }
        let raw = try String(contentsOfFile: pid, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let process = try XCTUnwrap(pid_t(raw))
        XCTAssertEqual(kill(process, sig), 0)
        try waitUntil("remote to end") { (try? String(contentsOfFile: after, encoding: .utf8))?.isEmpty == false }
        let said = try String(contentsOfFile: log, encoding: .utf8)
        XCTAssertTrue(said.contains("exit=0"), "signal \(sig): ends as q does: \(said)")
        let was = try String(contentsOfFile: before, encoding: .utf8), now = try String(contentsOfFile: after, encoding: .utf8)
        XCTAssertFalse(was.isEmpty)
        XCTAssertEqual(now, was, "signal \(sig): the terminal as it was found")
        try? tmux(["kill-server"])
    }
}

private extension Array {
    var splat4: (Element, Element, Element, Element) { (self[0], self[1], self[2], self[3]) }
}
