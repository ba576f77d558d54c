// SPDX-License-Identifier: GPL-3.0-or-later
import BendInput
import BendSystem
import Foundation
import Glibc
import Synchronization
import XCTest

/// TerminalInput's parts on their own threads: the reader on its event loop, the pad
/// view on its own timer, so drawing never holds up reading.
final class TerminalInputThreadTests: XCTestCase {
    typealias Collector = TerminalInputPtyTests.Collector

    func openPty() throws -> (master: Int32, slave: Int32) {
        var master: Int32 = -1, slave: Int32 = -1
        guard openpty(&master, &slave, nil, nil, nil) == 0 else { throw SystemError(call: "openpty") }
        try TerminalMode.setWindowSize(fd: slave, columns: 80, rows: 24)
        return (master, slave)
    }

    func send(_ fd: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        XCTAssertEqual(write(fd, bytes, bytes.count), bytes.count)
    }

    static func threadName() -> String {
        guard let f = fopen("/proc/thread-self/comm", "r") else { return "?" }
        defer { fclose(f) }
        var buffer = [CChar](repeating: 0, count: 64)
        guard fgets(&buffer, 64, f) != nil else { return "?" }
        return String(decoding: buffer.prefix { $0 != 0 && $0 != 10 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    func testReaderAndViewRunOnTheirOwnThreads() throws {
        let pty = try openPty()
        defer { close(pty.slave); close(pty.master) }
        let names = Mutex<(status: Set<String>, events: Set<String>)>(([], []))
        let c = Collector()
        let drawn = DispatchSemaphore(value: 0)
        let input = TerminalInput(inputFD: pty.slave, outputFD: pty.slave, status: { _ in
            names.withLock { _ = $0.status.insert(TerminalInputThreadTests.threadName()) }
            drawn.signal()
        }, onEvent: { e in
            names.withLock { _ = $0.events.insert(TerminalInputThreadTests.threadName()) }
            c.add(e)
        }, onFinish: c.finished)
        try input.start()
        // Keep the master read so drawing never blocks.
        let draining = Atomic<Bool>(true)
        let master = pty.master
        let drain = try SystemThread(name: "test drain") {
            var b = [UInt8](repeating: 0, count: 4096)
            while draining.load(ordering: .relaxed) {
                if (try? IOWait.wait(fd: master, for: .readable, timeout: 0.05))?.contains(.readable) == true { _ = read(master, &b, b.count) }
            }
        }
        send(pty.master, "w")
        XCTAssertTrue(c.wait { !$0.events.isEmpty })
        XCTAssertEqual(drawn.wait(timeout: .now() + 10), .success)
        input.stop()
        draining.store(false, ordering: .relaxed)
        drain.join()
        let seen = names.withLock { $0 }
        XCTAssertEqual(seen.events, ["bendsynth termi"], "events on the reader's loop (names are cut to 15 bytes)")
        XCTAssertEqual(seen.status, ["bendsynth pad v"], "frames on the view's thread")
    }

    /// The screen's output is stuck (a full pipe nobody reads): the view blocks in its
    /// write, and keys still become events at once.
    func testStuckOutputDoesNotHoldUpInput() throws {
        let pty = try openPty()
        defer { close(pty.slave); close(pty.master) }
        var out: [Int32] = [-1, -1]
        XCTAssertEqual(pipe(&out), 0)
        defer { close(out[0]); close(out[1]) }
        let c = Collector()
        let input = TerminalInput(inputFD: pty.slave, outputFD: out[1], frameInterval: 5_000_000, onEvent: c.add, onFinish: c.finished)
        try input.start()
        // Fill the pipe: the next frame's write blocks.
        _ = fcntl(out[1], F_SETFL, O_NONBLOCK)
        let junk = [UInt8](repeating: 0x20, count: 4096)
        while write(out[1], junk, junk.count) > 0 {}
        _ = fcntl(out[1], F_SETFL, 0)
        for key in ["w", "e", "t"] { send(pty.master, key) }
        XCTAssertTrue(c.wait { $0.events.count == 3 }, "\(c.events)")
        // Unstick the view so stop can join it.
        let reader = out[0]
        let draining = Atomic<Bool>(true)
        let drain = try SystemThread(name: "test drain") {
            var b = [UInt8](repeating: 0, count: 65_536)
            while draining.load(ordering: .relaxed) {
                if (try? IOWait.wait(fd: reader, for: .readable, timeout: 0.05))?.contains(.readable) == true { _ = read(reader, &b, b.count) }
            }
        }
        input.stop()
        draining.store(false, ordering: .relaxed)
        drain.join()
        XCTAssertEqual(c.finish, .stopped)
        XCTAssertEqual(c.events.count, 6, "three downs, and their ups on stop")
    }
}
