// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendOSC
import XCTest

/// bendsynth's own addresses (docs/OSC.md).
final class OSCAddressSpaceTests: XCTestCase {
    func testTouchMovesAndReleases() {
        let log = EventLog()
        let osc = log.interpreter()
        osc.feed(osc_("/bendsynth/touch", .int32(4), .float(0.25), .float(0.5)))
        osc.feed(osc_("/bendsynth/touch", .int32(4), .float(0.75), .float(1.5)))   // y clamped
        osc.feed(osc_("/bendsynth/touch", .float(9), .double(0.5), .int32(1)))     // Pd: all floats
        XCTAssertEqual(osc.activeTouches, 2)
        osc.feed(osc_("/bendsynth/release", .int32(4)))
        osc.feed(osc_("/bendsynth/release", .int32(4)))                            // twice: nothing
        osc.feed(osc_("/bendsynth/release", .float(9)))
        XCTAssertEqual(osc.activeTouches, 0)
        XCTAssertEqual(log.events, [
            .touch(id: 1, phase: .down, x: 0.25, y: 0.5), .touch(id: 1, phase: .move, x: 0.75, y: 1),
            .touch(id: 2, phase: .down, x: 0.5, y: 1), .touch(id: 1, phase: .up, x: 0, y: 0), .touch(id: 2, phase: .up, x: 0, y: 0),
        ])
        XCTAssertEqual(log.faults, [])
    }

    /// Wrong types: dropped, one line per address however many arrive.
    func testWrongTypesAreLoggedOncePerAddress() {
        let log = EventLog()
        let osc = log.interpreter()
        for _ in 0..<5 {
            osc.feed(osc_("/bendsynth/touch", .string("1"), .float(0.5), .float(0.5)))
            osc.feed(osc_("/bendsynth/touch", .int32(1), .float(0.5)))
            osc.feed(osc_("/bendsynth/tilt", .string("left")))
            osc.feed(osc_("/bendsynth/touch", .int32(-1), .float(0.5), .float(0.5)))
        }
        XCTAssertEqual(log.events, [])
        XCTAssertEqual(osc.wrongTypes, 20)
        XCTAssertEqual(log.lines, [
            "osc: /bendsynth/touch from 127.0.0.1:5000: expected ,iff (id 0…2147483647, x 0…1, y 0…1), got ,sff; dropped (logged once for this address)",
            "osc: /bendsynth/tilt from 127.0.0.1:5000: expected ,f (tilt −1…1), got ,s; dropped (logged once for this address)",
        ])
    }

    /// `/bendsynth/send ,isf`: the sender's own touch's send to an effect, clamped to 0…1;
    /// a touch that is not down sends nothing; a bus that is no bus is a wrong type.
    func testSendSetsATouchsEffectSend() {
        let log = EventLog()
        let osc = log.interpreter()
        osc.feed(osc_("/bendsynth/touch", .int32(4), .float(0.25), .float(0.5)))
        osc.feed(osc_("/bendsynth/send", .int32(4), .string("reverb"), .float(0.5)))
        osc.feed(osc_("/bendsynth/send", .int32(4), .string("chorus"), .float(3)))
        osc.feed(osc_("/bendsynth/send", .int32(5), .string("reverb"), .float(1)))   // not down: nothing
        osc.feed(osc_("/bendsynth/send", .int32(4), .string("echo"), .float(1)))
        XCTAssertEqual(log.events, [
            .touch(id: 1, phase: .down, x: 0.25, y: 0.5), .send(id: 1, bus: .reverb, level: 0.5), .send(id: 1, bus: .chorus, level: 1),
        ])
        XCTAssertEqual(log.lines, [
            "osc: /bendsynth/send from 127.0.0.1:5000: expected ,isf (id, \"reverb\", \"delay\" or \"chorus\", level 0…1), got ,isf; dropped (logged once for this address)",
        ])
        XCTAssertEqual(log.faults, [])
    }

