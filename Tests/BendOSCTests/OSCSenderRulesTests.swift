// SPDX-License-Identifier: GPL-3.0-or-later
@testable import BendOSC
import XCTest

/// Silence and limits per sender (issue 16): a change-only sender's resting finger lives
/// on while a TUIO tracker's silence ends its touches; one sender's touches and flood
/// take nothing from another; repeated lines are limited and counted.
final class OSCSenderRulesTests: XCTestCase {
    private let s: UInt64 = 1_000_000_000

    /// TouchOSC and `/bendsynth/touch` send only changes: a resting finger stays through
    /// any silence shorter than the rest timeout and ends on its own touch-off; a TUIO
    /// tracker silent for 2 s (it would send alive/fseq every frame) ends at once.
    func testRestingFingerOfAChangeOnlySenderLivesTUIOSilenceEnds() {
        let log = EventLog()
        let osc = log.interpreter(timeout: 2)
        let phone = "10.0.0.5", pd = "10.0.0.7", tracker = "10.0.0.6"
        osc.feed(osc_("/bendsynth/xy/1", .float(0.25), .float(0.5), .float(1)), from: phone, now: 0)
        osc.feed(osc_("/bendsynth/touch", .int32(9), .float(0.5), .float(0.5)), from: pd, now: 0)
        osc.feed(tuio(alive: [1], sets: [(1, 0.75, 0.5)], fseq: 1), from: tracker, now: 0)
        XCTAssertEqual(osc.activeTouches, 3)
        for t in [2, 10, 60, 299] as [UInt64] { osc.expire(now: t * s) }
        XCTAssertEqual(osc.activeTouches(of: tracker), 0, "the tracker's heartbeat stopped: its touch ended after 2 s")
        XCTAssertEqual(osc.activeTouches(of: phone), 1, "the resting finger still sounds after 299 s")
        XCTAssertEqual(osc.activeTouches(of: pd), 1)
        XCTAssertEqual(log.lines, ["osc: 10.0.0.6 silent for 2.0 s: ending its 1 touch"])
        // Their own touch-off messages end them.
        osc.feed(osc_("/bendsynth/xy/1/z", .float(0)), from: phone, now: 299 * s)
        osc.feed(osc_("/bendsynth/release", .int32(9)), from: pd, now: 299 * s)
        XCTAssertEqual(osc.activeTouches, 0)
        XCTAssertEqual(log.faults, [])
    }

    /// After the rest timeout (300 s by default) a resting touch ends; the sender's next
    /// move starts it again as a new touch: an XY pad's position alone, a `/bendsynth/touch`.
    func testAfterTheRestTimeoutAMoveBringsTheTouchBack() {
        let log = EventLog()
        let osc = log.interpreter()
        let phone = "10.0.0.5"
        osc.feed(osc_("/bendsynth/xy/1/z", .float(1)), from: phone, now: 0)
        osc.feed(osc_("/bendsynth/xy/1", .float(0.25), .float(0.5)), from: phone, now: 1_000_000)
        osc.feed(osc_("/bendsynth/touch", .int32(4), .float(0.5), .float(0.5)), from: phone, now: 1_000_000)
        osc.expire(now: 300 * s)
        XCTAssertEqual(osc.activeTouches, 2, "300 s after its last message, not yet")
        osc.expire(now: 301 * s)
        XCTAssertEqual(osc.activeTouches, 0)
        XCTAssertEqual(log.lines, ["osc: 10.0.0.5 sent nothing for 300 s: ending its 2 resting touches (a move starts each again)"])
        let starts = log.starts
        osc.feed(osc_("/bendsynth/xy/1", .float(0.3), .float(0.5)), from: phone, now: 400 * s)
        osc.feed(osc_("/bendsynth/touch", .int32(4), .float(0.6), .float(0.5)), from: phone, now: 400 * s)
        XCTAssertEqual(log.starts, starts + 2, "both came back")
        XCTAssertEqual(Set(log.down.values.map { Double(Float($0.x)) }), [Double(Float(0.3)), Double(Float(0.6))])
        XCTAssertEqual(Set(log.down.keys).isDisjoint(with: [1, 2]), true, "as new touches (new ids)")
        osc.feed(osc_("/bendsynth/xy/1/z", .float(0)), from: phone, now: 401 * s)
        osc.feed(osc_("/bendsynth/release", .int32(4)), from: phone, now: 401 * s)
        XCTAssertEqual(osc.activeTouches, 0)
        XCTAssertEqual(log.faults, [])
    }

