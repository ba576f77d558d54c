// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem
import Dispatch
import Glibc
import Synchronization
import XCTest

/// The event loop: handlers, timers, work and stop. Every test waits on what the loop
/// did (a semaphore with a generous limit against a hang), never on a sleep.
final class EventLoopTests: XCTestCase {
    var loop: EventLoop!
    var pipes: [Int32] = []

    override func setUpWithError() throws {
        loop = try EventLoop(name: "bendsynth test")
    }

    override func tearDown() {
        loop.stop()
        for fd in pipes { close(fd) }
        pipes = []
    }

    func makePipe() throws -> (read: Int32, write: Int32) {
        var fds: [Int32] = [-1, -1]
        try systemCall("pipe") { pipe(&fds) }
        for fd in fds { _ = fcntl(fd, F_SETFL, O_NONBLOCK) }
        pipes += fds
        return (fds[0], fds[1])
    }

    func testHandlerFiresWhenDataIsWrittenOnTheLoopThread() throws {
        let (r, w) = try makePipe()
        let got = Mutex<[UInt8]>([])
        let onLoop = Mutex<[Bool]>([])
        let arrived = DispatchSemaphore(value: 0)
        try loop.start()
        loop.add(fd: r, events: .readable) { [loop] events in
            XCTAssertTrue(events.contains(.readable))
            var b = [UInt8](repeating: 0, count: 16)
            let n = read(r, &b, b.count)
            if n > 0 { got.withLock { $0 += b[0..<n] } }
            onLoop.withLock { $0.append(loop!.isLoopThread) }
            arrived.signal()
        }
        XCTAssertEqual(write(w, [UInt8]([1, 2, 3]), 3), 3)
        XCTAssertEqual(arrived.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(got.withLock { $0 }, [1, 2, 3])
        XCTAssertEqual(onLoop.withLock { $0 }, [true])
        XCTAssertFalse(loop.isLoopThread)
    }

    func testOneShotAndRepeatingTimers() throws {
        let oneShot = DispatchSemaphore(value: 0)
        let ticks = Atomic<Int>(0)
        let thirdTick = DispatchSemaphore(value: 0)
        try loop.start()
        let start = MonotonicClock.nanos()
        let firedAt = Atomic<UInt64>(0)
        loop.schedule(after: 20_000_000) { firedAt.store(MonotonicClock.nanos(), ordering: .relaxed); oneShot.signal() }
        let repeating = loop.schedule(after: 1_000_000, repeating: 2_000_000) {
            if ticks.add(1, ordering: .relaxed).newValue == 3 { thirdTick.signal() }
        }
        XCTAssertEqual(oneShot.wait(timeout: .now() + 10), .success)
        XCTAssertGreaterThanOrEqual(firedAt.load(ordering: .relaxed) - start, 20_000_000, "not before its time")
        XCTAssertEqual(thirdTick.wait(timeout: .now() + 10), .success)
        loop.cancel(repeating)
        // After the cancel has been seen (work runs after the turn), no tick comes.
        let synced = DispatchSemaphore(value: 0)
        loop.execute { synced.signal() }
        XCTAssertEqual(synced.wait(timeout: .now() + 10), .success)
        let after = ticks.load(ordering: .relaxed)
        let later = DispatchSemaphore(value: 0)
        loop.schedule(after: 30_000_000) { later.signal() }  // fifteen intervals
        XCTAssertEqual(later.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(ticks.load(ordering: .relaxed), after)
    }

    func testACancelledTimerNeverRuns() throws {
        let ran = Atomic<Bool>(false)
        let sentinel = DispatchSemaphore(value: 0)
        let t = loop.schedule(after: 5_000_000) { ran.store(true, ordering: .relaxed) }
        loop.schedule(after: 20_000_000) { sentinel.signal() }
        loop.cancel(t)
        try loop.start()
        XCTAssertEqual(sentinel.wait(timeout: .now() + 10), .success)
        XCTAssertFalse(ran.load(ordering: .relaxed))
    }

    /// The loop waits on a descriptor that never becomes ready and no timer: only the
    /// eventfd can wake it, and stop must return at once.
    func testStopJoinsPromptlyWhileAHandlerIsIdle() throws {
        let (r, _) = try makePipe()
        loop.add(fd: r, events: .readable) { _ in XCTFail("nothing was written") }
        let started = DispatchSemaphore(value: 0)
        loop.execute { started.signal() }
        try loop.start()
        XCTAssertEqual(started.wait(timeout: .now() + 10), .success)
        let stopped = DispatchSemaphore(value: 0)
        let t0 = MonotonicClock.nanos()
        let loop = self.loop!
        DispatchQueue.global().async { loop.stop(); stopped.signal() }
        XCTAssertEqual(stopped.wait(timeout: .now() + 5), .success, "stop did not wake the loop")
        XCTAssertLessThan(MonotonicClock.nanos() - t0, 1_000_000_000)
        XCTAssertTrue(loop.hasEnded)
    }

    func testWorkRunsInOrderOnTheLoopAndBeforeStop() throws {
        let order = Mutex<[Int]>([])
        try loop.start()
        for i in 0..<100 { loop.execute { [loop] in order.withLock { $0.append(loop!.isLoopThread ? i : -1) } } }
        loop.stop()
        XCTAssertEqual(order.withLock { $0 }, Array(0..<100))
        // After the loop ended, work is dropped (and stop again is harmless).
        loop.execute { order.withLock { $0.append(-2) } }
        loop.stop()
        XCTAssertEqual(order.withLock { $0 }.count, 100)
    }

    func testAHandlerRemovedInTheSameTurnDoesNotRun() throws {
        let (r1, w1) = try makePipe()
        let (r2, w2) = try makePipe()
        XCTAssertEqual(write(w1, [UInt8]([1]), 1), 1)
        XCTAssertEqual(write(w2, [UInt8]([1]), 1), 1)
        let calls = Mutex<[String]>([])
        let done = DispatchSemaphore(value: 0)
        let second = Mutex<EventLoop.Handler?>(nil)
        loop.add(fd: r1) { [loop] _ in
            calls.withLock { $0.append("first") }
            loop!.remove(second.withLock { $0 }!)
            var b: UInt8 = 0
            _ = read(r1, &b, 1)
            done.signal()
        }
        second.withLock { $0 = loop.add(fd: r2) { _ in calls.withLock { $0.append("second") } } }
        try loop.start()
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        loop.stop()
        XCTAssertEqual(calls.withLock { $0 }, ["first"])
    }

    func testHangUpIsReported() throws {
        let (r, w) = try makePipe()
        let seen = DispatchSemaphore(value: 0)
        let events = Mutex<IOEvents>([])
        loop.add(fd: r) { [loop] e in
            events.withLock { $0 = e }
            loop!.stop()  // from the loop's thread: only asks
            seen.signal()
        }
        try loop.start()
        close(w)
        pipes.removeAll { $0 == w }
        XCTAssertEqual(seen.wait(timeout: .now() + 10), .success)
        XCTAssertTrue(events.withLock { $0 }.contains(.hangUp), "\(events.withLock { $0 })")
        loop.stop()  // joins
        XCTAssertTrue(loop.hasEnded)
    }

    func testWritableInterestCanBeTurnedOnAndOff() throws {
        let (_, w) = try makePipe()
        let writable = DispatchSemaphore(value: 0)
        let count = Atomic<Int>(0)
        let box = Mutex<EventLoop.Handler?>(nil)
        let handler = loop.add(fd: w, events: []) { [loop] e in
            XCTAssertTrue(e.contains(.writable))
            count.add(1, ordering: .relaxed)
            loop!.setEvents(box.withLock { $0 }!, [])  // once is enough
            writable.signal()
        }
        box.withLock { $0 = handler }
        try loop.start()
        let synced = DispatchSemaphore(value: 0)
        loop.execute { synced.signal() }
        XCTAssertEqual(synced.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(count.load(ordering: .relaxed), 0, "not watched for writing yet")
        loop.setEvents(handler, .writable)
        XCTAssertEqual(writable.wait(timeout: .now() + 10), .success)
        loop.execute { synced.signal() }
        XCTAssertEqual(synced.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(count.load(ordering: .relaxed), 1)
    }
}