    func testTiltAndAccelerometer() {
        let log = EventLog()
        let osc = log.interpreter()
        osc.feed(osc_("/bendsynth/tilt", .float(-3)))
        XCTAssertEqual(log.tilt, -1)
        osc.feed(osc_("/accxyz", .float(0.6), .float(0), .float(0.8)))
        XCTAssertEqual(log.tilt!, 0.6, accuracy: 1e-6)
        osc.feed(osc_("/accxyz", .float(-2), .float(0), .float(0)))
        XCTAssertEqual(log.tilt!, -1, accuracy: 1e-9)
        let before = log.events.count
        osc.feed(osc_("/accxyz", .float(0), .float(0), .float(0)))                 // free fall: no direction
        XCTAssertEqual(log.events.count, before)
    }

    /// `/bendsynth/voices` is answered with voices, OSC touches, the sender's touches.
    func testVoicesQueryReplies() throws {
        let log = EventLog()
        let osc = log.interpreter()
        osc.feed(osc_("/bendsynth/touch", .int32(1), .float(0.5), .float(0.5)), from: "a:1")
        osc.feed(osc_("/bendsynth/touch", .int32(1), .float(0.5), .float(0.5)), from: "b:2")
        osc.feed(osc_("/bendsynth/touch", .int32(2), .float(0.5), .float(0.5)), from: "b:2")
        let replies = osc.feed(osc_("/bendsynth/voices"), from: "a:1")
        XCTAssertEqual(replies.count, 1)
        XCTAssertEqual(try OSCPacket.decode(replies[0]), .message(OSCMessage(address: "/bendsynth/voices", types: "iii", arguments: [.int32(7), .int32(3), .int32(1)])))
        // Without a type tag (RW-45's form) it is the same query.
        XCTAssertEqual(osc.feed(Array("/bendsynth/voices".utf8) + [0, 0, 0], from: "a:1"), replies)
    }

    /// At most `maxSenders` senders (a new one takes the place of the longest silent
    /// sender holding no touch) and `maxTouchesPerSender` touches per sender: further new
    /// ones are ignored (logged), the ones held play on and end.
    func testSendersAndTouchesAreCapped() {
        let log = EventLog()
        let osc = log.interpreter()
        for n in 0...OSCInterpreter.maxSenders {
            osc.feed(osc_("/bendsynth/touch", .int32(1), .float(0.5), .float(0.5)), from: "10.0.0.1:\(6000 + n)")
        }
        XCTAssertEqual(osc.activeTouches, OSCInterpreter.maxSenders, "the 65th sender is not heard while every one holds a touch")
        XCTAssertEqual(log.lines, ["osc: more than 64 senders hold touches; ignoring 10.0.0.1:6064 (and other new ones) until one lets go"])
        osc.feed(osc_("/bendsynth/release", .int32(1)), from: "10.0.0.1:6000")
        XCTAssertEqual(osc.activeTouches, OSCInterpreter.maxSenders - 1, "a sender held plays on")
        osc.feed(osc_("/bendsynth/touch", .int32(1), .float(0.5), .float(0.5)), from: "10.0.0.1:6064")
        XCTAssertEqual(osc.activeTouches, OSCInterpreter.maxSenders, "the 65th takes the place of the one that let go")

        let many = EventLog()
        let one = many.interpreter()
        for id in 0...Int32(OSCInterpreter.maxTouchesPerSender) {
            one.feed(osc_("/bendsynth/touch", .int32(id), .float(0.5), .float(0.5)))
        }
        XCTAssertEqual(one.activeTouches, OSCInterpreter.maxTouchesPerSender)
        XCTAssertEqual(many.starts, OSCInterpreter.maxTouchesPerSender)
        XCTAssertEqual(many.lines, ["osc: 127.0.0.1:5000 holds 64 touches (its most at once); ignoring its new ones"])
        one.feed(osc_("/bendsynth/release", .int32(Int32(OSCInterpreter.maxTouchesPerSender))))   // never started: nothing
        one.endAll()
        XCTAssertEqual(one.activeTouches, 0)
        XCTAssertEqual(many.faults, [])
    }

