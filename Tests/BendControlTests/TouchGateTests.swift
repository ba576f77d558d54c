// SPDX-License-Identifier: GPL-3.0-or-later
import XCTest
import BendControl
import BendTestSupport
import CAllocCounter

/// The real-time core every port shares: its fixed table against Swift's Dictionary, and
/// a storm of touches, sustain and releases through it on one thread that allocates
/// nothing (as a plugin's render thread runs it).
final class TouchGateTests: XCTestCase {
    func testTouchTableAgreesWithADictionaryThroughRandomSetsAndRemoves() {
        let table = TouchTable(capacity: 300)
        defer { table.deallocate() }
        var model: [UInt32: UInt32] = [:]
        var rng = SplitMix(seed: 7)
        for step in 0..<200_000 {
            // Keys from a small range (collisions, chains) and the edges of UInt32.
            let pick = rng.next() % 10
            let key: UInt32 = pick == 0 ? .max - UInt32(rng.next() % 4) : pick == 1 ? UInt32(rng.next() % 4) : UInt32(rng.next() % 700)
            if rng.next() % 3 == 0 {
                XCTAssertEqual(table.remove(key), model.removeValue(forKey: key), "step \(step)")
            } else {
                let value = UInt32(truncatingIfNeeded: rng.next())
                let fits = model[key] != nil || model.count < 300
                XCTAssertEqual(table.set(key, value), fits)
                if fits { model[key] = value }
            }
            if step % 997 == 0 {
                XCTAssertEqual(table.count, model.count)
                for (k, v) in model { XCTAssertEqual(table[k], v) }
                let out = UnsafeMutablePointer<UInt32>.allocate(capacity: 300)
                defer { out.deallocate() }
                let n = table.sortedKeys(where: .max, into: out)
                XCTAssertEqual(Array(UnsafeBufferPointer(start: out, count: n)), model.filter { $0.value != 0 }.keys.sorted())
            }
        }
    }

    func testAStormOfTouchesSustainAndReleasesAllocatesNothingAndEndsEveryTouch() {
        let h = RenderHarness(voices: 64, period: 256)
        defer { h.free() }
        let (source, ring) = h.mixer.addSource()
        let gate = TouchGate(source: source, ring: ring)
        defer { gate.deallocate() }
        var observed = 0, ups = 0
        var rng = SplitMix(seed: 3)
        let out = UnsafeMutablePointer<Float>.allocate(capacity: 512)
        defer { out.deallocate() }
        alloc_counter_reset()
        alloc_counter_watch_this_thread(1)
        for period in 0..<400 {
            let start = h.mixer.position
            for i in 0..<20 {
                let frame = start + UInt64(i * 12)
                let id = UInt32(truncatingIfNeeded: rng.next() % 40)
                let event: ControlEvent
                switch rng.next() % 8 {
                case 0, 1: event = .pitched(id: id, phase: .down, ratio: 1 + Double(id) / 40, gain: 0.5, y: 0.5)
                case 2, 3: event = .pitched(id: id, phase: .move, ratio: 1.5, gain: 0.4, y: 0.2)
                case 4, 5: event = .pitched(id: id, phase: .up, ratio: 0, gain: 0, y: 0)
                case 6: event = .sustain(rng.next() % 2 == 0)
                default: event = .tilt(0.3)
                }
                gate.apply(event, atFrame: frame, prepare: TouchGate.pitched) { e, _ in
                    observed += 1
                    if e.touchPhase?.phase == .up { ups += 1 }
                }
            }
            if period % 97 == 96 { gate.releaseAll(atFrame: h.mixer.position) { _, _ in observed += 1 } }
            _ = h.driver.period(frames: 256, into: .float(out))
        }
        gate.releaseAll(atFrame: h.mixer.position) { _, _ in }
        _ = h.driver.period(frames: 256, into: .float(out))
        alloc_counter_watch_this_thread(0)
        XCTAssertEqual(alloc_counter_count(), 0, "heap allocations in the gate and the render")
        XCTAssertGreaterThan(observed, 4000)
        XCTAssertGreaterThan(ups, 500)
        for _ in 0..<10 { _ = h.driver.period(frames: 256, into: .float(out)) }
        XCTAssertEqual(h.mixer.activeVoices, 0, "every touch ended")
        XCTAssertEqual(gate.activeTouches, [])
    }
}
