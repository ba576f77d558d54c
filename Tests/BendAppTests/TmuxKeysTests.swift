// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import XCTest

/// The letter keys in a real terminal (tmux), as a new player presses them: `play -d null
/// --record-touches`, every letter tapped (tmux reports no releases, so each tap latches
/// a note), then `q`. The take holds each key's pitch as the instrument played it: every
/// one within 1 cent of a note of the active scale, on the key the layout names.
final class TmuxKeysTests: XCTestCase {
    let tmux = Tmux("bendsynth-keys-\(UUID().uuidString.prefix(8))")

    /// Taps every letter but q, in alphabetical order, in a `play` with `options` and waits
    /// for a voice for each of `sounding` (the keys that play, in that order); the take's
    /// downs (in the order they came: the take numbers touches its own way), each with
    /// its key: the pitch in cents above the tone's pitch (A4).
    func tapEveryKey(_ options: String, sounding: String) throws -> [Character: Double] {
        guard Tmux.installed else { throw XCTSkip("tmux is not installed") }
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let take = dir.appendingPathComponent("take.jsonl").path, log = dir.appendingPathComponent("stderr.txt").path
        try tmux.start("play", columns: 100, rows: 30, "\(BinaryRunner.executable.path) play -d null --record-touches \(take) \(options)", log: log)
        defer { try? tmux(["kill-server"]) }
        try waitUntil("the pad") { try tmux.screen("play").contains("voices 0") }
        let letters = "abcdefghijklmnoprstuvwxyz"
        try tmux(["send-keys", "-t", "play", "-l", letters])
        try waitUntil("\(sounding.count) voices") { try tmux.screen("play").contains("voices \(sounding.count)") }
        XCTAssertTrue(try quit(tmux, "play", log: log).contains("exit=0"))
        var cents: [Double] = []
        for line in try String(contentsOfFile: take, encoding: .utf8).split(separator: "\n") {
            let o = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            guard o["type"] as? String == "down" else { continue }
            cents.append(1200 * log2(try XCTUnwrap(o["ratio"] as? Double, "a key plays a pitch: \(line)")))
        }
        XCTAssertEqual(cents.count, sounding.count, "a down for each key that plays")
        return Dictionary(uniqueKeysWithValues: zip(sounding, cents))
    }

    /// No option: a piano on A4's chromatic scale: a = C4 (−900 cents) … l = D5 (+500),
    /// the black keys above, the octave below on z…m; r and i play nothing.
    func testEveryLetterKeyPlaysANoteOfTheChromaticScale() throws {
        let pitches = try tapEveryKey("", sounding: "abcdefghjklmnopstuvwxyz")
        let notes: [Character: Int] = [
            "a": -9, "s": -7, "d": -5, "f": -4, "g": -2, "h": 0, "j": 2, "k": 3, "l": 5,
            "w": -8, "e": -6, "t": -3, "y": -1, "u": 1, "o": 4, "p": 6,
            "z": -21, "x": -19, "c": -17, "v": -16, "b": -14, "n": -12, "m": -10,
        ]
        XCTAssertEqual(Set(pitches.keys), Set(notes.keys), "the keys that sounded")
        for (key, cents) in pitches {
            XCTAssertEqual(cents, Double(notes[key] ?? 99) * 100, accuracy: 1, "key \(key)")
        }
    }

    /// `--scale major`: the middle row climbs A major from A4, the top row an octave up,
    /// the bottom row an octave down; every key on a step of the scale.
    func testWithAScaleEveryKeyPlaysAStepOfIt() throws {
        let pitches = try tapEveryKey("--scale major", sounding: "abcdefghijklmnoprstuvwxyz")
        let steps = [0.0, 200, 400, 500, 700, 900, 1100, 1200, 1400]
        var expected: [Character: Double] = [:]
        for (key, c) in zip("asdfghjkl", steps) { expected[key] = c }
        for (key, c) in zip("wertyuiop", steps) { expected[key] = c + 1200 }
        for (key, c) in zip("zxcvbnm", steps) { expected[key] = c - 1200 }
        XCTAssertEqual(pitches.count, 25)
        for (key, cents) in pitches {
            XCTAssertEqual(cents, expected[key] ?? 99_999, accuracy: 1, "key \(key)")
        }
    }
}
