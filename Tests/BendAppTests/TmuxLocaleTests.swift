// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import XCTest

/// `play` under `LANG=C` in a 60-column tmux: the pad is drawn in ASCII and the status
/// line shows the voices and xruns.
final class TmuxLocaleTests: XCTestCase {
    let tmux = Tmux("bendsynth-locale-test")

    func testASCIIPadAtSixtyColumns() throws {
        guard Tmux.installed else { throw XCTSkip("tmux is not installed") }
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let log = dir.appendingPathComponent("stderr.txt").path
        try tmux.start("play", columns: 60, rows: 20, "env -u LC_CTYPE LC_ALL=C LANG=C \(BinaryRunner.executable.path) play -d null", log: log)
        defer { try? tmux(["kill-server"]) }
        try waitUntil("the pad") { try tmux.screen("play").contains("voices 0") }
        try tmux(["send-keys", "-t", "play", "-l", "\u{1B}[<0;30;10M"])
        try waitUntil("a voice") { try tmux.screen("play").contains("voices 1") }
        let screen = try tmux.screen("play")
        // The null PCM keeps no time (play is paced by the clock): no device, no xruns.
        XCTAssertFalse(screen.contains("xruns"), screen)
        XCTAssertTrue(screen.unicodeScalars.allSatisfy(\.isASCII), screen)
        XCTAssertTrue(screen.components(separatedBy: "\n")[1].hasPrefix("+-"), screen)
        try tmux(["send-keys", "-t", "play", "-l", "\u{1B}[<0;30;10m"])
        let said = try quit(tmux, "play", log: log)
        XCTAssertTrue(said.contains("exit=0"), said)
    }
}
