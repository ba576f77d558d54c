// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendInput
import XCTest

/// A notice (a peer's message) takes the touch list's row while it is set.
final class PadNoticeScreenTests: XCTestCase {
    func testNoticeReplacesTheTouchListRowAndFrameColoursIt() {
        var s = PadStatus()
        s.device = "default · 48000 Hz"
        s.touches = [PadStatus.Touch(id: 1, x: 0.5, y: 0.5, ratio: 1, gain: 0.5, label: "A")]
        let plain = TerminalScreen.lines(s, columns: 80, rows: 24)
        XCTAssertTrue(plain[21].hasPrefix("A ×1.00 g0.50"), plain[21])
        s.notice = "message from Ada: play softer"
        let lines = TerminalScreen.lines(s, columns: 80, rows: 24)
        XCTAssertEqual(lines[21], "▸ message from Ada: play softer".padding(toLength: 80, withPad: " ", startingAt: 0))
        XCTAssertEqual(Array(lines[..<21]), Array(plain[..<21]), "the pad and the device line are unchanged")
        XCTAssertEqual(Array(lines[22...]), Array(plain[22...]))
        // Clipped to the row on a narrow terminal; yellow in the ANSI frame.
        s.notice = String(repeating: "x", count: 100)
        XCTAssertEqual(TerminalScreen.lines(s, columns: 30, rows: 10)[7], "▸ " + String(repeating: "x", count: 28))
        XCTAssertTrue(TerminalScreen.frame(s, columns: 80, rows: 24).contains("\u{1B}[0;33m▸ xxx"))
    }
}
