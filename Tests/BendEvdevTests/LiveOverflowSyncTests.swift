// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendEvdev
import BendTestSupport
import CFakeEvdev
import Foundation
import Glibc
import XCTest

/// Overflow on a live device: libevdev's own code (libevdev_new_from_fd, then
/// libevdev_next_event's SYN_DROPPED and its LIBEVDEV_READ_FLAG_SYNC state sync) reads a
/// fake touchscreen (CFakeEvdev: a pipe whose evdev ioctls are answered from a state the
/// test changes, with the kernel's client buffer and its overflow rule) through the live
/// read loop of `EvdevSource`, into a real engine; the voices are measured.
final class LiveOverflowSyncTests: XCTestCase {
    /// The evdev thread's frames pass through here on their way to the control port; the
    /// test can hold the thread at the next frame (the reader stalls, reading nothing).
    private final class FrameGate: @unchecked Sendable {
        private let condition = NSCondition()
        private var frames: [[ControlEvent]] = []
        private var holdNext = false
        private var holding = false
        let port: ControlPort

        init(port: ControlPort) { self.port = port }

        /// The evdev thread: sends the frame on, then waits while the test holds it.
        func pass(_ events: [ControlEvent]) {
            for e in events { port.send(e) }
            condition.lock()
            frames.append(events)
            if holdNext {
                holding = true
                condition.broadcast()
                while holdNext { condition.wait() }
                holding = false
            }
            condition.broadcast()
            condition.unlock()
        }

        /// Every event passed so far.
        var events: [ControlEvent] { condition.lock(); defer { condition.unlock() }; return frames.flatMap { $0 } }

        func hold() { condition.lock(); holdNext = true; condition.unlock() }

        func release() {
            condition.lock()
            holdNext = false
            condition.broadcast()
            condition.unlock()
        }

        /// Waits (on the condition, woken by each frame; 10 s at most) until `done` holds.
        func wait(_ what: String, _ done: (_ events: [ControlEvent], _ holding: Bool) -> Bool) {
            let deadline = Date().addingTimeInterval(10)
            condition.lock()
            defer { condition.unlock() }
            while !done(frames.flatMap { $0 }, holding) {
                if !condition.wait(until: deadline) {
                    XCTFail("timed out waiting for \(what); events: \(frames.flatMap { $0 })")
                    return
                }
            }
        }
    }

    /// A touchscreen with 10 slots, x and y 0…1000 (pad x = x / 1000).
    private struct Touchscreen {
        let fd: Int32

        init(bufsize: Int32) throws {
            fd = fake_evdev_create("bendsynth fake touchscreen", 0x03, 0x1234, 0x5678, 1, bufsize)
            XCTAssertGreaterThanOrEqual(fd, 0, String(cString: strerror(errno)))
            typealias C = EvdevCode
            XCTAssertEqual(fake_evdev_enable_property(fd, C.propDirect), 0)
            XCTAssertEqual(fake_evdev_enable(fd, C.evKey, C.btnTouch), 0)
            for (code, maximum) in [(C.absX, 1000), (C.absY, 1000), (C.absMTSlot, 9), (C.absMTPositionX, 1000),
                                    (C.absMTPositionY, 1000), (C.absMTTrackingID, 65535)] as [(UInt16, Int32)] {
                XCTAssertEqual(fake_evdev_set_abs(fd, code, code == C.absMTTrackingID ? -1 : 0, maximum, 0, 0), 0)
            }
        }

        func emit(_ type: UInt16, _ code: UInt16, _ value: Int32) {
            XCTAssertEqual(fake_evdev_emit(fd, type, code, value), 0)
        }
        func slot(_ s: Int32) { emit(EvdevCode.evAbs, EvdevCode.absMTSlot, s) }
        func land(slot s: Int32, id: Int32, x: Int32) {
            slot(s)
            emit(EvdevCode.evAbs, EvdevCode.absMTTrackingID, id)
            emit(EvdevCode.evAbs, EvdevCode.absMTPositionX, x)
            emit(EvdevCode.evAbs, EvdevCode.absMTPositionY, 500)
        }
        func move(slot s: Int32, x: Int32) {
            slot(s)
            emit(EvdevCode.evAbs, EvdevCode.absMTPositionX, x)
        }
        func lift(slot s: Int32) {
            slot(s)
            emit(EvdevCode.evAbs, EvdevCode.absMTTrackingID, -1)
        }
        func report() { emit(EvdevCode.evSyn, EvdevCode.synReport, 0) }
        func count(_ what: Int32) -> Int { fake_evdev_count(fd, what) }
    }

