// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem
import Dispatch
import Glibc
import Synchronization
import XCTest

/// `SystemThread`: name, join, isCurrent (its scheduling is tested with the render
/// thread, BendAudioTests.ALSARenderThreadTests).
final class SystemThreadTests: XCTestCase {
    /// The kernel's name of the calling thread.
    static func currentName() -> String {
        let path = "/proc/thread-self/comm"
        guard let f = fopen(path, "r") else { return "?" }
        defer { fclose(f) }
        var buffer = [CChar](repeating: 0, count: 64)
        guard fgets(&buffer, 64, f) != nil else { return "?" }
        return String(decoding: buffer.prefix { $0 != 0 && $0 != 10 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    func testNameReachesTheKernelCutTo15Bytes() throws {
        let seen = Mutex<[String]>([])
        let a = try SystemThread(name: "bendsynth test") { seen.withLock { $0.append(SystemThreadTests.currentName()) } }
        a.join()
        let b = try SystemThread(name: "bendsynth a very long name") { seen.withLock { $0.append(SystemThreadTests.currentName()) } }
        b.join()
        XCTAssertEqual(seen.withLock { $0 }, ["bendsynth test", "bendsynth a ver"])
    }

    func testJoinWaitsForTheBodyAndIsCurrentHoldsInsideOnly() throws {
        let inside = Mutex<Bool?>(nil)
        let done = Atomic<Bool>(false)
        let box = Mutex<SystemThread?>(nil)
        let ready = DispatchSemaphore(value: 0)
        let thread = try SystemThread(name: "bendsynth join") {
            ready.wait()
            let me = box.withLock { $0 }
            inside.withLock { $0 = me?.isCurrent }
            me?.join()  // on itself: returns at once instead of deadlocking
            done.store(true, ordering: .releasing)
        }
        box.withLock { $0 = thread }
        XCTAssertFalse(thread.isCurrent)
        ready.signal()
        thread.join()
        XCTAssertTrue(done.load(ordering: .acquiring), "join returned before the body")
        XCTAssertEqual(inside.withLock { $0 }, true)
        thread.join()  // a second join returns at once
    }

    func testDetachedThreadRuns() throws {
        let ran = DispatchSemaphore(value: 0)
        try SystemThread.detached(name: "bendsynth detached") { ran.signal() }
        XCTAssertEqual(ran.wait(timeout: .now() + 10), .success)
    }
}

