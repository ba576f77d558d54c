// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import XCTest

/// One namespace for a source's many owners: ids distinct, kept until up, never wrapping
/// into a held id.
final class TouchNamespaceTests: XCTestCase {
    struct Owner: Hashable, Sendable { var device: UInt64; var id: UInt32 }

    func testTwoOwnersSameLocalIdGetDistinctIds() {
        var ns = TouchNamespace<Owner>()
        let a = ns.translate(.touch(id: 1, phase: .down, x: 0.1, y: 0.2)) { Owner(device: 1, id: $0) }
        let b = ns.translate(.touch(id: 1, phase: .down, x: 0.3, y: 0.4)) { Owner(device: 2, id: $0) }
        XCTAssertEqual(a, [.touch(id: 1, phase: .down, x: 0.1, y: 0.2)])
        XCTAssertEqual(b, [.touch(id: 2, phase: .down, x: 0.3, y: 0.4)])
        XCTAssertEqual(ns.translate(.touch(id: 1, phase: .move, x: 0.5, y: 0.5)) { Owner(device: 2, id: $0) },
                       [.touch(id: 2, phase: .move, x: 0.5, y: 0.5)])
        XCTAssertEqual(ns.translate(.touch(id: 1, phase: .up, x: 0, y: 0)) { Owner(device: 1, id: $0) },
                       [.touch(id: 1, phase: .up, x: 0, y: 0)])
        XCTAssertEqual(ns.translate(.touch(id: 1, phase: .move, x: 0.5, y: 0.5)) { Owner(device: 1, id: $0) }, [], "ended")
        XCTAssertEqual(ns.translate(.touch(id: 9, phase: .up, x: 0, y: 0)) { Owner(device: 1, id: $0) }, [], "never held")
        XCTAssertEqual(ns.translate(.tilt(0.5)) { Owner(device: 1, id: $0) }, [.tilt(0.5)])
        XCTAssertEqual(ns.count, 1)
    }

    /// Pitched touches (MIDI's) are numbered the same way and keep ratio, gain and y.
    func testPitchedTouchesAreTranslatedToo() {
        var ns = TouchNamespace<Owner>(firstID: 10)
        _ = ns.translate(.touch(id: 1, phase: .down, x: 0.5, y: 0.5)) { Owner(device: 1, id: $0) }
        XCTAssertEqual(ns.translate(.pitched(id: 1, phase: .down, ratio: 3, gain: 0.5, y: 0.25)) { Owner(device: 2, id: $0) },
                       [.pitched(id: 11, phase: .down, ratio: 3, gain: 0.5, y: 0.25)])
        XCTAssertEqual(ns.translate(.pitched(id: 1, phase: .move, ratio: 6, gain: 1, y: 0)) { Owner(device: 2, id: $0) },
                       [.pitched(id: 11, phase: .move, ratio: 6, gain: 1, y: 0)])
        XCTAssertEqual(ns.translate(.pitched(id: 1, phase: .up, ratio: 0, gain: 0, y: 0)) { Owner(device: 2, id: $0) },
                       [.pitched(id: 11, phase: .up, ratio: 0, gain: 0, y: 0)])
        XCTAssertEqual(ns.translate(.pitched(id: 1, phase: .move, ratio: 6, gain: 1, y: 0)) { Owner(device: 2, id: $0) }, [])
    }

    func testADownForAHeldTouchEndsItFirst() {
        var ns = TouchNamespace<Owner>()
        _ = ns.translate(.touch(id: 4, phase: .down, x: 0, y: 0)) { Owner(device: 1, id: $0) }
        XCTAssertEqual(ns.translate(.touch(id: 4, phase: .down, x: 1, y: 1)) { Owner(device: 1, id: $0) },
                       [.touch(id: 1, phase: .up, x: 0, y: 0), .touch(id: 2, phase: .down, x: 1, y: 1)])
    }

    /// Ids are not reused after an up (a late move of the old touch cannot reach the new).
    func testIdsAreNotReusedAfterUp() {
        var ns = TouchNamespace<Owner>()
        var seen = Set<UInt32>()
        for i in 0..<1000 {
            let (id, replaced) = ns.begin(Owner(device: UInt64(i % 7), id: 1))
            XCTAssertNil(replaced)
            XCTAssertTrue(seen.insert(id).inserted)
            XCTAssertEqual(ns.end(Owner(device: UInt64(i % 7), id: 1)), id)
        }
    }

    /// The old `serial << 24` tagging wrapped after 256 hot-plugs into the first device's
    /// ids. Here a thousand owners come and go while one touch stays held: no new touch
    /// ever gets the held touch's id.
    func testManyOwnersNeverCollideWithAHeldTouch() {
        var ns = TouchNamespace<Owner>(firstID: TouchNamespace<Owner>.apartFromPad)
        let (held, _) = ns.begin(Owner(device: 0, id: 1))
        XCTAssertGreaterThanOrEqual(held, 1 << 24)
        for device in 1...1000 as ClosedRange<UInt64> {
            let (id, _) = ns.begin(Owner(device: device, id: 1))
            XCTAssertNotEqual(id, held)
            XCTAssertGreaterThanOrEqual(id, 1 << 24)
            XCTAssertEqual(ns.endAll { $0.device == device }, [id])
        }
        XCTAssertEqual(ns.id(of: Owner(device: 0, id: 1)), held)
    }

    /// After 2³² − firstID ids the counter comes round; held ids are skipped.
    func testWrapSkipsHeldIds() {
        var ns = TouchNamespace<Int>(firstID: UInt32.max - 2)
        XCTAssertEqual(ns.begin(0).id, UInt32.max - 2)
        XCTAssertEqual(ns.begin(1).id, UInt32.max - 1)
        XCTAssertEqual(ns.begin(2).id, UInt32.max)
        ns.end(1)
        XCTAssertEqual(ns.begin(3).id, UInt32.max - 1, "round again: the only free id")
        XCTAssertEqual(ns.endAll(), [UInt32.max - 2, UInt32.max - 1, UInt32.max])
        XCTAssertEqual(ns.count, 0)
    }

    func testCountsPerOwner() {
        var ns = TouchNamespace<Owner>()
        for i in 1...3 as ClosedRange<UInt32> { _ = ns.begin(Owner(device: 1, id: i)) }
        _ = ns.begin(Owner(device: 2, id: 1))
        XCTAssertEqual(ns.count(where: { $0.device == 1 }), 3)
        XCTAssertEqual(ns.endAll { $0.device == 1 }, [1, 2, 3])
        XCTAssertEqual(ns.count, 1)
    }
}
