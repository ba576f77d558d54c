// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
@testable import BendWeb
import Synchronization
import XCTest

final class WebSessionsTests: XCTestCase {
    let token = try! WebToken("0123456789abcdef0123456789abcdef")
    let ms: UInt64 = 1_000_000

    private func paired(_ sessions: WebSessions, now: UInt64 = 0) -> UInt64 {
        let (c, refusal) = sessions.open(now: now)
        XCTAssertNil(refusal)
        guard case let .keep(replies) = sessions.receive(c, Array("h \(token.text)".utf8), now: now) else {
            XCTFail("not paired")
            return c
        }
        XCTAssertEqual(replies, ["ok \(sessions.paired) linear 69"], "phones are numbered 1, 2, … as they pair")
        return c
    }

    /// A phone gets the lowest number no paired phone has: one that reconnects after a
    /// drop is not numbered on (phone 1 again, not 3).
    func testAPhoneThatReconnectsTakesTheLowestFreeNumber() {
        let sessions = WebSessions(token: token, emit: { _ in })
        let first = paired(sessions), _ = paired(sessions)
        sessions.close(first)
        let (again, _) = sessions.open(now: 0)
        XCTAssertEqual(send(sessions, again, "h \(token.text)"), .keep(replies: ["ok 1 linear 69"]))
        let (third, _) = sessions.open(now: 0)
        XCTAssertEqual(send(sessions, third, "h \(token.text)"), .keep(replies: ["ok 3 linear 69"]))
    }

    private func send(_ sessions: WebSessions, _ c: UInt64, _ text: String, now: UInt64 = 0) -> WebSessions.Verdict {
        sessions.receive(c, Array(text.utf8), now: now)
    }

    func testPairingComesFirstAndAWrongTokenCloses() {
        let counter = EventCounter()
        let sessions = WebSessions(token: token, emit: { counter.add($0) })
        let (a, _) = sessions.open(now: 0)
        XCTAssertEqual(send(sessions, a, "d 1 0.5 0.5 0"), .close(.wrongToken, "no pairing token: the first message is 'h TOKEN'"))
        let (b, _) = sessions.open(now: 0)
        XCTAssertEqual(send(sessions, b, "h 0123456789abcdef0123456789abcdee"), .close(.wrongToken, "wrong pairing token: open the address bendsynth printed"))
        XCTAssertEqual(send(sessions, b, "h 0123456789abcdef"), .close(.wrongToken, "wrong pairing token: open the address bendsynth printed"))
        XCTAssertTrue(counter.events.isEmpty)
        let c = paired(sessions)
        XCTAssertEqual(send(sessions, c, "h \(token.text)"), .close(.badMessage, "paired already: 'h' comes once, first"))
        XCTAssertEqual(send(sessions, c, "p 12.5"), .keep(replies: ["P 12.5 0 0 -"]))
    }

    func testAScaleSendsItsGuidesAfterOk() throws {
        let tuning = Tuning(scale: try XCTUnwrap(Scale.builtIn("major")))
        let map = PitchMap.exponentialAround(octaves: 1, centre: 1)
        let guides = tuning.guides(pitchMap: map)
        let sessions = WebSessions(token: token, pitchMap: map, guides: guides, emit: { _ in })
        let (c, _) = sessions.open(now: 0)
        guard case let .keep(replies) = sessions.receive(c, Array("h \(token.text)".utf8), now: 0) else { return XCTFail("not paired") }
        XCTAssertEqual(replies.first, "ok 1 exp:1.0:1.0 69")
        // One octave of A major centred on A: E F# G# (below), A, B C# D (above).
        XCTAssertEqual(replies.dropFirst().first,
                       "guides 0.083333:0.749154:4:E:E4 0.25:0.840896:5:F#:F#4 0.416667:0.943874:6:G#:G#4 0.5:1:0:A:A4 0.666667:1.122462:1:B:B4 0.833333:1.259921:2:C#:C#5 0.916667:1.33484:3:D:D5")
    }

    func testSustainIsOnWhileAnyPhoneHoldsItAndAClosedPhoneLetsGo() {
        let counter = EventCounter()
        let sessions = WebSessions(token: token, emit: { counter.add($0) })
        let a = paired(sessions), b = paired(sessions)
        _ = send(sessions, a, "s 1")
        _ = send(sessions, b, "s 1")
        _ = send(sessions, a, "s 0")
        XCTAssertEqual(counter.events, [.sustain(true)], "b still holds it")
        sessions.close(b)
        XCTAssertEqual(counter.events, [.sustain(true), .sustain(false)], "b's close lets it go")
        _ = send(sessions, a, "s 1")
        sessions.endSilent(now: sessions.limits.silenceNanos + 1)
        XCTAssertEqual(counter.events.last, .sustain(false), "a silent phone lets it go")
    }

