// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendInput
import XCTest

/// The letter keys play notes of the active scale, each row a register: musical typing
/// for 12-note scales (white keys on the middle row, black keys above, the octave below
/// on the bottom row), rows a period apart for other sizes. Every key's pitch is measured
/// in cents against the note it names.
final class KeyLayoutTests: XCTestCase {
    let map = PitchMap.exponential(octaves: 2)

    /// Semitones of `key`'s pitch above the tone's pitch (A4 for the default tone).
    func semitones(_ layout: KeyLayout, _ key: Unicode.Scalar) throws -> Double {
        12 * log2(try XCTUnwrap(layout.key(key), "key \(key) plays").ratio)
    }

    /// Without a scale (chromatic on A4): a = C4 … l = D5, the black keys on w e t y u o p,
    /// the bottom row C3 … B3; r, i and q play nothing. Each within 1e-9 cent of its note.
    func testTheDefaultKeysAreAPianoOnTheChromaticScale() throws {
        let layout = KeyLayout(toneNote: 69, pitchMap: map)
        let notes: [(String, [Int])] = [
            ("asdfghjkl", [60, 62, 64, 65, 67, 69, 71, 72, 74]),
            ("wetyuop", [61, 63, 66, 68, 70, 73, 75]),
            ("zxcvbnm", [48, 50, 52, 53, 55, 57, 59]),
        ]
        for (row, midi) in notes {
            for (key, note) in zip(row.unicodeScalars, midi) {
                XCTAssertEqual(try semitones(layout, key) * 100, Double(note - 69) * 100, accuracy: 1e-9, "key \(key) plays \(Tuning.noteName(midi: Double(note)))")
            }
        }
        for silent in "riq1".unicodeScalars { XCTAssertNil(layout.key(silent), "\(silent) plays nothing") }
        XCTAssertEqual(layout.keys.compactMap { $0 }.count, 23)
        // Shown where the pad plays that pitch: h (A4) in the middle, z (C3) at the edge.
        XCTAssertEqual(try XCTUnwrap(layout.key("h")).x, 0.5, accuracy: 1e-12)
        XCTAssertEqual(try XCTUnwrap(layout.key("z")).x, 0)
    }

    /// The piano follows the root's pitch class: a tone at C4 (note 60) puts the root on a;
    /// one tuned 30 cents sharp of E4 keeps its own grid (the scale's notes, not A4 = 440).
    func testThePianoFollowsTheRoot() throws {
        let c = KeyLayout(toneNote: 60, pitchMap: map)
        XCTAssertEqual(try semitones(c, "a"), 0, accuracy: 1e-12)
        XCTAssertEqual(try semitones(c, "k"), 12, accuracy: 1e-12)
        let e = KeyLayout(toneNote: 64.3, pitchMap: map)
        XCTAssertEqual(try semitones(e, "d"), 0, accuracy: 1e-12, "d (E) plays the root")
        XCTAssertEqual(try semitones(e, "a"), -4, accuracy: 1e-12, "a is C, four steps below")
    }

    /// Major (7 steps): the middle row climbs from the root, the top row an octave higher,
    /// the bottom row an octave lower; every key on a step of the scale.
    func testOtherScalesPlayRowsAPeriodApart() throws {
        let major = Tuning(scale: Scale.builtIn("major")!)
        let layout = KeyLayout(tuning: major, pitchMap: map)
        let cents = [0.0, 200, 400, 500, 700, 900, 1100, 1200, 1400]
        for (key, c) in zip("asdfghjkl".unicodeScalars, cents) {
            XCTAssertEqual(try semitones(layout, key) * 100, c, accuracy: 1e-9, "key \(key)")
        }
        for (key, c) in zip("wertyuiop".unicodeScalars, cents) {
            XCTAssertEqual(try semitones(layout, key) * 100, c + 1200, accuracy: 1e-9, "key \(key)")
        }
        for (key, c) in zip("zxcvbnm".unicodeScalars, cents) {
            XCTAssertEqual(try semitones(layout, key) * 100, c - 1200, accuracy: 1e-9, "key \(key)")
        }
        // 19-EDO: a period is 19 steps; w is the root an octave up.
        let edo = KeyLayout(tuning: Tuning(scale: Scale.edo(19)), pitchMap: map)
        XCTAssertEqual(try semitones(edo, "s") * 100, 1200.0 / 19, accuracy: 1e-9)
        XCTAssertEqual(try semitones(edo, "w"), 12, accuracy: 1e-12)
    }

    /// A key plays its pitch as a ratio at the keys' gain, and the pad's status names it
    /// even beyond the pad's range (z: C3 on a pad from A3).
    func testAKeyIsAPitchedTouch() throws {
        var pad = TerminalPad(geometry: pad80x24)
        let events = pad.handle(char("z"))
        XCTAssertEqual(events, [.pitched(id: TerminalPad.touchID(forKey: "z"), phase: .down, ratio: pow(2, -21.0 / 12), gain: 0.8, y: 0.8)])
        let touch = try XCTUnwrap(PadStatus.touches(pad.touches, pitchMap: map).first)
        XCTAssertEqual(12 * log2(touch.ratio), -21, accuracy: 1e-9)
        XCTAssertEqual(touch.gain, 0.8)
    }
}
