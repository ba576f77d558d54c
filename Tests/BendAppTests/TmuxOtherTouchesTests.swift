// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import XCTest

/// `play --script` with the terminal pad in tmux: the script's touch (another source)
/// shows on the pad, marked `S`, beside the mouse's.
final class TmuxOtherTouchesTests: XCTestCase {
    let tmux = Tmux("bendsynth-others-test")

    func testAScriptsTouchShowsOnThePad() throws {
        guard Tmux.installed else { throw XCTSkip("tmux is not installed") }
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let log = dir.appendingPathComponent("stderr.txt").path
        let script = dir.appendingPathComponent("take.jsonl")
        try """
        {"t": 0.0, "type": "down", "id": 1, "x": 0.25, "y": 0.5}
        {"t": 60.0, "type": "up", "id": 1}
        """.write(to: script, atomically: true, encoding: .utf8)
        try tmux.start("play", columns: 100, rows: 24, "\(BinaryRunner.executable.path) play -d null --pitch-map linear --round off --script \(script.path)", log: log)
        defer { try? tmux(["kill-server"]) }
        try waitUntil("the script's touch on the pad") { try tmux.screen("play").contains("S ×0.50 A3+0¢ g0.50") }
        try tmux(["send-keys", "-t", "play", "-l", "\u{1B}[<0;60;10M"])
        try waitUntil("the mouse's touch beside it") {
            let s = try tmux.screen("play")
            return s.contains("voices 2") && s.contains("● ×") && s.contains("  S ×0.50 A3+0¢ g0.50")
        }
        try tmux(["send-keys", "-t", "play", "-l", "\u{1B}[<0;60;10m"])
        let said = try quit(tmux, "play", log: log)
        XCTAssertTrue(said.contains("exit=0"), said)
    }
}