    /// Two fingers move; the reader stalls while the device sends more than its buffer
    /// holds and its state changes (A lifts, C lands, B moves); SYN_DROPPED arrives and
    /// libevdev syncs: A's voice ends, B's goes on (moved, not restarted), C's starts, no
    /// touch id is used twice, and nothing sounds once the last fingers lift.
    func testOverflowSyncEndsLiftedStartsLandedKeepsHeld() throws {
        let rig = try Rig()
        defer { rig.close() }
        let (screen, gate) = (rig.screen, rig.gate)
        let openQueries = rig.openQueries
        func listen(_ seconds: Double) -> (peaks: [Double], voices: Int) { rig.listen(seconds) }
        func close(_ peaks: [Double], _ expected: [Double]) -> Bool { Rig.close(peaks, expected) }

        // 1. Fingers A (slot 0) and B (slot 1) land and move.
        screen.land(slot: 0, id: 100, x: 240)
        screen.land(slot: 1, id: 101, x: 490)
        screen.emit(EvdevCode.evKey, EvdevCode.btnTouch, 1)
        screen.report()
        screen.move(slot: 0, x: 250)
        screen.move(slot: 1, x: 500)
        screen.report()
        gate.wait("the two fingers' moves") { events, _ in events.count == 4 }
        let first = gate.events
        guard case let .touch(a, .down, ax, _) = first[0], case let .touch(b, .down, bx, _) = first[1] else {
            return XCTFail("expected two downs first: \(first)")
        }
        XCTAssertEqual(ax, 0.24, accuracy: 1e-9)
        XCTAssertEqual(bx, 0.49, accuracy: 1e-9)
        let before = listen(0.3)
        print("overflow sync, before: peaks \(before.peaks.map { String(format: "%.1f", $0) }) Hz, \(before.voices) voices")
        XCTAssertTrue(close(before.peaks, [220, 440]), "\(before.peaks)")
        XCTAssertEqual(before.voices, 2)

        // 2. The reader stalls: held at the next frame, reading nothing.
        gate.hold()
        screen.move(slot: 1, x: 505)
        screen.report()
        gate.wait("the reader to stall") { _, holding in holding }
        let stalledAt = gate.events.count
        XCTAssertEqual(fake_evdev_stall(screen.fd, 1), 0)
        // The device changes while nobody reads: A lifts, C lands, then B moves 20 times:
        // 68 events, in a buffer that holds 63.
        screen.lift(slot: 0)
        screen.report()
        screen.land(slot: 2, id: 102, x: 750)
        screen.report()
        for i in 1...20 {
            screen.move(slot: 1, x: 505 - Int32(i) * 130 / 20)  // → 375
            screen.report()
        }
        XCTAssertEqual(screen.count(Int32(FAKE_EVDEV_DROPS)), 1, "the client buffer overflowed")
        // The reader reads again: SYN_DROPPED, then libevdev's sync from the device's state.
        XCTAssertEqual(fake_evdev_stall(screen.fd, 0), 0)
        gate.release()
        gate.wait("the sync: A's up and C's down") { events, _ in
            let after = events[stalledAt...]
            return after.contains(.touch(id: a, phase: .up, x: 0, y: 0)) && after.contains { if case .touch(_, .down, _, _) = $0 { return true }; return false }
        }
        let synced = Array(gate.events[stalledAt...])
        XCTAssertGreaterThan(screen.count(Int32(FAKE_EVDEV_MTSLOTS_QUERIES)), openQueries, "libevdev asked the device for its slots")
        XCTAssertEqual(synced.filter { if case .touch(a, .up, _, _) = $0 { return true }; return false }.count, 1, "A ends once: \(synced)")
        XCTAssertFalse(synced.contains { if case .touch(b, .down, _, _) = $0 { return true }; if case .touch(b, .up, _, _) = $0 { return true }; return false },
                       "B goes on: no retrigger, no end: \(synced)")
        XCTAssertTrue(synced.contains(.touch(id: b, phase: .move, x: 0.375, y: 0.5)), "B is where the device says: \(synced)")
        let cDowns = synced.compactMap { e -> (UInt32, Double)? in if case let .touch(id, .down, x, _) = e { return (id, x) }; return nil }
        XCTAssertEqual(cDowns.count, 1, "C starts once: \(synced)")
        let c = cDowns.first?.0 ?? 0
        XCTAssertEqual(cDowns.first?.1 ?? 0, 0.75, accuracy: 1e-9)
        XCTAssertFalse([a, b].contains(c), "C has an id of its own")
        let after = listen(0.3)
        print("overflow sync, after: peaks \(after.peaks.map { String(format: "%.1f", $0) }) Hz, \(after.voices) voices")
        XCTAssertTrue(close(after.peaks, [330, 660]), "B at 330 Hz, C at 660 Hz, no A at 220 Hz: \(after.peaks)")
        XCTAssertEqual(after.voices, 2)

        // 3. B and C lift: nothing is left.
        screen.lift(slot: 1)
        screen.lift(slot: 2)
        screen.emit(EvdevCode.evKey, EvdevCode.btnTouch, 0)
        screen.report()
        gate.wait("the last ups") { events, _ in events.filter { if case .touch(_, .up, _, _) = $0 { return true }; return false }.count == 3 }
        let end = listen(0.1)
        XCTAssertEqual(end.voices, 0)
        rig.stop()
        XCTAssertEqual(rig.reader.decoder.drops, 1, "one SYN_DROPPED reached the decoder")

        // Every id: one down, then moves, then one up; never two touches on one id.
        var held = Set<UInt32>(), ever = Set<UInt32>()
        for case let .touch(id, phase, _, _) in gate.events {
            switch phase {
            case .down:
                XCTAssertTrue(ever.insert(id).inserted, "id \(id) started twice")
                held.insert(id)
            case .move: XCTAssertTrue(held.contains(id), "move of \(id) not down")
            case .up: XCTAssertNotNil(held.remove(id), "up of \(id) not down")
            }
        }
        XCTAssertEqual(ever.count, 3, "A, B, C")
        XCTAssertEqual(held, [])
        XCTAssertEqual(rig.harness.port.activeTouches, [])
        XCTAssertEqual(rig.notes.all, [])
    }

