// SPDX-License-Identifier: GPL-3.0-or-later
import BendMIDI
import XCTest

final class MIDIStreamParserTests: XCTestCase {
    private func parse(_ bytes: [UInt8]) -> (messages: [MIDIMessage], stray: Int) {
        var p = MIDIStreamParser()
        var out: [MIDIMessage] = []
        p.parse(bytes) { out.append($0) }
        return (out, p.strayBytes)
    }

    func testRunningStatusAndRealTimeInsideAMessage() {
        let r = parse([0x90, 60, 100, 62, 0xF8, 90, 0xE1, 0, 0x40])
        XCTAssertEqual(r.messages, [.noteOn(0, 60, 100), MIDIMessage(status: 0xF8), .noteOn(0, 62, 90), .pitchBend(1, 8192)])
        XCTAssertEqual(r.stray, 0)
    }

    func testStrayBytesCountedAndSkipped() {
        // Data with no status (2), a note cut by a new status (1 data byte), SysEx skipped,
        // an undefined status (0xF4), a stray SysEx end.
        let r = parse([0x40, 0x41, 0x90, 60, 0xB0, 7, 100, 0xF0, 1, 2, 3, 0xF7, 0xF4, 0xF7, 0x80, 60, 0])
        XCTAssertEqual(r.messages, [.controlChange(0, 7, 100), .noteOff(0, 60, 0)])
        XCTAssertEqual(r.stray, 2 + 1 + 1 + 1)
    }
}
