// SPDX-License-Identifier: GPL-3.0-or-later
import BendTestSupport
import XCTest

/// A source floods its port while nothing renders (a render thread that fell behind, a
/// sender far over its limits): the engine's ring fills. Moves and new touches are
/// refused and counted; the ups of the touches that sound still reach the engine, so
/// their voices end (found by the soak, `bendsynth-bench --soak`: voices sounded on after
/// every source had gone).
final class PortFloodTests: XCTestCase {
    func testAFullRingNeverCostsAnUp() {
        let harness = RenderHarness(voices: 16, period: 256) { $0.eventsPerSource = 64 }
        defer { harness.free() }
        let port = harness.port
        for id in UInt32(1)...4 { port.send(.touch(id: id, phase: .down, x: 0.5, y: 0.8), atFrame: 0) }
        for n in 0..<500 { port.send(.touch(id: UInt32(n % 4 + 1), phase: .move, x: Double(n % 10) / 10, y: 0.8), atFrame: 0) }
        port.send(.touch(id: 9, phase: .down, x: 0.5, y: 0.8), atFrame: 0)   // no room: refused
        port.send(.touch(id: 9, phase: .move, x: 0.6, y: 0.8), atFrame: 0)   // of a touch never started
        for id in UInt32(1)...4 { port.send(.touch(id: id, phase: .up, x: 0, y: 0), atFrame: 1024) }   // in the 5th period
        XCTAssertGreaterThanOrEqual(port.dropped, 440, "the flood's moves were refused and counted")
        XCTAssertEqual(port.activeTouches, [])
        _ = harness.renderPeriods(1)
        XCTAssertEqual(harness.mixer.activeVoices, 4, "the four touches sounded, the refused one did not")
        _ = harness.renderPeriods(100)   // 0.5 s: past every release
        XCTAssertEqual(harness.mixer.activeVoices, 0, "every voice ended: no up was lost to the full ring")
    }
}
