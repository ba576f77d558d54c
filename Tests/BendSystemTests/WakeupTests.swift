// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem
import Glibc
import XCTest

final class WakeupTests: XCTestCase {
    /// Each signal lets exactly one wait through; none left over.
    func testSignalsAreCounted() throws {
        let w = try Wakeup("test")
        w.signal(); w.signal(); w.signal()
        XCTAssertTrue(w.take())
        XCTAssertTrue(w.wait(timeoutNanos: 0))
        w.wait()
        XCTAssertFalse(w.take(), "three signals, three takes: none left")
    }

    /// A wait with a deadline and no signal returns false no earlier than the deadline.
    func testTheDeadlinePasses() throws {
        let w = try Wakeup("test")
        let start = MonotonicClock.nanos()
        XCTAssertFalse(w.wait(timeoutNanos: 20_000_000))
        XCTAssertGreaterThanOrEqual(MonotonicClock.nanos() - start, 20_000_000)
    }

    /// A signal from another thread ends a wait with no deadline, and the descriptor is
    /// readable while the signal is pending (an EventLoop can watch it).
    func testAnotherThreadWakesTheWaiter() throws {
        let w = try Wakeup("test"), back = try Wakeup("back")
        let thread = try SystemThread(name: "signaller") {
            back.wait()
            w.signal()
        }
        var pfd = pollfd(fd: w.fd, events: Int16(POLLIN), revents: 0)
        XCTAssertEqual(poll(&pfd, 1, 0), 0, "not readable before a signal")
        back.signal()
        w.wait()
        thread.join()
        XCTAssertFalse(w.take())
    }
}
