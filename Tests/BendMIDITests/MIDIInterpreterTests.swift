// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import Foundation
import BendMIDI
import XCTest

/// Runs bytes through an interpreter and keeps what it says.
struct Interpreted {
    var interpreter: MIDIInterpreter
    var events: [ControlEvent] = []

    init(toneNote: Int = 69) { interpreter = MIDIInterpreter(toneNote: Double(toneNote)) }

    mutating func feed(_ bytes: [UInt8]) {
        var out: [ControlEvent] = []
        interpreter.receive(bytes, frame: 0) { e, _ in out.append(e) }
        events += out
    }

    /// The sustain changes, in order.
    var sustains: [Bool] { events.compactMap { if case let .sustain(on) = $0 { on } else { nil } } }

    /// The last event's ratio, gain and y (a down or move).
    var last: (ratio: Double, gain: Double, y: Double)? {
        guard case let .pitched(_, _, r, g, y)? = events.last else { return nil }
        return (r, g, y)
    }

    var phases: [TouchPhase] { events.compactMap { $0.touchPhase?.phase } }
}

/// Cents between two ratios.
func cents(_ a: Double, _ b: Double) -> Double { 1200 * log2(a / b) }

final class MIDIInterpreterTests: XCTestCase {
    /// CC 10 (pan) on any channel is the tilt, the inverse of what MPE out sends: a take
    /// recorded with --record-midi keeps its pan when rendered back.
    func testPanIsTheTiltTheEncoderSent() {
        for (channel, value, tilt) in [(0, 0, -1.0), (0, 127, 1.0), (5, 64, 1.0 / 127), (15, 32, -63.0 / 127)] as [(UInt8, UInt8, Double)] {
            var m = Interpreted()
            m.feed([0xB0 | channel, 10, value])
            guard case let .tilt(t)? = m.events.last else { return XCTFail("CC 10 \(value) on channel \(channel): \(m.events)") }
            XCTAssertEqual(t, tilt, accuracy: 1e-12, "CC 10 \(value) on channel \(channel)")
        }
        for tilt in stride(from: -1.0, through: 1.0, by: 0.125) {
            var encoder = MPEEncoder(toneNote: 69, pitchMap: .linear)
            var sent: [UInt8] = []
            encoder.encode(.tilt(tilt), source: 0) { m in sent += [m.status, m.data1, m.data2] }
            var m = Interpreted()
            m.feed(sent)
            guard case let .tilt(back)? = m.events.last else { return XCTFail("tilt \(tilt): \(m.events)") }
            XCTAssertEqual(back, tilt, accuracy: 1.0 / 127, "tilt \(tilt) through MPE out and back")
        }
    }

    /// Through a scale (`--scale edo:17`, 12 keys a period from A4): each key at its step,
    /// a bend moving continuously from it in 12-TET semitones (a sweep's ratios rise
    /// steadily, each the key's times 2^(bend/12)), tuning messages on top; a key the
    /// map leaves out makes no touch.
    func testNotesThroughAScaleBendContinuouslyIn12TETSemitones() throws {
        var m = Interpreted()
        m.interpreter = MIDIInterpreter(keys: KeyboardTuning(toneNote: 69, scale: Scale.edo(17), rootHz: 440))
        m.feed([0x90, 72, 100])
        let step = 4 * 1200.0 / 17  // key 72, 3 semitones up: the step nearest 300 cents (4.25 steps)
        XCTAssertEqual(cents(m.last!.ratio, 1), step, accuracy: 1e-9, "key 72: step 4 of 17")
        var previous = 0.0
        for value in stride(from: 8192, through: 16383, by: 97) {
            m.feed([0xE0, UInt8(value & 127), UInt8(value >> 7)])
            let bend = Double(value - 8192) / 8192 * 2
            XCTAssertEqual(cents(m.last!.ratio, 1), step + 100 * bend, accuracy: 1e-9)
            XCTAssertGreaterThan(m.last!.ratio, previous)
            previous = m.last!.ratio
        }
        m.feed([0xE0, 0, 0x40, 0xB0, 101, 0, 0xB0, 100, 1, 0xB0, 6, 0x50])  // bend back, RPN 1: +25 cents
        XCTAssertEqual(cents(m.last!.ratio, 1), step + 25, accuracy: 1e-9)

        let dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/kbm")
        let white = try KeyboardMap.parse([UInt8](try Data(contentsOf: dir.appendingPathComponent("whitekeys-c261.kbm"))), path: "w.kbm")
        var w = Interpreted()
        w.interpreter = MIDIInterpreter(keys: KeyboardTuning(toneNote: 69, scale: Scale.edo(7), keyboard: white))
        w.feed([0x90, 61, 100, 0x80, 61, 0])
        XCTAssertTrue(w.events.isEmpty, "C#: not mapped, no touch: \(w.events)")
        XCTAssertEqual(w.interpreter.unmappedNotes, 1)
        w.feed([0x90, 62, 100])
        XCTAssertEqual(w.last!.ratio * 440, 261.625565 * pow(2, 1.0 / 7), accuracy: 1e-9)
    }