    /// A slot reused during the drop (A lifts and D lands in A's slot, another tracking
    /// id): after the sync A has ended and D is a touch of its own, not a move of A's.
    func testOverflowSyncSlotReusedByANewFingerIsANewTouch() throws {
        let rig = try Rig()
        defer { rig.close() }
        let (screen, gate) = (rig.screen, rig.gate)
        screen.land(slot: 0, id: 100, x: 250)
        screen.emit(EvdevCode.evKey, EvdevCode.btnTouch, 1)
        screen.report()
        gate.wait("A's down") { events, _ in events.count == 1 }
        guard case let .touch(a, .down, _, _)? = gate.events.first else { return XCTFail("\(gate.events)") }
        XCTAssertTrue(Rig.close(rig.listen(0.3).peaks, [220]))
        gate.hold()
        screen.move(slot: 0, x: 252)
        screen.report()
        gate.wait("the reader to stall") { _, holding in holding }
        let stalledAt = gate.events.count
        XCTAssertEqual(fake_evdev_stall(screen.fd, 1), 0)
        screen.lift(slot: 0)
        screen.report()
        screen.land(slot: 0, id: 103, x: 740)
        screen.report()
        for i in 1...30 {  // 8 + 90 events into 63
            screen.move(slot: 0, x: i % 2 == 0 ? 740 : 750)
            screen.report()
        }
        XCTAssertEqual(screen.count(Int32(FAKE_EVDEV_DROPS)), 1)
        XCTAssertEqual(fake_evdev_stall(screen.fd, 0), 0)
        gate.release()
        gate.wait("A's up and D's down") { events, _ in
            events[stalledAt...].contains(.touch(id: a, phase: .up, x: 0, y: 0)) && events[stalledAt...].contains { if case .touch(_, .down, _, _) = $0 { return true }; return false }
        }
        let synced = Array(gate.events[stalledAt...])
        guard case let .touch(d, .down, dx, _)? = synced.first(where: { if case .touch(_, .down, _, _) = $0 { return true }; return false }) else { return XCTFail("\(synced)") }
        XCTAssertNotEqual(d, a, "D is a touch of its own")
        XCTAssertEqual(dx, 0.74, accuracy: 1e-9)
        XCTAssertLessThan(synced.firstIndex(of: .touch(id: a, phase: .up, x: 0, y: 0)) ?? 99, synced.firstIndex { if case .touch(d, .down, _, _) = $0 { return true }; return false } ?? -1,
                          "A ends before D starts: \(synced)")
        let after = rig.listen(0.3)
        XCTAssertTrue(Rig.close(after.peaks, [651.2]), "D alone, at x 0.74 (651.2 Hz), no A: \(after.peaks)")
        XCTAssertEqual(after.voices, 1)
        screen.lift(slot: 0)
        screen.emit(EvdevCode.evKey, EvdevCode.btnTouch, 0)
        screen.report()
        gate.wait("D's up") { events, _ in events.contains(.touch(id: d, phase: .up, x: 0, y: 0)) }
        XCTAssertEqual(rig.listen(0.1).voices, 0)
        rig.stop()
        XCTAssertEqual(rig.harness.port.activeTouches, [])
    }