    func testTokenComparison() throws {
        XCTAssertTrue(token.matches("0123456789abcdef0123456789abcdef"))
        XCTAssertFalse(token.matches("0123456789abcdef0123456789abcdeF"))
        XCTAssertFalse(token.matches("1123456789abcdef0123456789abcdef"))
        XCTAssertFalse(token.matches(""))
        XCTAssertFalse(token.matches("0123456789abcdef0123456789abcdef0"))
        XCTAssertNotEqual(WebToken.random(), WebToken.random())
        XCTAssertEqual(WebToken.random().text.count, 32)
        XCTAssertThrowsError(try WebToken("short"))
    }

    func testTwoPhonesTouchOneAreTwoTouchesAndAClosedPhoneEndsItsOwn() {
        let counter = EventCounter()
        let sessions = WebSessions(token: token, emit: { counter.add($0) })
        let a = paired(sessions), b = paired(sessions)
        XCTAssertEqual(send(sessions, a, "d 1 0.25 0.5 0"), .keep(replies: []))
        XCTAssertEqual(send(sessions, b, "d 1 0.75 0.5 0"), .keep(replies: []))
        XCTAssertEqual(counter.held, 2)
        XCTAssertEqual(send(sessions, b, "m 1 0.8 0.6 0\nt -0.5"), .keep(replies: []))
        sessions.close(a)
        XCTAssertEqual(counter.held, 1, "only a's touch ended")
        guard case let .touch(bid, .move, x, y) = counter.events[2] else { return XCTFail("\(counter.events)") }
        XCTAssertEqual([x, y], [0.8, 0.6])
        XCTAssertEqual(counter.events[3], .tilt(-0.5))
        XCTAssertEqual(counter.events[4], .touch(id: 1, phase: .up, x: 0, y: 0), "a's touch (port id 1) ends")
        XCTAssertEqual(bid, 2)
        sessions.close(b)
        XCTAssertEqual(counter.held, 0)
    }

    func testPerConnectionLimits() {
        var limits = WebLimits()
        limits.eventsPerSecond = 100
        limits.burst = 50
        let counter = EventCounter()
        let sessions = WebSessions(token: token, limits: limits, emit: { counter.add($0) })
        // Touches at once: the 17th down is ignored, and so are its moves and up.
        let a = paired(sessions)
        for i in 0..<17 { _ = send(sessions, a, "d \(i) 0.5 0.5 0") }
        XCTAssertEqual(counter.held, limits.maxTouches)
        _ = send(sessions, a, "m 16 0.1 0.1 0\nu 16 0.1 0.1 0")
        XCTAssertEqual(counter.held, limits.maxTouches)
        XCTAssertEqual(counter.events.count, limits.maxTouches)
        // Events per second: 50 at once pass (less the 20 sent: h, 17 d, m, u), then 100 a second.
        XCTAssertEqual(send(sessions, a, Array(repeating: "p 1", count: 30).joined(separator: "\n")), .keep(replies: Array(repeating: "P 1.0 0 0 " + (0..<16).map { "\($0):0" }.joined(separator: ","), count: 30)),
                       "the 16 held sound; the 17th is not among them")
        XCTAssertEqual(send(sessions, a, "p 1"), .close(.overLimit, "over 100 events per second"))
        let b = paired(sessions, now: 0)
        XCTAssertEqual(send(sessions, b, Array(repeating: "t 0", count: 49).joined(separator: "\n"), now: 0), .keep(replies: []))
        XCTAssertEqual(send(sessions, b, "t 0", now: 20 * ms), .keep(replies: []), "2 events earned in 20 ms")
        // Connections: the ninth phone is refused at its hello; connections without the
        // token do not count, and at most 16 of them wait at once.
        let full = WebSessions(token: token, emit: { _ in })
        for _ in 0..<8 { _ = paired(full) }
        XCTAssertEqual(full.paired, 8)
        let (ninth, refusal) = full.open(now: 0)
        XCTAssertNil(refusal)
        XCTAssertEqual(send(full, ninth, "h \(token.text)"), .close(.full, "8 phones already play"))
        full.close(ninth)
        for _ in 0..<16 { XCTAssertNil(full.open(now: 0).refusal) }
        XCTAssertEqual(full.open(now: 0).refusal, .close(.full, "16 connections already wait to pair"))
        XCTAssertEqual(full.connections, 24)
    }

