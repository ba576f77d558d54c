// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendInput
import XCTest

/// The terminal pad shows every touch the instrument plays: the other sources' touches
/// (through a `TouchBoard` observing every port) marked by source, "+N" for what does
/// not fit.
final class OtherTouchesScreenTests: XCTestCase {
    func testTheBoardFollowsEverySourcesTouches() {
        let board = TouchBoard(pitchMap: .linear)
        board.mark(source: 1, as: "W")
        board.mark(source: 2, as: "M")
        board.observe(.touch(id: 5, phase: .down, x: 0.25, y: 0.5), source: 1, streamFrame: 0)
        board.observe(.touch(id: 5, phase: .move, x: 0.3, y: 0.5), source: 1, streamFrame: 0)
        board.observe(.pitched(id: 1, phase: .down, ratio: 1.5, gain: 0.8, y: 0.2), source: 2, streamFrame: 0)
        board.observe(.touch(id: 0, phase: .down, x: 0.9, y: 0.9), source: 0, streamFrame: 0)
        board.observe(.tilt(0.5), source: 1, streamFrame: 0)
        XCTAssertEqual(board.touches(excluding: 0).map { "\($0.mark) \($0.x) \($0.y)" }, ["W 0.3 0.5", "M 0.75 0.8"])
        // An up queued ahead (a script's) takes effect at its frame.
        board.observe(.touch(id: 5, phase: .up, x: 0, y: 0), source: 1, streamFrame: 480)
        XCTAssertEqual(board.touches(excluding: 0, at: 479).map(\.mark), ["W", "M"])
        XCTAssertEqual(board.touches(excluding: 0, at: 480).map(\.mark), ["M"])
        XCTAssertEqual(board.touches(excluding: nil).count, 2)
    }

    /// A script stopped early (`ControlPort.releaseAll` cuts at the stop's frame): its
    /// touches queued to start after the stop are never shown, and one queued to end
    /// later ends at the stop; another source's touches stay.
    func testTheBoardDropsWhatAStoppedScriptHadQueued() {
        let board = TouchBoard(pitchMap: .linear)
        board.observe(.touch(id: 1, phase: .down, x: 0.25, y: 0.5), source: 1, streamFrame: 100)
        board.observe(.touch(id: 1, phase: .up, x: 0, y: 0), source: 1, streamFrame: 90_000)
        board.observe(.touch(id: 2, phase: .down, x: 0.5, y: 0.5), source: 1, streamFrame: 50_000)
        board.observe(.touch(id: 3, phase: .down, x: 0.75, y: 0.5), source: 2, streamFrame: 200)
        board.cut(source: 1, atFrame: 1_000)
        board.observe(.touch(id: 2, phase: .up, x: 0, y: 0), source: 1, streamFrame: 1_000)  // the stop's up
        XCTAssertEqual(board.touches(excluding: nil, at: 999).map(\.id), [1, 3])
        XCTAssertEqual(board.touches(excluding: nil, at: 1_000).map(\.id), [3], "touch 1 ends at the stop")
        XCTAssertEqual(board.touches(excluding: nil, at: 60_000).map(\.id), [3], "touch 2 never starts")
    }

    func testOtherTouchesAreDrawnWithTheirMarkAndWhatDoesNotFitIsCounted() {
        var s = PadStatus()
        s.touches = [PadStatus.Touch(id: 0, x: 0.5, y: 0.5, ratio: 1, gain: 0.5, label: "●")]
        s.others = [PadStatus.Touch(id: 7, x: 0.25, y: 0.75, ratio: 0.5, gain: 0.75, label: "W")]
        var lines = TerminalScreen.lines(s, columns: 80, rows: 24)
        let pad = TerminalScreen.layout(columns: 80, rows: 24)
        let cell = pad.cell(x: 0.25, y: 0.75)
        XCTAssertEqual(Array(lines[cell.row - 1])[cell.column - 1], "W", "the web touch's marker on the pad")
        XCTAssertTrue(lines[21].hasPrefix("● ×1.00 g0.50  W ×0.50 g0.75"), lines[21])
        // Twelve web touches on 80 columns: as many as fit, then "+N".
        s.others = (0..<12).map { PadStatus.Touch(id: UInt32($0), x: 0.05 * Double($0), y: 0.5, ratio: 0.1 * Double($0), gain: 0.5, label: "W") }
        lines = TerminalScreen.lines(s, columns: 80, rows: 24)
        let list = lines[21].trimmingCharacters(in: .whitespaces)
        let shown = list.components(separatedBy: "  ").filter { !$0.hasPrefix("+") }.count
        XCTAssertTrue(list.hasSuffix("+\(13 - shown)"), list)
        XCTAssertLessThan(shown, 13)
        XCTAssertLessThanOrEqual(list.count, 80)
    }
}
