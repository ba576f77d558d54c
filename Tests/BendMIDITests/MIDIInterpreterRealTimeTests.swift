// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendMIDI
import BendTestSupport
import CAllocCounter
import XCTest

/// The interpreter on a render thread (an LV2 plugin's run): the real-time entry points
/// give the same touches as the others for a random stream of every kind of message (an
/// MCM, RPNs, tuning SysEx, pedal, pressure, CC 74, resets), and allocate nothing.
final class MIDIInterpreterRealTimeTests: XCTestCase {
    /// Messages as a host hands them: one whole message (or SysEx) each.
    func randomMessages(_ count: Int, seed: UInt64) -> [[UInt8]] {
        var rng = SplitMix(seed: seed)
        func r(_ n: UInt64) -> UInt8 { UInt8(rng.next() % n) }
        var out: [[UInt8]] = [[0xB0, 101, 0], [0xB0, 100, 6], [0xB0, 6, 7]]  // an MCM: lower zone, 7 members
        for _ in 0..<count {
            let ch = r(16)
            switch rng.next() % 14 {
            case 0, 1, 2: out.append([0x90 | ch, 40 + r(40), 1 + r(126)])
            case 3, 4: out.append([0x80 | ch, 40 + r(40), 64])
            case 5: out.append([0xE0 | ch, r(128), r(128)])
            case 6: out.append([0xD0 | ch, r(128)])
            case 7: out.append([0xB0 | ch, 74, r(128)])
            case 8: out.append([0xB0 | ch, 64, r(2) * 127])
            case 9: out += [[0xB0 | ch, 101, 0], [0xB0 | ch, 100, r(3)], [0xB0 | ch, 6, r(128)], [0xB0 | ch, 38, r(100)]]
            case 10: out.append([0xF0, 0x7F, 0x7F, 0x08, 0x08, 0x03, 0x7F, 0x7F] + (0..<12).map { _ in r(128) } + [0xF7])
            case 11: out.append([0xF0, 0x7F, 0x7F, 0x04, 0x03, r(128), r(128), 0xF7])
            case 12: out.append([0xB0 | ch, [120, 121, 123, 10][Int(r(4))], r(128)])
            default: out.append(rng.next() % 50 == 0 ? [0xFF] : [0xA0 | ch, 40 + r(40), r(128)])
            }
        }
        return out
    }

    func testRealTimeEntryPointsGiveTheSameTouchesAndAllocateNothing() {
        let messages = randomMessages(5_000, seed: 5)
        var plain = MIDIInterpreter(toneNote: 60)
        var expected: [ControlEvent] = []
        for m in messages {
            if m[0] == 0xF0 { plain.interpret(sysEx: m) { expected.append($0) } } else {
                plain.interpret(MIDIMessage(status: m[0], data1: m.count > 1 ? m[1] : 0, data2: m.count > 2 ? m[2] : 0)) { expected.append($0) }
            }
        }
        plain.releaseAll { expected.append($0) }

        // The real-time side writes into a buffer made beforehand (as a plugin's ring).
        let events = UnsafeMutablePointer<ControlEvent>.allocate(capacity: expected.count + 1000)
        defer { events.deallocate() }
        var n = 0
        var live = MIDIInterpreter(toneNote: 60)
        let flat = messages.flatMap { $0 }, lengths = messages.map(\.count)
        alloc_counter_reset()
        flat.withUnsafeBytes { bytes in
            lengths.withUnsafeBufferPointer { counts in
                alloc_counter_watch_this_thread(1)
                var at = 0, i = 0
                while i < counts.count {
                    live.interpretInRealTime(bytes: UnsafeRawBufferPointer(rebasing: bytes[at..<(at + counts[i])])) { events[n] = $0; n += 1 }
                    at += counts[i]
                    i += 1
                }
                live.releaseAllInRealTime { events[n] = $0; n += 1 }
                alloc_counter_watch_this_thread(0)
            }
        }
        XCTAssertEqual(alloc_counter_count(), 0, "heap allocations while interpreting")
        XCTAssertGreaterThan(expected.count, 5_000)
        XCTAssertEqual(Array(UnsafeBufferPointer(start: events, count: n)), expected)
    }

    func testToneNoteAndDefaultBendRangeMoveHeldNotes() {
        var m = MIDIInterpreter(toneNote: 69)
        var out: [ControlEvent] = []
        // (The real-time setters' closures are checked: they write to a buffer.)
        let moved = UnsafeMutablePointer<ControlEvent>.allocate(capacity: 8)
        defer { moved.deallocate() }
        var n = 0
        m.interpret(.noteOn(0, 69, 127)) { out.append($0) }
        m.interpret(.pitchBend(0, 16383)) { out.append($0) }  // +2 semitones (±2)
        m.setDefaultBendRange(12) { moved[n] = $0; n += 1 }     // +12·8191/8192
        m.setToneNote(57) { moved[n] = $0; n += 1 }             // an octave more
        out += UnsafeBufferPointer(start: moved, count: n)
        let ratios = out.compactMap { e -> Double? in if case let .pitched(_, _, r, _, _) = e { r } else { nil } }
        XCTAssertEqual(ratios.count, 4)
        XCTAssertEqual(ratios[1], pow(2, 2 * 8191 / 8192 / 12), accuracy: 1e-12)
        XCTAssertEqual(ratios[2], pow(2, 12 * 8191 / 8192 / 12), accuracy: 1e-12)
        XCTAssertEqual(ratios[3], pow(2, (12 * 8191 / 8192 + 12) / 12), accuracy: 1e-12)
        // A channel RPN 0 has set keeps its own range.
        out = []
        m.interpret(.controlChange(1, 101, 0)) { _ in }
        m.interpret(.controlChange(1, 100, 0)) { _ in }
        m.interpret(.controlChange(1, 6, 1)) { _ in }
        m.interpret(.noteOn(1, 57, 127)) { _ in }
        m.interpret(.pitchBend(1, 16383)) { out.append($0) }
        n = 0
        m.setDefaultBendRange(24) { moved[n] = $0; n += 1 }
        XCTAssertEqual(n, 1, "only the note on channel 0 moves")
        if case let .pitched(_, _, r, _, _) = out.last! { XCTAssertEqual(r, pow(2, 8191 / 8192 / 12), accuracy: 1e-12) } else { XCTFail() }
    }
}
