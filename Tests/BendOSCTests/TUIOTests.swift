// SPDX-License-Identifier: GPL-3.0-or-later
import BendOSC
import XCTest

/// TUIO 1.1 cursors and 2.0 pointers into touches (LOG.md RW-47, RW-48).
final class TUIOTests: XCTestCase {
    /// RW-48: a 1 ms tap, then a late bundle (fseq 3 after 4) that must not end
    /// cursor 1: exactly two starts, cursor 1 never restarted, nothing held at the end.
    func testOneMillisecondTapAndLateBundle() throws {
        let log = EventLog()
        let osc = log.interpreter()
        let names = try RealWorldOSC.names(prefix: "RW-48_")
        XCTAssertEqual(names.count, 6)
        var t: UInt64 = 0
        var heldAfter: [Int] = []
        for (i, name) in names.enumerated() {
            t += i == 1 ? 1_000_000 : 16_000_000
            osc.feed(try RealWorldOSC.datagram(name), now: t)
            heldAfter.append(osc.activeTouches)
        }
        XCTAssertEqual(heldAfter, [1, 0, 1, 1, 1, 0], "b4 (late) leaves cursor 1 down")
        XCTAssertEqual(log.starts, 2)
        XCTAssertEqual(osc.lateFrames, 1)
        XCTAssertEqual(log.faults, [])
        // Cursor 0 at (0.40584895, 1 − 0.52068514); cursor 1 moved by b5 to x 0.43755.
        guard case let .touch(id0, .down, x0, y0) = log.events[0] else { return XCTFail("\(log.events)") }
        XCTAssertEqual(x0, 0.40584895, accuracy: 1e-6)
        XCTAssertEqual(y0, 1 - 0.52068514, accuracy: 1e-6)
        XCTAssertEqual(log.events[1], .touch(id: id0, phase: .up, x: 0, y: 0))
        let moves = log.events.compactMap { e -> Double? in if case let .touch(_, .move, x, _) = e { return x } else { return nil } }
        XCTAssertEqual(moves.count, 1)
        XCTAssertEqual(moves[0], Double(Float(bitPattern: 0x3ee00782)), accuracy: 1e-7)
        XCTAssertEqual(log.lines, [], "nothing to complain about")
    }

    /// RW-47: TUIO 2.0, the same pointer in two frames is one touch; the empty alive ends it.
    func testTUIO2PointerRepeatedIsOneTouch() throws {
        let log = EventLog()
        let osc = log.interpreter()
        var held: [Int] = []
        for name in try RealWorldOSC.names(prefix: "RW-47_") {
            osc.feed(try RealWorldOSC.datagram(name))
            held.append(osc.activeTouches)
        }
        XCTAssertEqual(held, [0, 1, 1, 0])
        XCTAssertEqual(log.starts, 1)
        XCTAssertEqual(log.faults, [])
        guard case let .touch(_, .down, x, y) = log.events[0] else { return XCTFail() }
        XCTAssertEqual(x, 0.409512, accuracy: 1e-6)
        XCTAssertEqual(y, 1 - 0.49871, accuracy: 1e-6)
    }

    /// Reordered and duplicated bundles: a duplicate changes nothing, an old one is dropped.
    func testDuplicateAndReorderedBundles() {
        let log = EventLog()
        let osc = log.interpreter()
        let b1 = tuio(alive: [5], sets: [(5, 0.2, 0.1)], fseq: 10)
        let b2 = tuio(alive: [5, 6], sets: [(5, 0.3, 0.1), (6, 0.8, 0.9)], fseq: 11)
        let b3 = tuio(alive: [6], sets: [], fseq: 12)
        for b in [b1, b2, b2, b1, b3, b2, b1, b3] { osc.feed(b) }
        XCTAssertEqual(log.starts, 2)
        XCTAssertEqual(osc.activeTouches, 1, "session 6 alone")
        XCTAssertEqual(osc.lateFrames, 3)
        XCTAssertEqual(log.faults, [])
        // A tracker restart (fseq far lower) is not late.
        osc.feed(tuio(alive: [], sets: [], fseq: 1, source: "other"))
        osc.feed(tuio(alive: [], sets: [], fseq: 1))
        XCTAssertEqual(osc.activeTouches, 1, "fseq 1 after 12 is within 100: late")
        osc.feed(tuio(alive: [], sets: [], fseq: 500))
        osc.feed(tuio(alive: [], sets: [], fseq: 2))
        XCTAssertEqual(osc.activeTouches, 0)
        XCTAssertEqual(osc.lateFrames, 4)
    }

