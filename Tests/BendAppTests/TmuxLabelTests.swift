// SPDX-License-Identifier: GPL-3.0-or-later
import XCTest
import Foundation
import BendControl
import BendInput
import BendTestSupport

/// The terminal pad's labels in a real terminal (tmux), checked against what sounds:
/// with `--scale major` the letter keys play the scale's steps and their labels name
/// them with the octave, whole, also for neighbouring keys held together; with
/// `--round initial` a touch between steps is labelled with the step it sounds at.
final class TmuxLabelTests: XCTestCase {
    let (columns, rows) = (100, 30)
    /// A server of each test's own: one being killed never takes the next one's session.
    var tmux = Tmux("bendsynth-label-test")

    func screen() throws -> String { try tmux.screen("play") }

    func testNeighbouringKeysOnAScaleShowWholeLabelsOfWhatSounds() throws {
        tmux = Tmux("bendsynth-label-keys")
        guard Tmux.installed else { throw XCTSkip("tmux is not installed") }
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let wav = dir.appendingPathComponent("take.wav").path
        let log = dir.appendingPathComponent("stderr.txt").path
        try tmux.start("play", columns: columns, rows: rows,
                       "\(BinaryRunner.executable.path) play -d bendsynth_no_such_pcm --record \(wav) --scale major", log: log)
        defer { _ = try? tmux(["kill-server"]) }
        try waitUntil("the pad") { try screen().contains("voices 0") }
        // a: the root of A major, A4; s: B4. Without releases a tap latches a key.
        try tmux(["send-keys", "-t", "play", "a"])
        try waitUntil("a voice") { try screen().contains("voices 1") }
        let pressedAt = WAVReader.frames(wav)
        try waitUntil("1 s of A4") { WAVReader.frames(wav) > pressedAt + 48_000 }
        try tmux(["send-keys", "-t", "play", "s"])
        try waitUntil("two voices") { try screen().contains("voices 2") }
        let pad = TerminalScreen.layout(columns: columns, rows: rows)
        let padRows = try screen().components(separatedBy: "\n")[(pad.top - 1)..<(pad.top - 1 + pad.height)]
        for label in ["A4+0¢ g0.80", "B4+0¢ g0.80"] {
            XCTAssertEqual(padRows.filter { $0.contains(label) }.count, 1, "\(label) whole on the pad:\n\(padRows.joined(separator: "\n"))")
        }
        try tmux(["send-keys", "-t", "play", "a"])
        try tmux(["send-keys", "-t", "play", "s"])
        try waitUntil("the release") { try screen().contains("voices 0") }
        XCTAssertTrue(try quit(tmux, "play", log: log).contains("exit=0"))

        let left = Measure.channel(try WAVReader.read(wav).samples, 0)
        let first = try XCTUnwrap(left.firstIndex { $0 != 0 })
        let hz = Measure.peakFrequency(Array(left[(first + 2_400)..<(first + 40_000)]), rate: 48_000)
        XCTAssertEqual(1200 * log2(hz / 440), 0, accuracy: 3, "\(hz) Hz: key a plays A4, the scale's root")
    }

    func testARoundedTouchIsLabelledWithTheStepItSoundsAt() throws {
        tmux = Tmux("bendsynth-label-round")
        guard Tmux.installed else { throw XCTSkip("tmux is not installed") }
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let wav = dir.appendingPathComponent("take.wav").path
        let log = dir.appendingPathComponent("stderr.txt").path
        try tmux.start("play", columns: columns, rows: rows,
                       "\(BinaryRunner.executable.path) play -d bendsynth_no_such_pcm --record \(wav) --scale major --round initial", log: log)
        defer { _ = try? tmux(["kill-server"]) }
        try waitUntil("the pad") { try screen().contains("voices 0") }
        // A column 15…40 cents off a step of A major, right of the centre.
        let pad = TerminalScreen.layout(columns: columns, rows: rows)
        let tuning = Tuning(scale: Scale.builtIn("major")!)
        let map = PitchMap.exponential(octaves: 2)
        let column = try XCTUnwrap((pad.left + pad.width / 2...pad.left + pad.width - 20).first { c in
            let (_, off) = tuning.nearest(ratio: map.ratio(x: pad.point(column: c, row: pad.top).x))
            return abs(off) > 15 && abs(off) < 40
        })
        let ratio = map.ratio(x: pad.point(column: column, row: pad.top).x)
        let (step, offset) = tuning.nearest(ratio: ratio)
        let row = pad.cell(x: 0, y: 1).row
        try tmux(["send-keys", "-t", "play", "-l", "\u{1B}[<0;\(column);\(row)M"])
        try waitUntil("a voice") { try screen().contains("voices 1") }
        let shown = tuning.name(ofStep: step) + "+0¢"
        let raw = tuning.pitchText(ratio: ratio)
        try waitUntil("the step that sounds (\(shown)), not the finger's \(raw)") { try screen().contains(shown) }
        XCTAssertFalse(try screen().contains(raw), "not the pitch before rounding")
        let pressedAt = WAVReader.frames(wav)
        try waitUntil("1 s of the held tone") { WAVReader.frames(wav) > pressedAt + 48_000 }
        try tmux(["send-keys", "-t", "play", "-l", "\u{1B}[<0;\(column);\(row)m"])
        try waitUntil("the release") { try screen().contains("voices 0") }
        XCTAssertTrue(try quit(tmux, "play", log: log).contains("exit=0"))

        let left = Measure.channel(try WAVReader.read(wav).samples, 0)
        let first = try XCTUnwrap(left.firstIndex { $0 != 0 })
        let hz = Measure.peakFrequency(Array(left[(first + 2_400)..<(first + 40_000)]), rate: 48_000)
        XCTAssertEqual(1200 * log2(hz / 440), tuning.scale.cents(ofStep: step), accuracy: 2,
                       "\(hz) Hz: on step \(step) as labelled, not \(offset) cents off")
    }
}
