// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendInput
import XCTest

/// The terminal pad's labels: each touch's says the note with its octave; labels of
/// neighbouring touches never overlap (the newer in place, the older a row away or left
/// out, the touch list naming every touch); with a scale the letter keys play its steps.
final class TerminalLabelTests: XCTestCase {
    let map = PitchMap.exponential(octaves: 2)
    let major = Tuning(scale: Scale.builtIn("major")!)

    func status(_ pad: TerminalPad, tuning: Tuning?) -> PadStatus {
        var s = PadStatus()
        s.pitchMap = map
        s.tuning = tuning
        s.guides = tuning?.guides(pitchMap: map) ?? []
        s.touches = PadStatus.touches(pad.touches, pitchMap: map)
        return s
    }

    /// Held neighbouring keys (a, s, d: a step apart on the major scale) show three whole
    /// labels; the newest on its marker's row.
    func testLabelsOfNeighbouringKeysNeverOverlap() throws {
        var pad = TerminalPad(geometry: pad80x24)
        pad.keys = KeyLayout(tuning: major, pitchMap: map)
        _ = pad.handle([char("a"), char("s"), char("d")])
        let lines = TerminalScreen.lines(status(pad, tuning: major), columns: 80, rows: 24)
        let padRows = lines[(pad80x24.top - 1)..<(pad80x24.top - 1 + pad80x24.height)]
        for label in ["A4+0¢ g0.80", "B4+0¢ g0.80", "C#5+0¢ g0.80"] {
            XCTAssertEqual(padRows.filter { $0.contains(label) }.count, 1, "\(label) whole, once:\n\(padRows.joined(separator: "\n"))")
        }
        let row = pad80x24.cell(x: 0, y: KeyLayout.gain).row
        XCTAssertTrue(lines[row - 1].contains("D C#5+0¢ g0.80"), "the newest (d) beside its marker: \(lines[row - 1])")
        for key in ["A", "S", "D"] { XCTAssertTrue(lines[row - 1].contains(key), "marker \(key) shown") }
        XCTAssertTrue(lines[21].contains("A A4+0¢ g0.80  D C#5+0¢ g0.80  S B4+0¢ g0.80"), lines[21])
    }

    /// A whole row of keys held: every marker shows; every label shown is whole (as many
    /// "¢" and gains on the pad as whole labels), the rest are left out.
    func testAWholeRowHeldLeavesNoCutLabel() throws {
        // The default keys: the white keys C4…D5, all inside the pad's A3…A5.
        var pad = TerminalPad(geometry: pad80x24)
        _ = pad.handle("asdfghjkl".unicodeScalars.map { char($0) })
        let s = status(pad, tuning: major)
        let lines = TerminalScreen.lines(s, columns: 80, rows: 24)
        let padText = lines[(pad80x24.top - 1)..<(pad80x24.top - 1 + pad80x24.height)].joined(separator: "\n")
        let labels = s.touches.map { major.pitchText(ratio: $0.ratio) + " g0.80" }
        let whole = labels.reduce(0) { $0 + padText.components(separatedBy: $1).count - 1 }
        XCTAssertGreaterThanOrEqual(whole, 3, padText)
        XCTAssertEqual(padText.components(separatedBy: "¢").count - 1, whole, padText)
        XCTAssertEqual(padText.components(separatedBy: "g0.80").count - 1, whole, padText)
        let row = lines[pad80x24.cell(x: 0, y: KeyLayout.gain).row - 1]
        for key in "ASDFGHJKL" { XCTAssertTrue(row.contains(key), "marker \(key): \(row)") }
    }

    /// The roots' guides name their octave; without a scale a touch shows its ratio and
    /// the nearest note.
    func testRootsNameTheirOctaveAndTheDefaultMapNamesNotes() throws {
        var s = PadStatus()
        s.pitchMap = map
        s.tuning = Tuning(scale: Scale.builtIn("chromatic")!)
        s.guides = s.tuning!.guides(pitchMap: map)
        let border = TerminalScreen.lines(s, columns: 80, rows: 24)[1]
        XCTAssertTrue(border.contains("A4"), border)
        XCTAssertFalse(border.contains("C#4") || border.contains("B4"), "other steps by name only: \(border)")

        var plain = PadStatus()
        plain.names = Tuning(scale: Scale.builtIn("chromatic")!, toneNote: 69)
        plain.touches = [PadStatus.Touch(id: 0, x: 0.54, y: 0.5, ratio: 1.08, gain: 0.5, label: "●")]
        let lines = TerminalScreen.lines(plain, columns: 80, rows: 24)
        XCTAssertTrue(lines[21].contains("● ×1.08 A#4+33¢ g0.50"), lines[21])
    }
}
