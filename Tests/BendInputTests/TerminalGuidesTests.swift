// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendInput
import XCTest

/// The pad with a scale: guide lines on the scale's steps, note names or step numbers
/// in the top border, and each touch's nearest step and offset in cents.
final class TerminalGuidesTests: XCTestCase {
    func lines(_ tuning: Tuning, map: PitchMap, touches: [(x: Double, y: Double)] = []) -> [String] {
        var s = PadStatus()
        s.pitchMap = map
        s.tuning = tuning
        s.guides = tuning.guides(pitchMap: map)
        s.touches = touches.map { PadStatus.Touch(id: 0, x: $0.x, y: $0.y, ratio: map.ratio(x: $0.x), gain: $0.y, label: "●") }
        return TerminalScreen.lines(s, columns: 80, rows: 24)
    }

    func at(_ lines: [String], _ column: Int, _ row: Int) -> Character {
        let line = lines[row - 1]
        return line[line.index(line.startIndex, offsetBy: column - 1)]
    }

    /// Chromatic over two octaves around A4: 23 guide lines, one on every step's cell
    /// (roots solid), named in the border; a touch 30 cents above A#4 reads "A#4+30¢".
    func testChromaticGuidesAndTouchOffset() {
        let map = PitchMap.exponential(octaves: 2)
        let tuning = Tuning(scale: Scale.builtIn("chromatic")!)
        let x = 0.5 + 130.0 / 2400
        let out = lines(tuning, map: map, touches: [(x, 0.5)])
        let geometry = TerminalScreen.layout(columns: 80, rows: 24)
        for g in tuning.guides(pitchMap: map) {
            let column = geometry.cell(x: g.x, y: 0).column
            XCTAssertEqual(at(out, column, 4), g.degree == 0 ? "│" : "┆", "step \(g.step) at column \(column)")
        }
        let root = geometry.cell(x: 0.5, y: 0).column
        XCTAssertEqual(at(out, root, 2), "A")
        XCTAssertTrue(out[1].contains("C#"), out[1])
        XCTAssertTrue(out[21].contains("● A#4+30¢ g0.50"), out[21])
        // Without guides the old grid: lines at ¼, ½, ¾ only.
        var plain = PadStatus()
        plain.pitchMap = map
        let grid = TerminalScreen.lines(plain, columns: 80, rows: 24)
        XCTAssertEqual(grid[3].filter { $0 == "┆" }.count, 3)
        XCTAssertEqual(out[3].filter { $0 == "┆" || $0 == "│" }.count, 23 + 2)  // + the border
    }

    /// A 13-step Bohlen–Pierce-like scale (period 3/1): step numbers, not note names.
    func testNonTwelveScaleShowsStepNumbers() throws {
        var text = "BP\n13\n"
        for k in 1...12 { text += " \(1901.955 * Double(k) / 13)\n" }
        text += " 3/1\n"
        let tuning = Tuning(scale: try ScalaFile.parse(Array(text.utf8), path: "bp.scl"))
        let out = lines(tuning, map: .exponential(octaves: 2),
                        touches: [(0.5 + (1901.955 / 13 * 2 + 10) / 2400, 0.5)])
        XCTAssertTrue(out[21].contains("● 2+10¢"), out[21])
        XCTAssertFalse(out[1].contains("A#"))
    }
}
