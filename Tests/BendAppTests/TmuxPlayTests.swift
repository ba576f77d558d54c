// SPDX-License-Identifier: GPL-3.0-or-later
import XCTest
import Foundation
import BendInput
import BendTestSupport

/// `bendsynth play` in a real terminal (tmux), played with SGR mouse reports sent by
/// `tmux send-keys`, recording what it plays.
final class TmuxPlayTests: XCTestCase {
    let tmux = Tmux("bendsynth-test")

    func screen() throws -> String { try tmux.screen("play") }

    func testMouseTouchInTmuxIsPlayedAndRecorded() throws {
        guard Tmux.installed else { throw XCTSkip("tmux is not installed") }
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let wav = dir.appendingPathComponent("take.wav").path
        let touches = dir.appendingPathComponent("take.jsonl").path
        let log = dir.appendingPathComponent("stderr.txt").path
        let (columns, rows) = (100, 30)
        // No ALSA device here: play says so and plays, paced in real time, into the file.
        try tmux.start("play", columns: columns, rows: rows,
                       "\(BinaryRunner.executable.path) play -d bendsynth_no_such_pcm --pitch-map linear --round off --record \(wav) --record-touches \(touches)", log: log)
        defer { try? tmux(["kill-server"]) }
        try waitUntil("the pad") { try screen().contains("voices 0") }

        // Press at x = 0.5 (the tone as recorded, 440 Hz), top row (gain 1); drag to x = 0.75; release.
        let pad = TerminalScreenLayout.geometry(columns: columns, rows: rows)
        let a = pad.cell(x: 0.5, y: 1), b = pad.cell(x: 0.75, y: 1)
        try tmux(["send-keys", "-t", "play", "-l", "\u{1B}[<0;\(a.column);\(a.row)M"])
        try waitUntil("a voice") { try screen().contains("voices 1") }
        let pressedAt = WAVReader.frames(wav)
        try waitUntil("1 s of the held tone") { WAVReader.frames(wav) > pressedAt + 48_000 }
        try tmux(["send-keys", "-t", "play", "-l", "\u{1B}[<32;\(b.column);\(b.row)M"])
        let draggedAt = WAVReader.frames(wav)
        try waitUntil("1 s after the drag") { WAVReader.frames(wav) > draggedAt + 48_000 }
        try tmux(["send-keys", "-t", "play", "-l", "\u{1B}[<0;\(b.column);\(b.row)m"])
        try waitUntil("the release") { try screen().contains("voices 0") }
        let releasedAt = WAVReader.frames(wav)
        try waitUntil("0.5 s after the release") { WAVReader.frames(wav) > releasedAt + 24_000 }
        let stderr = try quit(tmux, "play", log: log)
        XCTAssertTrue(stderr.contains("exit=0"), stderr)
        XCTAssertTrue(stderr.contains("cannot open ALSA PCM 'bendsynth_no_such_pcm'"), stderr)

        // The recording: silence, 440 Hz while pressed, 660 Hz after the drag, silence after.
        let left = Measure.channel(try WAVReader.read(wav).samples, 0)
        let first = try XCTUnwrap(left.firstIndex { $0 != 0 })
        let last = try XCTUnwrap(left.lastIndex { $0 != 0 })
        let held = Double(last - first) / 48_000
        XCTAssertGreaterThan(held, 1.9, "sounded while the mouse was down")
        let firstHalf = Array(left[(first + 2_400)..<(first + 40_000)])
        XCTAssertEqual(Measure.peakFrequency(firstHalf, rate: 48_000), 440 * pitchRatio(pad, a.column) / 1, accuracy: 440 * 0.005)
        let secondHalf = Array(left[(last - 40_000)..<(last - 2_400)])
        XCTAssertEqual(Measure.peakFrequency(secondHalf, rate: 48_000), 440 * pitchRatio(pad, b.column), accuracy: 660 * 0.005)
        XCTAssertGreaterThan(left.count - last, 20_000, "silence after the release")
        // The touch script of the take: one down, moves, one up.
        let script = try String(contentsOfFile: touches)
        XCTAssertEqual(script.components(separatedBy: "\"down\"").count - 1, 1, script)
        XCTAssertEqual(script.components(separatedBy: "\"up\"").count - 1, 1, script)
    }

    /// Pitch ratio of a pad column (linear map: 2·x).
    func pitchRatio(_ pad: PadGeometry, _ column: Int) -> Double {
        2 * pad.point(column: column, row: pad.top).x
    }
}

/// Where `play` puts the pad for a terminal size.
enum TerminalScreenLayout {
    static func geometry(columns: Int, rows: Int) -> PadGeometry {
        TerminalScreen.layout(columns: columns, rows: rows)
    }
}
