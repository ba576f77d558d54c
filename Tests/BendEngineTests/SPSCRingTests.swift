// SPDX-License-Identifier: GPL-3.0-or-later
import XCTest
@testable import BendEngine
import Foundation

/// The generic single-producer/single-consumer ring: drops, bulk wrap-around, layout,
/// and two threads passing a long sequence through a small ring.
final class SPSCRingTests: XCTestCase {
    func testFullRingDropsNewestAndCounts() {
        let ring = SPSCRing<EngineEvent>(capacity: 8)
        defer { ring.deallocate() }
        for i in 0..<10 { ring.push(EngineEvent(frame: UInt64(i), kind: .pan)) }
        XCTAssertEqual(ring.count, 8)
        XCTAssertEqual(ring.dropped, 2)
        XCTAssertEqual(ring.peek()?.frame, 0)
    }

    func testCapacityRoundsUpToAPowerOfTwo() {
        for (asked, got) in [(0, 2), (1, 2), (3, 4), (8, 8), (1000, 1024)] {
            let ring = SPSCRing<Float>(capacity: asked)
            XCTAssertEqual(ring.capacity, got, "asked \(asked)")
            ring.deallocate()
        }
    }

    /// Bulk writes are all or none (a write that does not fit is dropped whole and its
    /// elements counted), and bulk reads cross the end of the slots in order.
    func testBulkWriteAndReadWrapAround() {
        let ring = SPSCRing<Float>(capacity: 16)
        defer { ring.deallocate() }
        var next: Float = 0, expected: Float = 0
        var chunk = [Float](repeating: 0, count: 8), got = [Float](repeating: 0, count: 16)
        for round in 0..<20 {  // 20 · 6 elements through 16 slots: crosses the end 7 times
            for i in 0..<6 { chunk[i] = next + Float(i) }
            XCTAssertTrue(ring.write(chunk, count: 6), "round \(round)")
            next += 6
            XCTAssertFalse(ring.write(chunk, count: 11), "10 free slots, 11 asked")
            let n = ring.read(into: &got, maxCount: 16)
            XCTAssertEqual(n, 6)
            for i in 0..<n { XCTAssertEqual(got[i], expected); expected += 1 }
        }
        XCTAssertEqual(ring.dropped, 20 * 11)
        XCTAssertEqual(ring.read(into: &got, maxCount: 16), 0)
    }

    /// The producer's and the consumer's indices sit on different 64-byte cache lines,
    /// and the slots on lines of their own.
    func testIndicesAreOnSeparateCacheLines() {
        let ring = SPSCRing<EngineEvent>(capacity: 4)
        defer { ring.deallocate() }
        let producer = Int(bitPattern: ring.indices.producer), consumer = Int(bitPattern: ring.indices.consumer)
        let slots = Int(bitPattern: ring.slots)
        XCTAssertEqual(producer % 64, 0)
        XCTAssertNotEqual(producer / 64, consumer / 64)
        XCTAssertEqual(consumer % 64, 0)
        XCTAssertGreaterThanOrEqual(slots, consumer + 64)
    }

    /// A producer thread and a consumer thread pass 200 000 events in order through a
    /// 64-slot ring; the producer retries when full (`count` < `capacity`), so none drop.
    func testTwoThreadsPassEveryEventInOrder() {
        let ring = SPSCRing<EngineEvent>(capacity: 64)
        defer { ring.deallocate() }
        let total = 200_000
        let producer = Thread {
            var i = 0
            while i < total {
                if ring.count < ring.capacity {
                    XCTAssertTrue(ring.push(EngineEvent(frame: UInt64(i), kind: .move)))
                    i += 1
                }
            }
        }
        producer.start()
        var expected: UInt64 = 0
        while expected < UInt64(total) {
            if let event = ring.peek() {
                if event.frame != expected { XCTFail("event \(event.frame), expected \(expected)"); return }
                ring.pop()
                expected += 1
            }
        }
        XCTAssertEqual(ring.dropped, 0)
    }
}
