// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendPeers
import XCTest

/// The instrument's side of peers' input, without sockets: namespaces, limits, release.
final class PeerTouchTranslatorTests: XCTestCase {
    let a = PeerInfo(id: PeerID(0xa), name: "A", address: "10.0.0.1:1")
    let b = PeerInfo(id: PeerID(0xb), name: "", address: "10.0.0.2:2")

    func run(_ t: inout PeerTouchTranslator, _ m: PeerMessage, from p: PeerInfo, at now: UInt64 = 5_000_000_000) -> (events: [ControlEvent], notices: [String]) {
        var events: [ControlEvent] = [], notices: [String] = []
        t.receive(m, from: p, at: now, emit: { events.append($0) }, notice: { notices.append($0) })
        return (events, notices)
    }

    func testEachPeersIdsAreTheirOwnAndAPeerThatGoesReleasesItsTouches() {
        var t = PeerTouchTranslator()
        XCTAssertEqual(run(&t, .touch(id: 1, phase: .down, x: 0.25, y: 1, timestamp: 0), from: a).events, [.touch(id: 1, phase: .down, x: 0.25, y: 1)])
        XCTAssertEqual(run(&t, .touch(id: 1, phase: .down, x: 0.75, y: 1, timestamp: 0), from: b).events, [.touch(id: 2, phase: .down, x: 0.75, y: 1)])
        XCTAssertEqual(run(&t, .touch(id: 1, phase: .move, x: 0.5, y: 0.5, timestamp: 0), from: b).events, [.touch(id: 2, phase: .move, x: 0.5, y: 0.5)])
        XCTAssertEqual(run(&t, .touch(id: 1, phase: .up, x: 0, y: 0, timestamp: 0), from: a).events, [.touch(id: 1, phase: .up, x: 0, y: 0)])
        XCTAssertEqual(run(&t, .touch(id: 9, phase: .move, x: 0.5, y: 0.5, timestamp: 0), from: a).events, [], "a move of no touch")
        // A second DOWN of a held id ends the old touch first.
        XCTAssertEqual(run(&t, .touch(id: 1, phase: .down, x: 0.1, y: 0.1, timestamp: 0), from: b).events,
                       [.touch(id: 2, phase: .up, x: 0, y: 0), .touch(id: 3, phase: .down, x: Double(Float(0.1)), y: Double(Float(0.1)))])
        _ = run(&t, .touch(id: 7, phase: .down, x: 0, y: 0, timestamp: 0), from: b)
        XCTAssertEqual(t.touches(of: b.id), [3, 4])
        var released: [ControlEvent] = []
        t.release(b.id) { released.append($0) }
        XCTAssertEqual(released, [.touch(id: 3, phase: .up, x: 0, y: 0), .touch(id: 4, phase: .up, x: 0, y: 0)])
        XCTAssertEqual(t.touches(of: b.id), [])
    }

    func testTouchesAtOnceAndTheRateAreLimitedButAnUpAlwaysPasses() {
        var limits = PeerLimits()
        limits.touchesAtOnce = 2
        limits.eventsPerSecond = 4
        var t = PeerTouchTranslator(limits: limits)
        _ = run(&t, .touch(id: 1, phase: .down, x: 0, y: 0, timestamp: 0), from: a)
        _ = run(&t, .touch(id: 2, phase: .down, x: 0, y: 0, timestamp: 0), from: a)
        let third = run(&t, .touch(id: 3, phase: .down, x: 0, y: 0, timestamp: 0), from: a)
        XCTAssertEqual(third.events, [])
        XCTAssertEqual(third.notices, ["'A' (10.0.0.1:1): more than 2 touches at once; touch dropped"])
        _ = run(&t, .tilt(value: 0.5, timestamp: 0), from: a)                // the 4th token
        let over = run(&t, .tilt(value: 0.5, timestamp: 0), from: a)
        XCTAssertEqual(over.events, [])
        XCTAssertEqual(over.notices, ["'A' (10.0.0.1:1): over 4 events/s; events dropped"])
        XCTAssertEqual(run(&t, .tilt(value: 0.5, timestamp: 0), from: a).notices, [], "noticed once a second")
        XCTAssertEqual(run(&t, .touch(id: 1, phase: .up, x: 0, y: 0, timestamp: 0), from: a).events, [.touch(id: 1, phase: .up, x: 0, y: 0)])
        XCTAssertEqual(run(&t, .tilt(value: -1, timestamp: 0), from: a, at: 5_250_000_000).events, [.tilt(-1)], "a token back after 1/4 s")
    }

    func testTextIsShownWholeUpToTheOneLimitAndCutAtACharacterAfterIt() {
        XCTAssertEqual(PeerLimits().textBytes, PeerProtocol.maxTextBytes)
        XCTAssertEqual(PeerProtocol.maxTextBytes, 200, "the limit an instrument showed before there was one constant")
        var t = PeerTouchTranslator()
        let fits = String(repeating: "x", count: 200)
        XCTAssertEqual(run(&t, .text(fits), from: a).notices, ["message from A: \(fits)"])
        XCTAssertEqual(run(&t, .text("hi"), from: b).notices, ["message from 10.0.0.2:2: hi"], "no name: the address")
        let wide = String(repeating: "é", count: 101)   // 202 bytes
        XCTAssertEqual(run(&t, .text(wide), from: a).notices, ["message from A: \(String(repeating: "é", count: 100))… (cut: 202 bytes, limit 200)"])
    }

    func testLocalEventsGoOutClampedDownsAndUpsReliably() {
        func f(_ e: ControlEvent) -> (PeerMessage, SendMode) { PeerMessage.forwarding(e, timestamp: 7)! }
        XCTAssertEqual(f(.touch(id: 3, phase: .down, x: 1.5, y: .nan)).0, .touch(id: 3, phase: .down, x: 1, y: 0, timestamp: 7))
        XCTAssertEqual(f(.touch(id: 3, phase: .down, x: 0, y: 0)).1, .reliable)
        XCTAssertEqual(f(.touch(id: 3, phase: .move, x: -1, y: 0.5)).0, .touch(id: 3, phase: .move, x: 0, y: 0.5, timestamp: 7))
        XCTAssertEqual(f(.touch(id: 3, phase: .move, x: 0, y: 0)).1, .unreliable)
        XCTAssertEqual(f(.touch(id: 3, phase: .up, x: 0, y: 0)).1, .reliable)
        XCTAssertEqual(f(.tilt(-3)).0, .tilt(value: -1, timestamp: 7))
        XCTAssertEqual(f(.tilt(0.5)).1, .unreliable)
        // A pitched touch (a MIDI file's) goes as the linear map's x (ratio/2) and its gain as y.
        XCTAssertEqual(f(.pitched(id: 4, phase: .down, ratio: 1.5, gain: 0.25, y: 0.9)).0, .touch(id: 4, phase: .down, x: 0.75, y: 0.25, timestamp: 7))
        XCTAssertEqual(f(.pitched(id: 4, phase: .move, ratio: 6, gain: 1, y: 0)).0, .touch(id: 4, phase: .move, x: 1, y: 1, timestamp: 7))
        XCTAssertEqual(f(.pitched(id: 4, phase: .move, ratio: 6, gain: 1, y: 0)).1, .unreliable)
    }
}
