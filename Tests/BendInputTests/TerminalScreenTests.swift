// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendInput
import XCTest

final class TerminalScreenTests: XCTestCase {
    func status(_ touches: [TerminalPad.Touch]) -> PadStatus {
        var s = PadStatus()
        s.touches = PadStatus.touches(touches, pitchMap: .linear)
        s.pan = -0.5
        s.peak = 0.25  // −12.04 dBFS
        s.voices = 2
        s.xruns = 3
        s.device = "default · 48000 Hz · 2 ch · period 256 × 3"
        return s
    }

    /// A key whose note lies beyond the pad (major's top row over A4: p is step 15, B6)
    /// sits at the right edge, its label to its left.
    func testALabelAtTheRightEdgeGoesLeft() {
        var pad = TerminalPad(geometry: pad80x24)
        pad.keys = KeyLayout(tuning: Tuning(scale: Scale.builtIn("major")!), pitchMap: .exponential(octaves: 2))
        _ = pad.handle([char("p")])
        let lines = TerminalScreen.lines(status(pad.touches), columns: 80, rows: 24)
        let p = pad80x24.cell(x: 1, y: KeyLayout.gain)
        XCTAssertTrue(lines[p.row - 1].contains("×4.49 g0.80 P"), "text goes left at the right edge: \(lines[p.row - 1])")
    }

    func testMarkerAtTheTouchCell() {
        let g = pad80x24
        var pad = TerminalPad(geometry: g)
        _ = pad.handle([mouse(.press, .left, 30, 7), char("p")])
        let lines = TerminalScreen.lines(status(pad.touches), columns: 80, rows: 24)
        XCTAssertEqual(lines.count, 24)
        XCTAssertTrue(lines.allSatisfy { $0.count == 80 })
        func at(_ column: Int, _ row: Int) -> Character {
            let line = lines[row - 1]
            return line[line.index(line.startIndex, offsetBy: column - 1)]
        }
        XCTAssertEqual(at(30, 7), "●")
        // Mouse at column 30: x = 28/77 → ratio 0.727…, row 7: y = 1 − 4/17 = 0.765.
        XCTAssertTrue(lines[6].contains("● ×0.73 g0.76"), lines[6])
        let p = g.cell(x: 0.75, y: 0.8)  // key p: D#5, 6 semitones over A4, at gain 0.8
        XCTAssertEqual(at(p.column, p.row), "P")
        XCTAssertTrue(lines[p.row - 1].contains("P ×1.41 g0.80"), "the key's label beside it: \(lines[p.row - 1])")
        XCTAssertTrue(lines[0].hasPrefix("bendsynth · default · 48000 Hz"))
        XCTAssertEqual(at(1, 2), "┌")
        XCTAssertEqual(at(80, 21), "┘")
        XCTAssertTrue(lines[21].contains("● ×0.73 g0.76  P ×1.41 g0.80"), lines[21])
        XCTAssertTrue(lines[22].contains("R -0.50"), lines[22])
        XCTAssertTrue(lines[22].contains("-12.0 dBFS"), lines[22])
        XCTAssertTrue(lines[22].contains("voices 2  xruns 3"), lines[22])
        XCTAssertTrue(lines[23].hasPrefix("mouse · keys on/off · space sustain · ←/→ tilt"), lines[23])
        XCTAssertTrue(lines[23].contains("q quit"))
        // Pan −0.5 puts the pan marker a quarter of the way along its 15 cells; −12 dBFS
        // lights 12 of the 15 meter cells (4 dB each from −60).
        let panBar = lines[22].dropFirst("pan L".count).prefix(15)
        XCTAssertEqual(panBar.firstIndex(of: "●").map { panBar.distance(from: panBar.startIndex, to: $0) }, 4)
        XCTAssertTrue(lines[22].contains("  ▮▮▮▮▮▮▮▮▮▮▮▮··· -12.0 dBFS"), lines[22])
        // Ratio labels in the top border for the linear map.
        XCTAssertTrue(lines[1].contains("×0.5") && lines[1].contains("×1 ") && lines[1].contains("×1.5"), lines[1])
    }

    func testLevelMeterAndTinyTerminal() {
        var s = PadStatus()
        s.peak = 0
        XCTAssertTrue(TerminalScreen.lines(s, columns: 100, rows: 10)[8].contains("-inf dBFS"))
        s.peak = 1.5
        XCTAssertTrue(TerminalScreen.lines(s, columns: 100, rows: 10)[8].contains("CLIP"))
        s.peak = 1
        XCTAssertTrue(TerminalScreen.lines(s, columns: 100, rows: 10)[8].contains("▮▮▮▮▮▮▮▮▮▮▮▮▮▮▮ 0.0 dBFS"))
        let small = TerminalScreen.lines(s, columns: 20, rows: 5)
        XCTAssertEqual(small.count, 5)
        XCTAssertTrue(small[0].hasPrefix("enlarge the terminal"))
    }

    func testFrameIsANSIAndModesPair() {
        let frame = TerminalScreen.frame(PadStatus(), columns: 80, rows: 24)
        XCTAssertTrue(frame.hasPrefix("\u{1B}[1;1H"))
        XCTAssertTrue(frame.contains("\u{1B}[24;1H"))
        XCTAssertTrue(frame.hasSuffix("\u{1B}[0m"))
        for mode in ["1049", "1000", "1002", "1006", "1015", "2004"] {
            XCTAssertTrue(TerminalScreen.enter.contains("\u{1B}[?\(mode)h"), mode)
            XCTAssertTrue(TerminalScreen.exit.contains("\u{1B}[?\(mode)l"), mode)
        }
        XCTAssertTrue(TerminalScreen.enter.contains("\u{1B}[>11u\u{1B}[?u"))
        XCTAssertTrue(TerminalScreen.exit.hasPrefix("\u{1B}[<u"))
    }
}