    func testASilentConnectionsTouchesEndAfterTheSilenceLimit() {
        let counter = EventCounter()
        let sessions = WebSessions(token: token, emit: { counter.add($0) })
        let a = paired(sessions), b = paired(sessions)
        _ = send(sessions, a, "d 1 0.5 0.5 0", now: 0)
        _ = send(sessions, b, "d 1 0.5 0.5 0", now: 0)
        _ = send(sessions, b, "p 1", now: 500 * ms)
        sessions.endSilent(now: 599 * ms)
        XCTAssertEqual(counter.held, 2)
        sessions.endSilent(now: 600 * ms)
        XCTAssertEqual(counter.held, 1, "a was silent 600 ms; b pinged at 500 ms")
        sessions.endSilent(now: 1100 * ms)
        XCTAssertEqual(counter.held, 0)
        // A clock read before the lock may be older than the last message: no wrap.
        _ = send(sessions, a, "d 2 0.5 0.5 0", now: 2000 * ms)
        sessions.endSilent(now: 1999 * ms)
        XCTAssertEqual(counter.held, 1)
    }

    func testTheExponentialMapGoesToThePage() {
        let sessions = WebSessions(token: token, pitchMap: .exponential(octaves: 3), emit: { _ in })
        let (c, _) = sessions.open(now: 0)
        XCTAssertEqual(sessions.receive(c, Array("h \(token.text)".utf8), now: 0), .keep(replies: ["ok 1 exp:3.0 69"]))
    }

    /// A finger the instrument ended for its phone's silence (a stall: the browser froze)
    /// comes back at its next move, and the pong lists the fingers that sound: not it
    /// while it is ended, it again after the move; an up of an ended finger sends nothing.
    func testAStalledFingerComesBackAtItsNextMoveAndThePongSaysWhichSound() {
        let counter = EventCounter()
        let lines = Mutex<[String]>([])
        let sessions = WebSessions(token: token, emit: { counter.add($0) }, log: { line in lines.withLock { $0.append(line) } })
        let a = paired(sessions)
        _ = send(sessions, a, "d 7 0.5 0.5 0\nd 8 0.25 0.5 0", now: 0)
        XCTAssertEqual(send(sessions, a, "p 1", now: 100 * ms), .keep(replies: ["P 1.0 0 0 7:0,8:0"]))
        sessions.endSilent(now: 800 * ms)
        XCTAssertEqual(counter.held, 0, "the stall ended both")
        XCTAssertEqual(send(sessions, a, "p 2", now: 3000 * ms), .keep(replies: ["P 2.0 0 0 -"]), "the page is told: none sounds")
        _ = send(sessions, a, "m 7 0.6 0.5 3001", now: 3001 * ms)
        XCTAssertEqual(counter.held, 1, "finger 7's move starts it again")
        XCTAssertEqual(counter.events.last, .touch(id: 3, phase: .down, x: 0.6, y: 0.5), "as a new touch, where the finger is")
        XCTAssertEqual(send(sessions, a, "p 3", now: 3002 * ms), .keep(replies: ["P 3.0 0 0 7:0"]))
        let before = counter.events.count
        _ = send(sessions, a, "u 8 0.25 0.5 3003", now: 3003 * ms)
        XCTAssertEqual(counter.events.count, before, "finger 8 lifted: nothing to end")
        _ = send(sessions, a, "m 8 0.3 0.5 3004", now: 3004 * ms)
        XCTAssertEqual(counter.held, 1, "a lifted finger's stray move starts nothing")
        XCTAssertEqual(lines.withLock { $0 }, ["web: phone 1 silent for 0.6 s: its 2 touches ended (a move starts them again)",
                                               "web: phone 1: 1 held touch started again"])
    }

    /// The pong gives each finger's cents from its pitch to the one that sounds (the
    /// board's: `--round` moved it), so the page labels what sounds.
    func testThePongSaysHowFarTheSoundingPitchIsFromTheFinger() throws {
        let map = PitchMap.exponential(octaves: 2)
        let sounding = Mutex<[UInt32: Double]>([:])
        let sessions = WebSessions(token: token, pitchMap: map, emit: { e in
            // The port's rounding: every touch sounds at x = 0.5 (the root).
            if case let .touch(id, phase, _, _) = e { sounding.withLock { $0[id] = phase == .up ? nil : 0.5 } }
        }, sounding: { sounding.withLock { $0 } })
        let (a, _) = sessions.open(now: 0)
        XCTAssertEqual(send(sessions, a, "h \(token.text)"), .keep(replies: ["ok 1 exp:2.0 69"]))
        _ = send(sessions, a, "d 1 \(0.5 + 30.0 / 2400) 0.5 0")
        XCTAssertEqual(send(sessions, a, "p 1"), .keep(replies: ["P 1.0 0 0 1:-30"]))
    }
}