    func testNotesToRatioRelativeToTheToneNote() {
        // (tone note, note, ratio): not clamped to the pad's 2 or 4.
        let table: [(Int, UInt8, Double)] = [
            (69, 69, 1), (69, 81, 2), (69, 57, 0.5), (69, 105, 8), (69, 127, pow(2, 58 / 12)),
            (60, 72, 2), (60, 67, pow(2, 7 / 12)), (0, 12, 2), (127, 115, 0.5),
        ]
        for (tone, note, ratio) in table {
            var m = Interpreted(toneNote: tone)
            m.feed([0x90, note, 100])
            XCTAssertEqual(m.last!.ratio, ratio, accuracy: ratio * 1e-12, "tone \(tone), note \(note)")
        }
    }

    func testPlainMIDIBendDefaultsToTwoSemitonesAndFollowsRPN0() {
        // (RPN 0 bytes, bend value, semitones)
        let table: [([UInt8], Int, Double)] = [
            ([], 8192, 0), ([], 16383, 2 * 8191 / 8192), ([], 0, -2), ([], 4096, -1), ([], 12288, 1),
            ([0xB3, 101, 0, 100, 0, 6, 12], 12288, 6),
            ([0xB3, 101, 0, 100, 0, 6, 12, 38, 50], 0, -12.5),
            ([0xB3, 101, 0, 100, 0, 6, 24, 101, 127, 100, 127, 6, 2], 0, -24),  // null RPN: the 2 goes nowhere
            ([0xB3, 99, 0, 98, 0, 6, 7], 0, -2),                                // an NRPN is not RPN 0
        ]
        for (setup, bend, semis) in table {
            var m = Interpreted()
            m.feed(setup)
            m.feed([0x93, 69, 100, 0xE3, UInt8(bend & 127), UInt8(bend >> 7)])
            XCTAssertEqual(m.phases, [.down, .move], "\(setup)")
            XCTAssertEqual(cents(m.last!.ratio, pow(2, semis / 12)), 0, accuracy: 1e-9, "\(setup) bend \(bend)")
        }
        // Bend on another channel does not move the note.
        var m = Interpreted()
        m.feed([0x90, 69, 100, 0xE1, 0, 0x7F])
        XCTAssertEqual(m.phases, [.down])
    }

