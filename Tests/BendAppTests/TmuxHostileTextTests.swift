// SPDX-License-Identifier: GPL-3.0-or-later
import BendPeers
import Foundation
import Glibc
import XCTest

/// A peer's name and TEXT are anyone's: made of escape sequences (a title change, a
/// colour), they reach the instrument's pad and stderr written out (`\x1b`), never as
/// controls.
final class TmuxHostileTextTests: XCTestCase {
    let tmux = Tmux("bendsynth-hostile-test")
    static let name = "ev\u{1B}]2;PWNED\u{07}\u{1B}[38;5;201mX"
    static let text = "\u{1B}[48;5;201mhi\u{1B}]2;PWNED2\u{07}\u{9B}2J"
    static let shownText = "message from ev\\x1b]2;PWNED\\x07\\x1b[38;5;201mX: \\x1b[48;5;201mhi\\x1b]2;PWNED2\\x07\\u009b2J"

    func testAHostileNameAndTextShowEscapedOnThePad() throws {
        guard Tmux.installed else { throw XCTSkip("tmux is not installed") }
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let log = dir.appendingPathComponent("stderr.txt").path
        let port = PeerEndToEndTests.freePort()
        try tmux.start("play", columns: 140, rows: 24, "\(BinaryRunner.executable.path) play -d null --listen \(port)", log: log)
        defer { try? tmux(["kill-server"]) }
        try waitUntil("the pad") { try tmux.screen("play").contains("voices 0") }
        let title = try tmux(["display-message", "-p", "-t", "play", "#{pane_title}"])

        let client = try PeerSession(configuration: .init(displayName: Self.name, role: .client))
        defer { client.stop() }
        _ = try client.connect(to: "127.0.0.1:\(port)")
        client.send(.text(Self.text))
        try waitUntil("the message") { try tmux.screen("play").contains("hi") }
        let styled = try tmux(["capture-pane", "-e", "-p", "-t", "play"])
        XCTAssertFalse(styled.contains("\u{1B}[38;5;201m") || styled.contains("\u{1B}[48;5;201m"), "no colour from the peer: \(styled.debugDescription)")
        let after = try tmux(["display-message", "-p", "-t", "play", "#{pane_title}"])
        XCTAssertEqual(after, title, "the pane's title is unchanged")
        XCTAssertFalse(after.contains("PWNED"), after)
        let screen = try tmux.screen("play")
        XCTAssertTrue(screen.contains(Self.shownText), "written out: \(screen)")
        client.stop()
        let said = try quit(tmux, "play", log: log)
        XCTAssertTrue(said.contains("exit=0"), said)
    }

    /// Without the pad the same lines go to stderr: written out, no ESC byte.
    func testAHostileNameAndTextShowEscapedOnStderr() throws {
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let instrument = try PeerEndToEndTests.Instrument(dir: dir, listen: { String($0) })
        XCTAssertTrue(instrument.waitFor("listening for peers"), instrument.stderr)
        let client = try PeerSession(configuration: .init(displayName: Self.name, role: .client))
        _ = try client.connect(to: "127.0.0.1:\(instrument.port)")
        client.send(.text(Self.text))
        XCTAssertTrue(instrument.waitFor(Self.shownText), instrument.stderr)
        client.stop()
        XCTAssertTrue(instrument.waitFor("left: "), instrument.stderr)
        XCTAssertEqual(instrument.stop(), 0, instrument.stderr)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: instrument.log))
        XCTAssertFalse(bytes.contains(0x1B), "no ESC on stderr")
        XCTAssertFalse(bytes.contains(0x07), "no BEL on stderr")
    }
}