    final class Notes: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []
        func add(_ l: String) { lock.lock(); lines.append(l); lock.unlock() }
        var all: [String] { lock.lock(); defer { lock.unlock() }; return lines }
    }

    /// A fake touchscreen read by libevdev through EvdevSource's live loop into a real
    /// engine (a pure 440 Hz loop, linear pitch: ratio 2x, so x 0.25 → 220 Hz, 0.5 → 440,
    /// 0.375 → 330, 0.75 → 660); its frames pass a gate the test can hold.
    private final class Rig {
        let harness = RenderHarness(voices: 8, period: 256, tone: Measure.sineTone())
        let gate: FrameGate
        let screen: Touchscreen
        let reader: EvdevReader
        let source: EvdevSource
        /// The source's notes for the player (devices gone, refused): none expected.
        let notes = Notes()
        /// EVIOCGMTSLOTS queries made by libevdev_new_from_fd.
        let openQueries: Int
        private var stopped = false

        init() throws {
            gate = FrameGate(port: harness.port)
            screen = try Touchscreen(bufsize: 64)
            reader = try EvdevReader(eventFD: screen.fd, path: "fake-touchscreen", mapping: EvdevMapping())
            XCTAssertEqual(reader.decoder.kind, .touch(.touchscreen, .slots), "libevdev read the fake's capabilities")
            openQueries = screen.count(Int32(FAKE_EVDEV_MTSLOTS_QUERIES))
            XCTAssertEqual(openQueries, 3, "libevdev_new_from_fd read the slots of each MT axis once")
            let notes = self.notes
            source = EvdevSource(devices: [], mapping: EvdevMapping(), grab: false, note: { notes.add($0) })
            source.extraReaders = [reader]
            let gate = self.gate
            try source.startLoop(onEvents: { gate.pass($0) })
        }

        /// Renders `seconds`; the left channel's spectral peaks (after the first quarter:
        /// any glide and attack) and the voices sounding.
        func listen(_ seconds: Double) -> (peaks: [Double], voices: Int) {
            let out = harness.render(frames: Int(seconds * harness.rate))
            let left = Measure.channel(out, 0)
            let tail = Array(left[(left.count / 4)...])
            return (Measure.peaks(tail, rate: harness.rate, floorDB: -20).prefix(4).sorted(), harness.mixer.activeVoices)
        }

        static func close(_ peaks: [Double], _ expected: [Double]) -> Bool {
            peaks.count == expected.count && zip(peaks, expected).allSatisfy { abs($0 - $1) < $1 * 0.01 }
        }

        func stop() {
            if !stopped { source.stop() }
            stopped = true
        }

        func close() {
            stop()
            fake_evdev_destroy(screen.fd)
            harness.free()
        }
    }
}
