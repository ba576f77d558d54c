// SPDX-License-Identifier: GPL-3.0-or-later
import BendTestSupport
import Foundation
import Glibc
import XCTest

/// `play --tone FILE.sfz` while the instrument is edited: a change loads again and new
/// touches play it while a touch already sounding keeps the old sample; a change that
/// does not load is said and the sound plays on. Measured in `play --record`'s take.
final class ToneReloadTests: XCTestCase {
    var dir = URL(fileURLWithPath: "/")
    override func setUpWithError() throws { dir = try BinaryRunner.temporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    /// A 1 s loop of a sine of `hz` (whole cycles), float WAV at 48 kHz.
    func writeSine(_ name: String, hz: Int) {
        writeSoundFile(dir.appendingPathComponent(name).path, Measure.sineTone(frames: 48_000, cycles: hz), rate: 48_000)
    }

    func writeInstrument(sample: String) throws {
        try "<region> sample=\(sample) pitch_keycenter=60 loop_mode=loop_continuous\n"
            .write(to: dir.appendingPathComponent("i.sfz"), atomically: true, encoding: .utf8)
    }

    func testAnEditedInstrumentPlaysForNewTouchesAndABrokenEditLeavesTheSound() throws {
        writeSine("a.wav", hz: 300)
        writeSine("b.wav", hz: 500)
        try writeInstrument(sample: "a.wav")
        // Touch 1 held throughout; touch 2 after the first edit, touch 3 after the second.
        let script = dir.appendingPathComponent("s.jsonl").path
        try """
        {"t": 0.0, "type": "down", "id": 1, "ratio": 1, "gain": 0.4, "y": 0.5}
        {"t": 5.0, "type": "down", "id": 2, "ratio": 1, "gain": 0.4, "y": 0.5}
        {"t": 8.0, "type": "up", "id": 2}
        {"t": 9.5, "type": "down", "id": 3, "ratio": 1, "gain": 0.4, "y": 0.5}
        {"t": 10.8, "type": "up", "id": 1}
        {"t": 10.8, "type": "up", "id": 3}
        """.write(toFile: script, atomically: true, encoding: .utf8)
        let log = dir.appendingPathComponent("play.err").path, take = dir.appendingPathComponent("take.wav").path
        FileManager.default.createFile(atPath: log, contents: nil)
        let play = Process()
        play.executableURL = BinaryRunner.executable
        play.arguments = ["play", "--no-terminal", "-d", "bendsynth_no_such_pcm", "--record", take,
                          "--tone", dir.appendingPathComponent("i.sfz").path, "--tone-note", "60", "--script", script]
        play.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        play.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        play.standardError = FileHandle(forWritingAtPath: log)
        try play.run()
        var stderr: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }
        XCTAssertTrue(Poll.until(15) { stderr.contains("playing into") }, stderr)
        try writeInstrument(sample: "b.wav")
        XCTAssertTrue(Poll.until(15) { stderr.contains("changed: loaded again (1 region); new touches play it") }, stderr)
        try "<region> sample=b.wav\n<regio\n".write(to: dir.appendingPathComponent("i.sfz"), atomically: true, encoding: .utf8)
        XCTAssertTrue(Poll.until(15) { stderr.contains("i.sfz:2: unterminated header '<regio'; expected '>' on the same line; the sound in use plays on") },
                      stderr)
        play.waitUntilExit()
        XCTAssertEqual(play.terminationStatus, 0, stderr)

        let left = Measure.channel(try WAVReader.read(take).samples, 0)
        func heard(_ from: Double, _ to: Double) -> [Double] {
            Measure.peaks(Array(left[Int(from * 48_000)..<Int(to * 48_000)]), rate: 48_000, floorDB: -20).map { $0.rounded() }.sorted()
        }
        XCTAssertEqual(heard(2, 4.5), [300], "the first sample")
        XCTAssertEqual(heard(5.5, 7.5), [300, 500], "the held touch keeps the old sample, the new one plays the edit")
        XCTAssertEqual(heard(8.5, 9.3), [300])
        XCTAssertEqual(heard(9.8, 10.6), [300, 500], "the broken edit left the sound as it was")
    }
}
