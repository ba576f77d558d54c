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

    /// With a scale, each key column plays a step: t, g and v the root, the columns to
    /// their left the steps below, to their right those above.
    func testWithAScaleTheLetterKeysPlayItsSteps() throws {
        let points = TerminalPad.keyPoints(onStepsOf: major, pitchMap: map)
        func cents(_ key: Unicode.Scalar) throws -> Double {
            let p = try XCTUnwrap(points[Int(key.value) - 0x61])
            return major.cents(ratio: map.ratio(x: p.x))
        }
        for (row, steps) in [("wertyuiop", Array(-3...5)), ("asdfghjkl", Array(-4...4)), ("zxcvbnm", Array(-3...3))] {
            for (key, step) in zip(row.unicodeScalars, steps) {
                XCTAssertEqual(try cents(key), major.scale.cents(ofStep: step), accuracy: 1e-6, "key \(key) plays step \(step)")
            }
        }
        XCTAssertEqual(try cents("a"), -700, accuracy: 1e-6)  // D4 under the root A4
        XCTAssertNil(points[Int(("q" as Unicode.Scalar).value) - 0x61], "q quits")
        // The pad's touch goes down there, at the row's loudness.
        var pad = TerminalPad(geometry: pad80x24)
        pad.keyPoints = points
        XCTAssertEqual(pad.handle(char("a")), [.touch(id: TerminalPad.touchID(forKey: "a"), phase: .down, x: points[0]!.x, y: 0.6)])
    }

    /// Held neighbouring keys (a, s, d: a step apart) show three whole labels; the newest
    /// on its marker's row.
    func testLabelsOfNeighbouringKeysNeverOverlap() throws {
        var pad = TerminalPad(geometry: pad80x24)
        pad.keyPoints = TerminalPad.keyPoints(onStepsOf: major, pitchMap: map)
        _ = pad.handle([char("a"), char("s"), char("d")])
        let lines = TerminalScreen.lines(status(pad, tuning: major), columns: 80, rows: 24)
        let padRows = lines[(pad80x24.top - 1)..<(pad80x24.top - 1 + pad80x24.height)]
        for label in ["D4+0¢ g0.60", "E4+0¢ g0.60", "F#4+0¢ g0.60"] {
            XCTAssertEqual(padRows.filter { $0.contains(label) }.count, 1, "\(label) whole, once:\n\(padRows.joined(separator: "\n"))")
        }
        let row = pad80x24.cell(x: 0, y: 0.6).row
        XCTAssertTrue(lines[row - 1].contains("D F#4+0¢ g0.60"), "the newest (d) beside its marker: \(lines[row - 1])")
        for key in ["A", "S", "D"] { XCTAssertTrue(lines[row - 1].contains(key), "marker \(key) shown") }
        XCTAssertTrue(lines[21].contains("A D4+0¢ g0.60  D F#4+0¢ g0.60  S E4+0¢ g0.60"), lines[21])
    }

    /// A whole row of keys held: every marker shows; every label shown is whole (as many
    /// "¢" and gains on the pad as whole labels), the rest are left out.
    func testAWholeRowHeldLeavesNoCutLabel() throws {
        var pad = TerminalPad(geometry: pad80x24)
        pad.keyPoints = TerminalPad.keyPoints(onStepsOf: major, pitchMap: map)
        _ = pad.handle("asdfghjkl".unicodeScalars.map { char($0) })
        let s = status(pad, tuning: major)
        let lines = TerminalScreen.lines(s, columns: 80, rows: 24)
        let padText = lines[(pad80x24.top - 1)..<(pad80x24.top - 1 + pad80x24.height)].joined(separator: "\n")
        let labels = s.touches.map { major.pitchText(ratio: $0.ratio) + " g0.60" }
        let whole = labels.reduce(0) { $0 + padText.components(separatedBy: $1).count - 1 }
        XCTAssertGreaterThanOrEqual(whole, 3, padText)
        XCTAssertEqual(padText.components(separatedBy: "¢").count - 1, whole, padText)
        XCTAssertEqual(padText.components(separatedBy: "g0.60").count - 1, whole, padText)
        let row = lines[pad80x24.cell(x: 0, y: 0.6).row - 1]
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
