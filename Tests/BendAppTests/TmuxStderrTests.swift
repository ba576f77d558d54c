// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import XCTest

/// Issue 38, item 9: the terminal pad owns its screen. `play --web` in tmux with its
/// standard error on the same terminal, as a player runs it; a phone (web/ws_client.py)
/// connects while the pad is drawn and goes silent, so play says two things: they go on
/// the pad's status line, the pad does not move, and both are on the terminal after it.
final class TmuxStderrTests: XCTestCase {
    let tmux = Tmux("bendsynth-stderr-\(UUID().uuidString.prefix(8))")
    let (columns, rows) = (100, 30)

    func screenLines() throws -> [String] { try tmux.screen("play").components(separatedBy: "\n") }

    func testMessagesWhileThePadIsDrawnGoOnItsStatusLineAndToTheTerminalAfterIt() throws {
        guard Tmux.installed else { throw XCTSkip("tmux is not installed") }
        let dir = try BinaryRunner.temporaryDirectory()
        let exit = dir.appendingPathComponent("exit.txt").path
        defer { try? tmux(["kill-server"]); try? FileManager.default.removeItem(at: dir) }
        // No 2> here: stderr is the pad's terminal. The sleep keeps the pane to read after.
        try tmux(["new-session", "-d", "-s", "play", "-x", "\(columns)", "-y", "\(rows)",
                  "\(BinaryRunner.executable.path) play -d null --web 127.0.0.1:0; echo exit=$? >\(exit); sleep 600"])
        try waitUntil("the web pad's address", seconds: 30) { try screenLines().contains { $0.contains("press Enter for the pad") } }
        let url = try XCTUnwrap(try screenLines().first { $0.hasPrefix("http://127.0.0.1:") })
        let port = String(url.split(separator: "/")[1].split(separator: ":")[1]), token = String(url.split(separator: "#")[1])
        try tmux(["send-keys", "-t", "play", "Enter"])
        try waitUntil("the pad") { try screenLines().contains { $0.contains("voices 0") } }
        let drawn = try screenLines()
        let top = try XCTUnwrap(drawn.firstIndex { $0.hasPrefix("┌") }), bottom = try XCTUnwrap(drawn.firstIndex { $0.hasPrefix("└") })

        let phone = Process()
        phone.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        phone.arguments = [BinaryRunner.packageRoot.appendingPathComponent("Tests/BendAppTests/web/ws_client.py").path, "silent", "127.0.0.1", port, token]
        let stdin = Pipe()
        phone.standardInput = stdin
        phone.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        try phone.run()
        defer { try? stdin.fileHandleForWriting.close(); phone.waitUntilExit() }

        let connected = "web: phone 1 connected from 127.0.0.1"
        try waitUntil("the phone's coming on the status line", seconds: 10) { try screenLines().contains { $0.contains(connected) } }
        var during = try screenLines()
        XCTAssertEqual(during.firstIndex { $0.hasPrefix("┌") }, top, "the pad moved:\n\(during.joined(separator: "\n"))")
        XCTAssertEqual(during.firstIndex { $0.hasPrefix("└") }, bottom, "the pad moved:\n\(during.joined(separator: "\n"))")
        XCTAssertFalse(during.contains { $0.hasPrefix("bendsynth: web") }, "a message over the pad:\n\(during.joined(separator: "\n"))")
        XCTAssertGreaterThan(during.firstIndex { $0.contains(connected) } ?? 0, bottom, "the notice is below the pad, on its status lines")
        // Its silence ends its touch (web --silence, under a second): a second message.
        try waitUntil("the silent phone's message", seconds: 10) { try screenLines().contains { $0.contains("silent for") } }
        during = try screenLines()
        XCTAssertEqual(during.firstIndex { $0.hasPrefix("└") }, bottom, "the pad moved:\n\(during.joined(separator: "\n"))")

        try tmux(["send-keys", "-t", "play", "q"])
        try waitUntil("play to exit") { (try? String(contentsOfFile: exit, encoding: .utf8))?.contains("exit=") ?? false }
        XCTAssertEqual(try String(contentsOfFile: exit, encoding: .utf8), "exit=0\n")
        // After the pad, the terminal has what was said while it was drawn, in order.
        let after = try screenLines()
        let said = after.filter { $0.hasPrefix("bendsynth: web: phone 1") }
        XCTAssertEqual(said.count, 2, after.joined(separator: "\n"))
        XCTAssertEqual(said.first, "bendsynth: " + connected)
        XCTAssertTrue(said.last?.contains("silent for") ?? false, after.joined(separator: "\n"))
    }
}