    func testMPEZonesMemberRangeAndMasterBend() {
        var m = Interpreted()
        // MCM: lower zone, 15 members.
        m.feed([0xB0, 101, 0, 100, 6, 6, 15])
        XCTAssertEqual(m.interpreter.zones, MPEZones(lowerMembers: 15))
        // A member note bent +1/4 of ±48 = +12; the master bends +1/2 of ±2 = +1.
        m.feed([0xE4, 0, 0x50, 0x94, 69, 100])
        XCTAssertEqual(cents(m.last!.ratio, 2), 0, accuracy: 1e-9)
        m.feed([0xE0, 0, 0x60])
        XCTAssertEqual(m.phases, [.down, .move])
        XCTAssertEqual(cents(m.last!.ratio, pow(2, 13 / 12)), 0, accuracy: 1e-9)
        // RPN 0 on a member after the MCM: ±12.
        m.feed([0xB4, 101, 0, 100, 0, 6, 12])
        XCTAssertEqual(cents(m.last!.ratio, pow(2, 4 / 12)), 0, accuracy: 1e-9)

        // Upper zone: MCM on channel 16 with 4 members (channels 12…15) shrinks a lower
        // zone of 15 to 10; a lower zone of 15 again removes the upper zone.
        var z = Interpreted()
        z.feed([0xB0, 101, 0, 100, 6, 6, 15, 0xBF, 101, 0, 100, 6, 6, 4])
        XCTAssertEqual(z.interpreter.zones, MPEZones(lowerMembers: 10, upperMembers: 4))
        z.feed([0xB0, 101, 0, 100, 6, 6, 15])
        XCTAssertEqual(z.interpreter.zones, MPEZones(lowerMembers: 15))
        var u = Interpreted()
        u.feed([0xB0, 101, 0, 100, 6, 6, 8, 0xBF, 101, 0, 100, 6, 6, 4])
        XCTAssertEqual(u.interpreter.zones, MPEZones(lowerMembers: 8, upperMembers: 4))
        XCTAssertEqual(u.interpreter.zones.master(of: 11), 15)
        XCTAssertEqual(u.interpreter.zones.master(of: 8), 0)
        XCTAssertNil(u.interpreter.zones.master(of: 9))
        // The upper zone's master bend moves its members' notes, not the lower zone's.
        u.feed([0x9C, 69, 100, 0x92, 69, 100, 0xEF, 0x7F, 0x7F])  // channels 13 and 3
        XCTAssertEqual(u.phases, [.down, .down, .move])
        XCTAssertEqual(cents(u.last!.ratio, pow(2, 2 * 8191 / 8192 / 12)), 0, accuracy: 1e-9)
        // A channel outside both zones keeps ±2.
        u.feed([0xE9, 0, 0, 0x99, 69, 100])
        XCTAssertEqual(cents(u.last!.ratio, pow(2, -2 / 12)), 0, accuracy: 1e-9)
        // MCM with 0 members turns a zone off; RPN 6 on another channel is no MCM.
        u.feed([0xBF, 101, 0, 100, 6, 6, 0, 0xB5, 101, 0, 100, 6, 6, 3])
        XCTAssertEqual(u.interpreter.zones, MPEZones(lowerMembers: 8))
    }

    func testVelocityPressureAndCC74() {
        var m = Interpreted()
        m.feed([0xB0, 101, 0, 100, 6, 6, 15])
        m.feed([0xD1, 0, 0xB1, 74, 100, 0x91, 60, 127])  // pressure before the note-on is not its gain
        XCTAssertEqual(m.last!.gain, 1)
        XCTAssertEqual(m.last!.y, 100.0 / 127)
        m.feed([0xD1, 32])
        XCTAssertEqual(m.last!.gain, 32.0 / 127, accuracy: 1e-12)
        m.feed([0xB1, 74, 10])
        XCTAssertEqual(m.last!.y, 10.0 / 127, accuracy: 1e-12)
        XCTAssertEqual(m.last!.gain, 32.0 / 127, accuracy: 1e-12)
        // Plain MIDI: gain = velocity/127 (linear), y = velocity/127 with no CC 74 yet.
        var p = Interpreted()
        p.feed([0x95, 60, 64])
        XCTAssertEqual(p.last!.gain, 64.0 / 127, accuracy: 1e-12)
        XCTAssertEqual(p.last!.y, 64.0 / 127, accuracy: 1e-12)
        p.feed([0xA5, 60, 127])  // poly pressure
        XCTAssertEqual(p.last!.gain, 1)
    }

