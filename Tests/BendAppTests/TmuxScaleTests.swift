// SPDX-License-Identifier: GPL-3.0-or-later
import XCTest
import Foundation
import BendControl
import BendInput
import BendTestSupport

/// `bendsynth play --scale chromatic --round hold` in a real terminal (tmux): the pad
/// draws the scale's guides and the step the touch sounds at, and the take is on the step
/// although the mouse is between steps (the live rounding path: port, ticker, pad); a
/// drag to another point between steps settles on its nearest step by the ticker alone
/// (the move keeps the first touch's offset; no event follows it).
final class TmuxScaleTests: XCTestCase {
    let tmux = Tmux("bendsynth-scale-test")

    func screen() throws -> String { try tmux.screen("play") }

    func testRoundedTouchInTmux() throws {
        guard Tmux.installed else { throw XCTSkip("tmux is not installed") }
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let wav = dir.appendingPathComponent("take.wav").path
        let log = dir.appendingPathComponent("stderr.txt").path
        let (columns, rows) = (100, 30)
        try tmux.start("play", columns: columns, rows: rows,
                       "\(BinaryRunner.executable.path) play -d bendsynth_no_such_pcm --record \(wav) --scale chromatic --round hold --round-rate 50", log: log)
        defer { try? tmux(["kill-server"]) }
        try waitUntil("the pad") { try screen().contains("voices 0") }
        // A column 15…35 cents above a step, right of the centre.
        let pad = TerminalScreen.layout(columns: columns, rows: rows)
        let column = try XCTUnwrap((pad.left + pad.width / 2...pad.left + pad.width - 2).first { c in
            let cents = (pad.point(column: c, row: pad.top).x - 0.5) * 2400
            let off = cents - (cents / 100).rounded() * 100
            return cents > 100 && off > 15 && off < 35
        })
        let cents = (pad.point(column: column, row: pad.top).x - 0.5) * 2400
        let step = (cents / 100).rounded()
        // Where the drag goes: 15…35 cents below a step, at least a step further right
        // (without ticks the touch would sound 30…70 cents below that step).
        let column2 = try XCTUnwrap((column + 4...pad.left + pad.width - 2).first { c in
            let cents = (pad.point(column: c, row: pad.top).x - 0.5) * 2400
            let off = cents - (cents / 100).rounded() * 100
            return off < -15 && off > -35
        })
        let cents2 = (pad.point(column: column2, row: pad.top).x - 0.5) * 2400
        let step2 = (cents2 / 100).rounded()
        let row = pad.cell(x: 0, y: 1).row
        let border = try screen().components(separatedBy: "\n")[1]
        XCTAssertTrue(border.contains("C#") && border.contains("A"), "the steps' names in the border: \(border)")

        try tmux(["send-keys", "-t", "play", "-l", "\u{1B}[<0;\(column);\(row)M"])
        try waitUntil("a voice") { try screen().contains("voices 1") }
        // The label says the pitch that sounds: the step (rounded), not the finger's offset.
        let shown = Tuning.noteName(midi: 69 + step) + "+0¢"
        try waitUntil("the touch's step (\(shown))") { try screen().contains(shown) }
        let pressedAt = WAVReader.frames(wav)
        try waitUntil("1 s of the held tone") { WAVReader.frames(wav) > pressedAt + 48_000 }
        try tmux(["send-keys", "-t", "play", "-l", "\u{1B}[<32;\(column2);\(row)M"])
        let draggedAt = WAVReader.frames(wav)
        try waitUntil("1.5 s after the drag") { WAVReader.frames(wav) > draggedAt + 72_000 }
        try tmux(["send-keys", "-t", "play", "-l", "\u{1B}[<0;\(column2);\(row)m"])
        try waitUntil("the release") { try screen().contains("voices 0") }
        XCTAssertTrue(try quit(tmux, "play", log: log).contains("exit=0"))

        let left = Measure.channel(try WAVReader.read(wav).samples, 0)
        let first = try XCTUnwrap(left.firstIndex { $0 != 0 })
        let hz = Measure.peakFrequency(Array(left[(first + 2_400)..<(first + 40_000)]), rate: 48_000)
        XCTAssertEqual(1200 * log2(hz / 440), step * 100, accuracy: 2, "\(hz) Hz: on the step, not \(cents) cents")
        // The last 0.7 s before the release (from 0.75 s after the drag): settled.
        let last = try XCTUnwrap(left.lastIndex { $0 != 0 })
        let hz2 = Measure.peakFrequency(Array(left[(last - 36_000)..<(last - 2_400)]), rate: 48_000)
        XCTAssertEqual(1200 * log2(hz2 / 440), step2 * 100, accuracy: 2, "\(hz2) Hz: settled on the step, not \(cents2) cents")
    }
}