    /// A `set` for a session the bundle's alive does not list starts nothing (TUIO 1.1
    /// and 2.0): the alive message is the frame's list of sessions.
    func testSetOutsideAliveStartsNothing() {
        let log = EventLog()
        let osc = log.interpreter()
        osc.feed(tuio(alive: [1], sets: [(1, 0.2, 0.2), (2, 0.8, 0.8)], fseq: 1))
        XCTAssertEqual(osc.activeTouches, 1)
        XCTAssertEqual(log.starts, 1)
        osc.feed(OSCEncoder.bundle([
            OSCEncoder.encode("/tuio2/frm", [.int32(1), .int64(0), .int32(0), .string("t")])!,
            OSCEncoder.encode("/tuio2/ptr", [.int32(7), .int32(0), .int32(0), .float(0.5), .float(0.5), .float(0)])!,
            OSCEncoder.encode("/tuio2/alv", [])!,
        ]))
        XCTAssertEqual(osc.activeTouches, 1)
        XCTAssertEqual(log.starts, 1)
        XCTAssertEqual(log.faults, [])
    }

    /// Two senders with the same session ids are two namespaces; a silent one times out.
    func testSendersAreNamespacesAndSilenceEndsTouches() {
        let log = EventLog()
        let osc = log.interpreter(timeout: 2)
        osc.feed(tuio(alive: [1], sets: [(1, 0.25, 0.5)], fseq: 1), from: "10.0.0.2:3333", now: 0)
        osc.feed(tuio(alive: [1], sets: [(1, 0.75, 0.5)], fseq: 1), from: "10.0.0.3:3333", now: 1_000_000_000)
        XCTAssertEqual(osc.activeTouches, 2)
        XCTAssertEqual(Set(log.down.values.map(\.x)), [0.25, 0.75])
        osc.expire(now: 1_999_999_999)
        XCTAssertEqual(osc.activeTouches, 2)
        osc.expire(now: 2_000_000_000)
        XCTAssertEqual(osc.activeTouches(of: "10.0.0.2:3333"), 0)
        XCTAssertEqual(osc.activeTouches(of: "10.0.0.3:3333"), 1)
        XCTAssertEqual(log.lines, ["osc: 10.0.0.2:3333 silent for 2.0 s: ending its 1 touch"])
        osc.expire(now: 3_000_000_000)
        XCTAssertEqual(osc.activeTouches, 0)
        XCTAssertEqual(log.faults, [])
    }

    /// Objects and blobs are accepted and ignored; a cursor `set` with wrong types is
    /// logged once and dropped.
    func testOtherProfilesIgnoredWrongTypesLoggedOnce() {
        let log = EventLog()
        let osc = log.interpreter()
        let obj = OSCEncoder.bundle([
            OSCEncoder.encode("/tuio/2Dobj", [.string("alive"), .int32(3)])!,
            OSCEncoder.encode("/tuio/2Dobj", [.string("set"), .int32(3), .int32(1), .float(0.5), .float(0.5), .float(0), .float(0), .float(0), .float(0), .float(0), .float(0)])!,
            OSCEncoder.encode("/tuio/2Dblb", [.string("fseq"), .int32(9)])!,
        ])
        osc.feed(obj)
        XCTAssertEqual(log.events, [])
        let bad = OSCEncoder.bundle([OSCEncoder.encode("/tuio/2Dcur", [.string("set"), .string("x"), .float(0.5), .float(0.5)])!])
        osc.feed(bad); osc.feed(bad)
        XCTAssertEqual(log.events, [])
        XCTAssertEqual(osc.wrongTypes, 2)
        XCTAssertEqual(log.lines.count, 1)
        XCTAssertTrue(log.lines[0].hasPrefix("osc: /tuio/2Dcur set from 127.0.0.1:5000: expected ,sifffff"), log.lines[0])
    }
}

/// A TUIO 1.1 /tuio/2Dcur bundle.
func tuio(alive: [Int32], sets: [(Int32, Float, Float)], fseq: Int32, source: String? = nil) -> [UInt8] {
    var elements: [[UInt8]] = []
    if let source { elements.append(OSCEncoder.encode("/tuio/2Dcur", [.string("source"), .string(source)])!) }
    elements.append(OSCEncoder.encode("/tuio/2Dcur", [.string("alive")] + alive.map { .int32($0) })!)
    for (s, x, y) in sets {
        elements.append(OSCEncoder.encode("/tuio/2Dcur", [.string("set"), .int32(s), .float(x), .float(y), .float(0), .float(0), .float(0)])!)
    }
    elements.append(OSCEncoder.encode("/tuio/2Dcur", [.string("fseq"), .int32(fseq)])!)
    return OSCEncoder.bundle(elements)
}
