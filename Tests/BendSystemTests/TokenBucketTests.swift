// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem
import XCTest

final class TokenBucketTests: XCTestCase {
    let second: UInt64 = 1_000_000_000

    /// Full at the start: `burst` tokens go at once, then one per 1/rate s.
    func testBurstThenRate() {
        var b = TokenBucket(rate: 100, burst: 5)
        let t0: UInt64 = 7 * second
        XCTAssertEqual((0..<8).filter { _ in b.take(now: t0) }.count, 5)
        XCTAssertFalse(b.available(now: t0 + second / 200), "half a token after 5 ms")
        XCTAssertTrue(b.take(now: t0 + second / 100), "one token after 10 ms")
        // Refills stop at the burst: after a long silence, 5 again and no more.
        XCTAssertEqual((0..<8).filter { _ in b.take(now: t0 + 60 * second) }.count, 5)
    }

    /// A time earlier than one already seen (a thread that read the clock before taking
    /// the lock) adds no token and does not move the clock back.
    func testAnEarlierTimeAddsNothing() {
        var b = TokenBucket(rate: 10, burst: 1)
        XCTAssertTrue(b.take(now: 5 * second))
        XCTAssertFalse(b.take(now: 4 * second))
        XCTAssertFalse(b.take(now: 5 * second + second / 20), "50 ms after the latest time: half a token")
        XCTAssertTrue(b.take(now: 5 * second + second / 10))
    }

    /// `spend` counts a whole read at once and may go below zero.
    func testSpendGoesIntoDebt() {
        var b = TokenBucket(rate: 1000, burst: 2000)
        XCTAssertTrue(b.spend(2000, now: 0))
        XCTAssertEqual(b.tokens, 0)
        XCTAssertFalse(b.spend(3, now: second / 1000), "1 token back after 1 ms, 3 spent")
        XCTAssertEqual(b.tokens, -2, accuracy: 1e-9)
    }
}
