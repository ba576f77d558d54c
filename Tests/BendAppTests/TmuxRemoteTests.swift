// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Glibc
import XCTest

/// `bendsynth remote` in a real terminal (tmux) on loopback: standard input is read once,
/// through the pad's decoder, and `/` opens a text line only as a typed key.
final class TmuxRemoteTests: XCTestCase {
    let tmux = Tmux("bendsynth-remote-test")

    func testTextLineFromTheDecodedKeysAndThePadStillPlays() throws {
        guard Tmux.installed else { throw XCTSkip("tmux is not installed") }
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let instrument = try PeerEndToEndTests.Instrument(dir: dir, listen: { "127.0.0.1:\($0)" })
        defer { _ = instrument.stop() }
        XCTAssertTrue(instrument.waitFor("listening for peers"), instrument.stderr)
        let log = dir.appendingPathComponent("remote.err").path
        let (columns, rows) = (100, 30)
        try tmux.start("remote", columns: columns, rows: rows,
                       "\(BinaryRunner.executable.path) remote 127.0.0.1:\(instrument.port) --name tester", log: log)
        defer { try? tmux(["kill-server"]) }
        func screen() throws -> String { try tmux.screen("remote") }
        try waitUntil("the remote pad") { try screen().contains("connected, RTT") }

        // A `/` inside a paste is pasted text, not the key: no line opens.
        try tmux(["send-keys", "-t", "remote", "-l", "\u{1B}[200~a/b\u{1B}[201~"])
        // The mouse still plays (a voice at the instrument) while no line is open.
        let pad = TerminalScreenLayout.geometry(columns: columns, rows: rows)
        let cell = pad.cell(x: 0.5, y: 1)
        try tmux(["send-keys", "-t", "remote", "-l", "\u{1B}[<0;\(cell.column);\(cell.row)M"])
        try waitUntil("a voice") { try screen().contains("voices 1") }
        try tmux(["send-keys", "-t", "remote", "-l", "\u{1B}[<0;\(cell.column);\(cell.row)m"])
        try waitUntil("the release") { try screen().contains("voices 0") }
        let shown = try screen()
        XCTAssertFalse(shown.contains("message:"), shown)

        // `/` opens a line (while the mouse holds a note); Escape cancels it and only
        // that: the held note plays on (issue 16: Esc also was the pad's panic key).
        try tmux(["send-keys", "-t", "remote", "-l", "\u{1B}[<0;\(cell.column);\(cell.row)M"])
        try waitUntil("a held voice") { try screen().contains("voices 1") }
        try tmux(["send-keys", "-t", "remote", "-l", "/hi"])
        try waitUntil("the text line") { try screen().contains("message: hi_") }
        try tmux(["send-keys", "-t", "remote", "Escape"])
        try waitUntil("the line cancelled") { try screen().contains("/ types a message") }
        // A key after it: two voices, so the mouse's note was not ended (a panic would
        // have reached the instrument before the key, on the same connection).
        try tmux(["send-keys", "-t", "remote", "-l", "a"])
        try waitUntil("the held note and the key's", seconds: 5) { try screen().contains("voices 2") }
        try tmux(["send-keys", "-t", "remote", "Escape"])  // no line open: the panic key
        try waitUntil("the panic") { try screen().contains("voices 0") }
        try tmux(["send-keys", "-t", "remote", "-l", "\u{1B}[<0;\(cell.column);\(cell.row)m"])
        try tmux(["send-keys", "-t", "remote", "-l", "/hello"])
        try waitUntil("the second line") { try screen().contains("message: hello_") }
        try tmux(["send-keys", "-t", "remote", "Enter"])
        XCTAssertTrue(instrument.waitFor("message from tester: hello"), instrument.stderr)
        XCTAssertFalse(instrument.stderr.contains("message from tester: hi"), "the cancelled line was not sent")

        let stderr = try quit(tmux, "remote", log: log)
        XCTAssertTrue(stderr.contains("exit=0"), stderr)
    }
}

/// The remote's pad while its link is down: its top line says it is reconnecting, then
/// connected again once an instrument listens on the port again.
final class TmuxRemoteReconnectTests: XCTestCase {
    let tmux = Tmux("bendsynth-relink-test")

    func testThePadShowsReconnectingThenConnectedAgain() throws {
        guard Tmux.installed else { throw XCTSkip("tmux is not installed") }
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let firstDir = dir.appendingPathComponent("first"), secondDir = dir.appendingPathComponent("second")
        try FileManager.default.createDirectory(at: firstDir, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: secondDir, withIntermediateDirectories: true)
        let first = try PeerEndToEndTests.Instrument(dir: firstDir, listen: { "127.0.0.1:\($0)" }, extra: ["--name", "stage"])
        XCTAssertTrue(first.waitFor("listening for peers"), first.stderr)
        let log = dir.appendingPathComponent("remote.err").path
        try tmux.start("remote", columns: 100, rows: 30, "\(BinaryRunner.executable.path) remote 127.0.0.1:\(first.port) --name tester", log: log)
        defer { try? tmux(["kill-server"]) }
        try waitUntil("the remote pad") { try tmux.screen("remote").contains("stage: connected, RTT") }
        XCTAssertEqual(first.stop(), 0, first.stderr)
        let down = Poll.until(20) { ((try? tmux.screen("remote")) ?? "").contains("stage: reconnecting (") }
        XCTAssertTrue(down, "the pad says it reconnects: \((try? tmux.screen("remote")) ?? "")")
        let second = try PeerEndToEndTests.Instrument(dir: secondDir, listen: { "127.0.0.1:\($0)" }, port: first.port, extra: ["--name", "stage"])
        defer { _ = second.stop() }
        XCTAssertTrue(second.waitFor("'tester' (127.0.0.1:"), second.stderr)
        try waitUntil("connected again") { try tmux.screen("remote").contains("stage: connected, RTT") }
        let stderr = try quit(tmux, "remote", log: log)
        XCTAssertTrue(stderr.contains("exit=0"), stderr)
    }
}
