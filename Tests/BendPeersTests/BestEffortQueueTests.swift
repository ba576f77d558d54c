// SPDX-License-Identifier: GPL-3.0-or-later
@testable import BendPeers
import XCTest

final class BestEffortQueueTests: XCTestCase {
    private func move(_ id: UInt32, _ x: Float) -> PeerMessage { .touch(id: id, phase: .move, x: x, y: 0.5, timestamp: 0) }

    func testNewestMoveOfATouchReplacesTheQueuedOneInPlace() {
        var q = BestEffortQueue(capacity: 4)
        XCTAssertEqual(q.enqueue(move(1, 0.1)), .queued)
        XCTAssertEqual(q.enqueue(move(2, 0.2)), .queued)
        XCTAssertEqual(q.enqueue(.tilt(value: -0.5, timestamp: 0)), .queued)
        for i in 1...100 { XCTAssertEqual(q.enqueue(move(1, Float(i) / 100)), .replaced) }
        XCTAssertEqual(q.enqueue(.tilt(value: 0.25, timestamp: 0)), .replaced)
        XCTAssertEqual(q.items, [move(1, 1.0), move(2, 0.2), .tilt(value: 0.25, timestamp: 0)])
        XCTAssertEqual(q.replaced, 101)
        XCTAssertEqual(q.dropped, 0)
    }

    func testAFullQueueDropsTheNewestAndCountsIt() {
        var q = BestEffortQueue(capacity: 3)
        for id in 1...3 { XCTAssertEqual(q.enqueue(move(UInt32(id), 0.5)), .queued) }
        XCTAssertEqual(q.enqueue(move(4, 0.5)), .dropped)
        XCTAssertEqual(q.enqueue(move(5, 0.5)), .dropped)
        XCTAssertEqual(q.enqueue(move(2, 0.9)), .replaced, "a touch already queued still gets its newest position")
        XCTAssertEqual(q.dropped, 2)
        XCTAssertEqual(q.dequeue(), move(1, 0.5))
        XCTAssertEqual(q.dequeue(), move(2, 0.9))
        XCTAssertEqual(q.enqueue(move(4, 0.4)), .queued)
        XCTAssertEqual(q.dequeue(), move(3, 0.5))
        XCTAssertEqual(q.dequeue(), move(4, 0.4))
        XCTAssertNil(q.dequeue())
        XCTAssertTrue(q.isEmpty)
    }

    func testMovesOfAnEndingTouchAreRemovedOthersKept() {
        var q = BestEffortQueue(capacity: 8)
        q.enqueue(move(1, 0.1)); q.enqueue(move(2, 0.2)); q.enqueue(.tilt(value: 0, timestamp: 0))
        q.removeMoves(of: 1)
        XCTAssertEqual(q.items, [move(2, 0.2), .tilt(value: 0, timestamp: 0)])
    }

    /// 10 touches moving 1000 times each through a queue of 16 that is never drained:
    /// it never holds more than one move per touch, and nothing is dropped.
    func testManyTouchesNeverGrowPastOneMoveEach() {
        var q = BestEffortQueue(capacity: 16)
        for step in 0..<1000 { for id in 0..<10 { q.enqueue(move(UInt32(id), Float(step) / 1000)) } }
        XCTAssertEqual(q.items.count, 10)
        XCTAssertEqual(q.dropped, 0)
        XCTAssertEqual(q.replaced, 9990)
        XCTAssertTrue(q.items.allSatisfy { if case let .touch(_, _, x, _, _) = $0 { x == 0.999 } else { false } })
    }
}