    func testReleasesNoteOffVelocityZeroAllNotesOffResetSustain() {
        var m = Interpreted()
        m.feed([0x90, 60, 100, 62, 100, 0x80, 60, 0, 0x90, 62, 0])
        XCTAssertEqual(m.phases, [.down, .down, .up, .up])
        XCTAssertEqual(m.interpreter.heldNotes, 0)
        // All notes off (CC 123) and all sound off (CC 120), on any channel, are the panic:
        // every channel's notes end and the pedal lets go; `panics` counts each.
        m.feed([0xB3, 64, 127, 0x90, 60, 100, 0x91, 60, 100, 0xB0, 123, 0])
        XCTAssertEqual(m.interpreter.heldNotes, 0, "CC 123 on channel 1 ends channel 2's note too")
        XCTAssertEqual(m.sustains.last, false, "and lets the pedal go")
        XCTAssertEqual(m.interpreter.panics, 1)
        m.feed([0x92, 61, 100, 0xBF, 120, 0])
        XCTAssertEqual(m.interpreter.heldNotes, 0, "CC 120 on channel 16")
        XCTAssertEqual(m.interpreter.panics, 2)
        m.feed([0x90, 60, 100, 0x92, 61, 100, 0xFF])          // system reset: everything
        XCTAssertEqual(m.interpreter.heldNotes, 0)
        XCTAssertEqual(m.phases.filter { $0 == .up }.count, m.phases.filter { $0 == .down }.count)
        // The sustain pedal is the source's sustain control (the port holds the notes):
        // `.sustain(true)` as the first pedal goes down, `.sustain(false)` as the last lifts.
        var s = Interpreted()
        s.feed([0xB0, 64, 127, 0x90, 60, 100, 0x80, 60, 0, 0xB0, 64, 100])
        XCTAssertEqual(s.sustains, [true], "a second pedal-down value changes nothing")
        XCTAssertEqual(s.phases, [.down, .up], "the note-off goes on to the port, which holds it")
        s.feed([0xB0, 64, 0])
        XCTAssertEqual(s.sustains, [true, false])
        // Two channels' pedals (an MPE master's and a member's): on until both lift.
        s.feed([0xB0, 101, 0, 100, 6, 6, 15, 0xBF, 64, 127, 0xB3, 64, 127, 0xBF, 64, 0])
        XCTAssertEqual(s.sustains, [true, false, true])
        s.feed([0xB3, 64, 0])
        XCTAssertEqual(s.sustains, [true, false, true, false])
        // Reset-all-controllers and a system reset lift the pedal too.
        s.feed([0xB0, 64, 127, 0xB0, 121, 0, 0xB1, 64, 127, 0xFF])
        XCTAssertEqual(s.sustains, [true, false, true, false, true, false, true, false])
    }

    func testTouchIDsAreDistinctAndARepeatedNoteOnEndsTheOld() {
        var m = Interpreted()
        m.feed([0x90, 60, 100, 0x91, 60, 100, 0x90, 60, 90])
        let ids = m.events.map { $0.touchPhase! }
        XCTAssertEqual(ids.map(\.phase), [.down, .down, .up, .down])
        XCTAssertNotEqual(ids[0].id, ids[1].id)
        XCTAssertEqual(ids[2].id, ids[0].id)
        XCTAssertNotEqual(ids[3].id, ids[0].id)
        XCTAssertNotEqual(ids[3].id, ids[1].id)
    }

    func testStrayBytesAreCountedNotInterpreted() {
        var m = Interpreted()
        m.feed([0x3C, 0x64, 0xF4, 0x90, 60, 0xB0, 7, 1, 0xC0, 5])
        XCTAssertTrue(m.events.isEmpty)
        XCTAssertEqual(m.interpreter.strayBytes, 4)
        XCTAssertEqual(m.interpreter.unusedMessages, 2)  // CC 7, program change
    }
}