    /// One sender holding its most touches leaves every other sender theirs; its further
    /// starts are refused with one line (and the count of the others).
    func testOneSenderAtItsTouchLimitTakesNoOtherSendersTouches() {
        let log = EventLog()
        let osc = log.interpreter()
        for id in 0..<300 as Range<Int32> {
            osc.feed(osc_("/bendsynth/touch", .int32(id), .float(0.5), .float(0.5)), from: "10.0.0.1", now: UInt64(id) * 1_000_000)
        }
        XCTAssertEqual(osc.activeTouches(of: "10.0.0.1"), OSCInterpreter.maxTouchesPerSender)
        for id in 0..<10 as Range<Int32> {
            osc.feed(osc_("/bendsynth/touch", .int32(id), .float(0.5), .float(0.5)), from: "10.0.0.2", now: 300_000_000)
        }
        XCTAssertEqual(osc.activeTouches(of: "10.0.0.2"), 10, "the other sender gets all its touches")
        osc.expire(now: 2 * s)
        let refused = log.counted("holds 64 touches")
        XCTAssertEqual(refused.lines, 2, "one line, then one with the count: \(log.lines)")
        XCTAssertEqual(refused.standFor, 300 - 64)
        XCTAssertEqual(osc.refusedTouches, 300 - 64)
        osc.endAll()
        XCTAssertEqual(log.faults, [])
    }

    /// A sender flooding moves gets at most its events a second (its latest position
    /// still arrives); another sender's moves all go through; the flood's log lines are
    /// one a second, counting what they stand for.
    func testAFloodIsLimitedPerSenderAndItsLinesCounted() {
        let log = EventLog()
        let osc = log.interpreter()
        osc.feed(osc_("/bendsynth/touch", .int32(1), .float(0.1), .float(0.5)), from: "10.0.0.1", now: 0)
        osc.feed(osc_("/bendsynth/touch", .int32(1), .float(0.9), .float(0.5)), from: "10.0.0.2", now: 0)
        let floodID = log.down.first { $0.value.x < 0.2 }!.key
        var other = 0
        // 2 s: 40 000 moves from .1 (20 000 a second), 100 from .2.
        for i in 1...40_000 {
            let now = UInt64(i) * 50_000
            osc.feed(osc_("/bendsynth/touch", .int32(1), .float(Float(i % 1000) / 1000), .float(0.5)), from: "10.0.0.1", now: now)
            if i % 400 == 0 {  // 100 moves of the other sender
                osc.feed(osc_("/bendsynth/touch", .int32(1), .float(Float(i) / 40_000), .float(0.5)), from: "10.0.0.2", now: now)
                other += 1
            }
            if i % 1000 == 0 { osc.expire(now: now) }  // the receiver's 50 ms tick
        }
        osc.feed(osc_("/bendsynth/touch", .int32(1), .float(0.875), .float(0.5)), from: "10.0.0.1", now: 2 * s + 1)
        osc.expire(now: 3 * s)
        let moves = log.events.filter { if case .touch(floodID, .move, _, _) = $0 { return true }; return false }.count
        let otherMoves = log.events.filter { if case .touch(let id, .move, _, _) = $0, id != floodID { return true }; return false }.count
        print("OSC flood: \(moves) of 40 001 moves passed in 2 s, \(osc.overBudget) dropped; the other sender's \(otherMoves) of \(other); \(log.lines.count) lines")
        XCTAssertLessThanOrEqual(moves, Int(OSCInterpreter.eventBurst + 2 * OSCInterpreter.maxEventsPerSecond) + 1)
        XCTAssertGreaterThanOrEqual(moves, Int(2 * OSCInterpreter.maxEventsPerSecond) - 100)
        XCTAssertEqual(otherMoves, other, "the other sender loses nothing")
        XCTAssertEqual(Double(Float(log.down[floodID]!.x)), Double(Float(0.875)), "the flood's latest position arrived")
        let lines = log.counted("sends more than 2000 events a second")
        XCTAssertLessThanOrEqual(lines.lines, 4, "about one line a second: \(log.lines)")
        XCTAssertEqual(lines.standFor, osc.overBudget, "the lines count every dropped event")
        XCTAssertEqual(log.faults, [])
    }
}
