// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem
import Synchronization
import XCTest

/// The one rate limiter of repeated log lines (OSC, peers, web): one line per key per
/// `interval`, the rest counted and said.
final class RateLimitedLogTests: XCTestCase {
    final class Lines: @unchecked Sendable {
        let all = Mutex<[String]>([])
        func append(_ s: String) { all.withLock { $0.append(s) } }
        var list: [String] { all.withLock { $0 } }
    }
    let s: UInt64 = 1_000_000_000

    /// Peers' way: a line per 10 s, its count said in the next line it lets through.
    func testTheCountGoesIntoTheNextLineAfterTheInterval() {
        let lines = Lines()
        let log = RateLimitedLog(interval: 10) { lines.append($0) }
        func attempt(_ t: UInt64) { log.line("wrong key", now: t * s) { "declined (\($0) held)" } }
        attempt(100)
        for t: UInt64 in 101...109 { attempt(t) }
        attempt(110)
        attempt(111)
        log.flush(now: 150 * s)  // says nothing for these keys: the count goes into the next line
        attempt(200)
        XCTAssertEqual(lines.list, ["declined (0 held)", "declined (9 held)", "declined (1 held)"])
        XCTAssertEqual(log.written, 3)
        XCTAssertEqual(log.held, 10)
    }

    /// OSC's way: a line per second per key; a flood's count on a line of its own
    /// ("[N more like this]") once its second is over, other keys unaffected.
    func testFlushSaysTheHeldCountOnceTheIntervalIsOver() {
        let lines = Lines()
        let log = RateLimitedLog(interval: 1) { lines.append($0) }
        for i in 0..<50 { log.line("rate:a", now: UInt64(i) * s / 100, "a over its rate") }
        log.line("rate:b", now: s / 2, "b over its rate")
        log.flush(now: s / 2)
        XCTAssertEqual(lines.list, ["a over its rate", "b over its rate"], "the count waits for the interval's end")
        log.flush(now: s + 1)
        XCTAssertEqual(lines.list, ["a over its rate", "b over its rate", "a over its rate" + RateLimitedLog.suffix(49)])
        log.line("rate:a", now: 3 * s, "a again")
        XCTAssertEqual(lines.list.last, "a again")
        XCTAssertEqual(log.written, 4)
    }
}