    /// XY pads: z = 1 touching, z = 0 released; a position alone makes no sound.
    func testXYPad() {
        let log = EventLog()
        let osc = log.interpreter()
        let ms: UInt64 = 1_000_000
        osc.feed(osc_("/bendsynth/xy/1", .float(0.2), .float(0.3)), now: 0)
        XCTAssertEqual(log.events, [], "not touching")
        osc.feed(osc_("/bendsynth/xy/1/z", .float(1)), now: 100 * ms)              // position 100 ms old: wait
        XCTAssertEqual(log.events, [])
        osc.feed(osc_("/bendsynth/xy/1", .float(0.4), .float(0.6)), now: 101 * ms)
        osc.feed(osc_("/bendsynth/xy/1", .float(0.5), .float(0.6)), now: 102 * ms)
        osc.feed(osc_("/bendsynth/xy/1/z", .int32(0)), now: 103 * ms)
        osc.feed(osc_("/bendsynth/xy/1", .float(0.9), .float(0.9)), now: 104 * ms)  // released: silent
        osc.feed(osc_("/bendsynth/xy/1/z", .float(1)), now: 110 * ms)              // 6 ms old: starts there
        osc.feed(osc_("/bendsynth/xy/2", .float(0.1), .float(0.1), .float(1)), now: 111 * ms)
        osc.feed(osc_("/bendsynth/xy/2", .float(0.1), .float(0.1), .float(0)), now: 112 * ms)
        osc.feed(osc_("/bendsynth/xy/99", .float(0.1), .float(0.1)), now: 113 * ms)
        XCTAssertEqual(log.events, [
            .touch(id: 1, phase: .down, x: 0.4, y: 0.6), .touch(id: 1, phase: .move, x: 0.5, y: 0.6), .touch(id: 1, phase: .up, x: 0, y: 0),
            .touch(id: 2, phase: .down, x: 0.9, y: 0.9),
            .touch(id: 3, phase: .down, x: 0.1, y: 0.1), .touch(id: 3, phase: .up, x: 0, y: 0),
        ].map(round))
        XCTAssertEqual(osc.activeTouches, 1)
        XCTAssertEqual(log.lines.count, 1, "pad 99 is out of range")
        osc.expire(now: 3_000 * ms)
        XCTAssertEqual(osc.activeTouches, 1, "an XY pad sends only changes: a resting finger is no silent sender")
        osc.expire(now: 301_000 * ms)
        XCTAssertEqual(osc.activeTouches, 0, "ended by the rest timeout")
        XCTAssertEqual(log.faults, [])
    }

    /// Unknown addresses (RW-45's /info) are ignored without a word.
    func testUnknownAddressesAreIgnored() throws {
        let log = EventLog()
        let osc = log.interpreter()
        osc.feed(try RealWorldOSC.datagram("RW-45_osc_info_without_typetag.osc"))
        osc.feed(try RealWorldOSC.datagram("RW-45_osc_info_with_empty_typetag.control.osc"))
        XCTAssertEqual(osc.packets, 2)
        XCTAssertEqual(osc.malformed, 0)
        XCTAssertEqual(log.events, [])
        XCTAssertEqual(log.lines, [])
    }
}

/// Float32 values, as they travel, so expected events compare exactly.
private func round(_ e: ControlEvent) -> ControlEvent {
    guard case let .touch(id, p, x, y) = e else { return e }
    return .touch(id: id, phase: p, x: Double(Float(x)), y: Double(Float(y)))
}

func osc_(_ address: String, _ args: OSCValue...) -> [UInt8] { OSCEncoder.encode(address, args)! }
