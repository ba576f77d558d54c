// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import XCTest

/// Issue 16: ways a terminal left a voice sounding, tried in a real terminal (tmux) on
/// `bendsynth play -d null --record-touches`: the screen's voice count while it plays,
/// and the touch script of the take afterwards.
final class TmuxStuckVoiceTests: XCTestCase {
    /// A server of each test's own: a server killed by the test before may still be
    /// going away when the next one starts.
    let tmux = Tmux("bendsynth-stuck-\(UUID().uuidString.prefix(8))")
    let (columns, rows) = (100, 30)

    struct Take {
        var dir: URL
        var touches: String
        var log: String
        /// The take's touch script, as (time, type) pairs.
        func events() throws -> [(t: Double, type: String)] {
            try String(contentsOfFile: touches, encoding: .utf8).split(separator: "\n").map { line in
                let o = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                return (try XCTUnwrap(o["t"] as? Double), try XCTUnwrap(o["type"] as? String))
            }
        }
    }

    func startPlay() throws -> Take {
        guard Tmux.installed else { throw XCTSkip("tmux is not installed") }
        let dir = try BinaryRunner.temporaryDirectory()
        let take = Take(dir: dir, touches: dir.appendingPathComponent("take.jsonl").path, log: dir.appendingPathComponent("stderr.txt").path)
        try tmux.start("play", columns: columns, rows: rows,
                       "\(BinaryRunner.executable.path) play -d null --record-touches \(take.touches)", log: take.log)
        try waitUntil("the pad") { try screen().contains("voices 0") }
        return take
    }

    /// The play window (`play:0`: the focus test opens a second window in the session).
    func screen() throws -> String { try tmux.screen("play:0") }
    func send(_ text: String) throws { try tmux(["send-keys", "-t", "play:0", "-l", text]) }

    func finish(_ take: Take) throws -> [(t: Double, type: String)] {
        let stderr = try quit(tmux, "play:0", log: take.log)
        XCTAssertTrue(stderr.contains("exit=0"), stderr)
        return try take.events()
    }

    /// A middle and a right click whose releases the terminal reports as button 0
    /// (`CSI <0;x;y m`): each voice ends at its release.
    func testReleaseReportedAsButtonZeroEndsTheMiddleAndRightClick() throws {
        let take = try startPlay()
        defer { try? tmux(["kill-server"]); try? FileManager.default.removeItem(at: take.dir) }
        let cell = TerminalScreenLayout.geometry(columns: columns, rows: rows).cell(x: 0.5, y: 0.5)
        for button in [1, 2] {
            try send("\u{1B}[<\(button);\(cell.column);\(cell.row)M")
            try waitUntil("button \(button)'s voice") { try screen().contains("voices 1") }
            try send("\u{1B}[<0;\(cell.column);\(cell.row)m")
            try waitUntil("button \(button)'s voice to end at the release", seconds: 5) { try screen().contains("voices 0") }
        }
        let events = try finish(take)
        XCTAssertEqual(events.map(\.type), ["down", "up", "down", "up", "end"])
    }

    /// Keys and the mouse held while the player switches to another window (here: the
    /// attached client opens another tmux window): the focus-out ends every voice.
    func testFocusOutEndsHeldKeysAndMouse() throws {
        let take = try startPlay()
        defer { try? tmux(["kill-server"]); try? FileManager.default.removeItem(at: take.dir) }
        let client = try tmux.attachClient("play", columns: columns, rows: rows)
        defer { try? client(["kill-server"]) }
        try waitUntil("the client attached") { try tmux(["list-clients"]).contains("play") }
        let cell = TerminalScreenLayout.geometry(columns: columns, rows: rows).cell(x: 0.5, y: 0.5)
        try send("\u{1B}[<0;\(cell.column);\(cell.row)M")
        try send("a")
        try waitUntil("two voices") { try screen().contains("voices 2") }
        try tmux(["new-window", "-t", "play"])  // focus goes to the new window
        try waitUntil("the voices to end at the focus-out", seconds: 5) { try screen().contains("voices 0") }
        let events = try finish(take)
        XCTAssertEqual(events.filter { $0.type == "down" }.count, 2)
        XCTAssertEqual(events.filter { $0.type == "up" }.count, 2)
    }

    /// A letter key held in a terminal without the kitty protocol: the press, then (after
    /// the keyboard's initial delay) its auto-repeats. One note, ending when the repeats
    /// stop (150 ms after the last), with no more input.
    func testHeldKeyWithAutoRepeatIsOneNote() throws {
        let take = try startPlay()
        defer { try? tmux(["kill-server"]); try? FileManager.default.removeItem(at: take.dir) }
        try send("a")
        try waitUntil("the key's voice") { try screen().contains("voices 1") }
        usleep(400_000)  // the keyboard's initial repeat delay (input pacing, not a wait for a result)
        try send(String(repeating: "a", count: 15))  // the repeats, in one read
        try waitUntil("the note to end after the repeats", seconds: 5) { try screen().contains("voices 0") }
        let events = try finish(take)
        XCTAssertEqual(events.map(\.type), ["down", "up", "end"], "repeats never toggle")
        let held = events[1].t - events[0].t
        XCTAssertGreaterThan(held, 0.4 + 0.15, "held through the repeats, then 150 ms")
        XCTAssertLessThan(held, 2.0)
        print(String(format: "held key: note %.3f s (press → 0.4 s → 15 repeats → +150 ms)", held))
    }
}
