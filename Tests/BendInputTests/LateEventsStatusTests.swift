// SPDX-License-Identifier: GPL-3.0-or-later
import BendInput
import XCTest

/// The pad's status line counts input events played late (JACK MIDI in that came after
/// its period was rendered) beside the xruns, wide and narrow, and says nothing while
/// there are none.
final class LateEventsStatusTests: XCTestCase {
    func testTheStatusLineShowsLateEventsOnlyWhenThereAreAny() {
        var s = PadStatus()
        s.xruns = 2
        for columns in [100, 60] {
            s.lateEvents = 0
            var line = TerminalScreen.lines(s, columns: columns, rows: 24)[22]
            XCTAssertTrue(line.contains("xruns 2"), line)
            XCTAssertFalse(line.contains("late"), line)
            s.lateEvents = 3
            line = TerminalScreen.lines(s, columns: columns, rows: 24)[22]
            XCTAssertTrue(line.contains("xruns 2  late 3"), "\(columns) columns: \(line)")
        }
    }

    /// An output with no device (paced by the clock into a file, the null PCM) has no
    /// xruns to count: the line says nothing of them, wide or narrow (issue 38, item 9).
    func testNoXrunsAreShownWithoutADevice() {
        var s = PadStatus()
        s.voices = 2
        s.xruns = nil
        for columns in [100, 60] {
            let line = TerminalScreen.lines(s, columns: columns, rows: 24)[22]
            XCTAssertTrue(line.contains("voices 2"), line)
            XCTAssertFalse(line.contains("xruns"), "\(columns) columns: \(line)")
        }
    }
}
