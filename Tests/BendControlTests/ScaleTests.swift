// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import XCTest

/// Built-in scales, steps, note names and the pad's guides.
final class ScaleTests: XCTestCase {
    func testBuiltIns() {
        XCTAssertEqual(Scale.builtIn("chromatic")?.degrees, (0..<12).map { Double($0) * 100 })
        XCTAssertEqual(Scale.builtIn("major")?.degrees, [0, 200, 400, 500, 700, 900, 1100])
        XCTAssertEqual(Scale.builtIn("minor")?.degrees, [0, 200, 300, 500, 700, 800, 1000])
        XCTAssertEqual(Scale.builtIn("pentatonic")?.degrees, [0, 200, 400, 700, 900])
        XCTAssertEqual(Scale.builtIn("whole-tone")?.degrees, [0, 200, 400, 600, 800, 1000])
        let edo19 = Scale.builtIn("edo:19")!
        XCTAssertEqual(edo19.degrees.count, 19)
        XCTAssertEqual(edo19.cents(ofStep: 1), 1200.0 / 19, accuracy: 1e-9)
        XCTAssertNil(Scale.builtIn("edo:0"))
        XCTAssertNil(Scale.builtIn("edo:x"))
        XCTAssertNil(Scale.builtIn("dorian-ish"))
    }

    /// Steps across periods, and the nearest step on each side of a midpoint.
    func testSteps() {
        let major = Scale.builtIn("major")!
        XCTAssertEqual(major.cents(ofStep: 7), 1200)
        XCTAssertEqual(major.cents(ofStep: -1), -100)
        XCTAssertEqual(major.cents(ofStep: -7), -1200)
        XCTAssertEqual(major.nearestStep(cents: 449), 2)  // E
        XCTAssertEqual(major.nearestStep(cents: 451), 3)  // F
        XCTAssertEqual(major.nearestStep(cents: 1160), 7)  // the next root
        XCTAssertEqual(major.nearestStep(cents: -60), -1)
        XCTAssertEqual(major.degree(ofStep: -1), 6)
        // Around every period boundary, including values that floor a hair below it.
        let bp = Scale(name: "bp", pitches: (1...13).map { 1901.955 * Double($0) / 13 })!
        for k in -40...40 {
            let c = bp.cents(ofStep: k)
            for d in [-1e-9, 0, 1e-9, c.nextDown, c.nextUp] {
                XCTAssertEqual(bp.nearestStep(cents: d == c.nextDown || d == c.nextUp ? d : c + d), k, "step \(k)")
            }
        }
    }

    /// Chromatic on a 2-octave exponential pad: a guide every 1/24 of the width, named
    /// from A (the tone's A4); a root a quarter tone up keeps step numbers.
    func testGuidesOnExponentialPad() {
        let tuning = Tuning(scale: Scale.builtIn("chromatic")!)
        let guides = tuning.guides(pitchMap: .exponential(octaves: 2))
        XCTAssertEqual(guides.count, 23)
        for g in guides { XCTAssertEqual(g.x, 0.5 + Double(g.step) / 24, accuracy: 1e-12) }
        XCTAssertEqual(guides.first { $0.step == 0 }?.label, "A")
        XCTAssertEqual(guides.first { $0.step == 3 }?.label, "C")
        XCTAssertEqual(guides.first { $0.step == -1 }?.label, "G#")
        let quarterUp = Tuning(scale: Scale.builtIn("chromatic")!, rootRatio: pow(2, 0.5 / 12))
        XCTAssertNil(quarterUp.noteNames)
        XCTAssertEqual(quarterUp.label(ofStep: 14), "2")
        // Centred on a root of 300 Hz: the root's guide in the middle.
        let root = Tuning(scale: Scale.builtIn("major")!, rootRatio: 300.0 / 440)
        let map = PitchMap.exponentialAround(octaves: 2, centre: 300.0 / 440)
        XCTAssertEqual(root.guides(pitchMap: map).first { $0.step == 0 }!.x, 0.5, accuracy: 1e-12)
        XCTAssertEqual(root.guides(pitchMap: map).count, 13)
    }

    func testNearestAndOffset() {
        let tuning = Tuning(scale: Scale.builtIn("chromatic")!)
        let (step, offset) = tuning.nearest(ratio: pow(2, 130.0 / 1200))
        XCTAssertEqual(step, 1)
        XCTAssertEqual(offset, 30, accuracy: 1e-9)
    }

    /// Note names with their octave, as `--scale-root` takes them; built-in names in any case.
    func testNoteNamesAndBuiltInNamesInAnyCase() {
        XCTAssertEqual(Tuning.midiNote(named: "C4"), 60)
        XCTAssertEqual(Tuning.midiNote(named: "a4"), 69)
        XCTAssertEqual(Tuning.midiNote(named: "A#3"), 58)
        XCTAssertEqual(Tuning.midiNote(named: "Bb2"), 46)
        XCTAssertEqual(Tuning.midiNote(named: "C-1"), 0)
        XCTAssertEqual(Tuning.midiNote(named: "G9"), 127)
        for bad in ["H4", "C", "C10", "Cb-1", "4", "", "C#x", "G#9"] { XCTAssertNil(Tuning.midiNote(named: bad), bad) }
        XCTAssertEqual(Tuning.noteName(midi: 69), "A4")
        XCTAssertEqual(Tuning.noteName(midi: 60.4), "C4")
        XCTAssertEqual(Scale.builtIn("Major"), Scale.builtIn("major"))
        XCTAssertEqual(Scale.builtIn("EDO:19"), Scale.builtIn("edo:19"))
        XCTAssertNil(Scale.builtIn("Lydian"))
    }
}
