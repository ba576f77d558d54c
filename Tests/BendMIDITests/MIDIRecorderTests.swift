// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendMIDI
import Foundation
import XCTest

/// `--record-midi`'s recorder: every source's touches as one MPE take, in the order
/// they sound.
final class MIDIRecorderTests: XCTestCase {
    let rate = 48_000.0

    /// Records `events` (frame, source, event) in the order given, then `after` once
    /// closed; the file's messages with their times in seconds.
    func record(_ events: [(UInt64, UInt32, ControlEvent)], after: [(UInt64, UInt32, ControlEvent)] = []) throws
        -> [(seconds: Double, message: MIDIMessage)] {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bendsynth-recorder-\(getpid())-\(UUID()).mid").path
        defer { unlink(path) }
        let recorder = try MIDIRecorder(path: path, rate: rate, pitchMap: .linear)
        for (frame, source, event) in events { recorder.observe(event, source: source, streamFrame: frame) }
        try recorder.close()
        for (frame, source, event) in after { recorder.observe(event, source: source, streamFrame: frame) }
        try recorder.close()
        let file = try StandardMIDIFile.parse([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
        return file.timedMessages()
    }

    /// Two sources' touches through one recorder: the set-up first, one channel each,
    /// every note ended at the close, nothing after it.
    func testEverySourceIsEncodedAndTheCloseEndsEveryNote() throws {
        let out = try record([(100, 0, .touch(id: 1, phase: .down, x: 0.5, y: 1)),
                              (90, 1, .touch(id: 1, phase: .down, x: 0.75, y: 1))],
                             after: [(300, 0, .touch(id: 2, phase: .down, x: 0.5, y: 1))])
        XCTAssertEqual(Array(out.prefix(3)).map(\.message), [.controlChange(0, 101, 0), .controlChange(0, 100, 6), .controlChange(0, 6, 15)])
        let notes = out.filter { $0.message.kind == 0x90 }
        XCTAssertEqual(notes.map(\.message.channel), [1, 2])
        XCTAssertEqual(notes.map(\.seconds), notes.map(\.seconds).sorted(), "times never go backwards")
        XCTAssertEqual(out.filter { $0.message.kind == 0x80 }.map(\.message.channel).sorted(), [1, 2])
        XCTAssertEqual(out.last?.message.kind, 0x80, "nothing after the close")
        XCTAssertEqual(out.filter { $0.message.kind == 0x90 }.count, 2, "the event after the close is not written")
    }

    /// A script's events are seen as they are queued, long before they sound; a live
    /// touch seen after them but sounding first is written at its own time, before them
    /// (not pushed after the script's last queued event).
    func testATouchIsWrittenWhenItSoundsNotWhenItIsSeen() throws {
        let script: UInt32 = 0, live: UInt32 = 1
        let out = try record([(48_000, script, .touch(id: 1, phase: .down, x: 0.5, y: 1)),
                              (96_000, script, .touch(id: 1, phase: .up, x: 0, y: 0)),
                              (4_800, live, .touch(id: 1, phase: .down, x: 0.75, y: 1)),
                              (9_600, live, .touch(id: 1, phase: .up, x: 0, y: 0))])
        let ons = out.filter { $0.message.kind == 0x90 }, offs = out.filter { $0.message.kind == 0x80 }
        // From the first event (frame 4800): the live note 0…0.1 s, the script's 0.9…1.9 s.
        XCTAssertEqual(ons.map(\.message.data1), [76, 69], "the live touch (a fifth up) first")
        XCTAssertEqual(ons.map(\.seconds), [0, 0.9], accuracy: 0.001)
        XCTAssertEqual(offs.map(\.seconds), [0.1, 1.9], accuracy: 0.001)
    }
}

private func XCTAssertEqual(_ a: [Double], _ b: [Double], accuracy: Double, _ message: String = "",
                            file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual(a.count, b.count, "\(a) vs \(b) \(message)", file: file, line: line)
    for (x, y) in zip(a, b) { XCTAssertEqual(x, y, accuracy: accuracy, "\(a) vs \(b) \(message)", file: file, line: line) }
}
