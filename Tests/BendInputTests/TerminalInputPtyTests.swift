// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendInput
import BendSystem
import Foundation
import Glibc
import XCTest

/// TerminalInput on the slave side of a pseudo-terminal; the test plays the terminal
/// on the master side.
final class TerminalInputPtyTests: XCTestCase {
    /// Collects what the reader hands out; `wait` blocks on a condition, not a sleep.
    final class Collector: @unchecked Sendable {
        let condition = NSCondition()
        var events: [ControlEvent] = []
        var finish: TerminalInput.Finish?

        func add(_ e: ControlEvent) { condition.lock(); events.append(e); condition.broadcast(); condition.unlock() }
        func finished(_ f: TerminalInput.Finish) { condition.lock(); finish = f; condition.broadcast(); condition.unlock() }
        /// Waits (at most 10 s, as a guard against a hang) until `done` holds.
        func wait(_ done: (Collector) -> Bool) -> Bool {
            condition.lock()
            defer { condition.unlock() }
            let limit = Date(timeIntervalSinceNow: 10)
            while !done(self) { if !condition.wait(until: limit) { return done(self) } }
            return true
        }
    }

    func openPty() throws -> (master: Int32, slave: Int32) {
        var master: Int32 = -1, slave: Int32 = -1
        guard openpty(&master, &slave, nil, nil, nil) == 0 else { throw SystemError(call: "openpty") }
        try TerminalMode.setWindowSize(fd: slave, columns: 80, rows: 24)
        return (master, slave)
    }

    /// Reads from the master until `prefix` has arrived in full; returns all bytes read.
    func readUntil(_ fd: Int32, contains needle: [UInt8]) -> [UInt8] {
        var got: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while got.firstRange(of: needle) == nil {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 10_000) == 1 else { break }
            let n = read(fd, &buffer, buffer.count)
            guard n > 0 else { break }
            got += buffer[0..<n]
        }
        return got
    }

    /// Writes `text` to the master in one write (the terminal typing it).
    func send(_ fd: Int32, _ text: String, file: StaticString = #filePath, line: UInt = #line) {
        let bytes = Array(text.utf8)
        XCTAssertEqual(write(fd, bytes, bytes.count), bytes.count, file: file, line: line)
    }

    func lflag(_ fd: Int32) -> tcflag_t {
        var t = termios()
        XCTAssertEqual(tcgetattr(fd, &t), 0)
        return t.c_lflag
    }

    func testHangUpWithHeldMouseButtonReleasesTheTouch() throws {
        let (master, slave) = try openPty()
        defer { close(slave) }
        let c = Collector()
        let input = TerminalInput(inputFD: slave, outputFD: slave, onEvent: c.add, onFinish: c.finished)
        try input.start()
        defer { input.stop() }
        // The modes come first, byte for byte; the terminal is raw.
        let start = readUntil(master, contains: Array(TerminalScreen.enter.utf8))
        XCTAssertEqual(Array(start.prefix(TerminalScreen.enter.utf8.count)), Array(TerminalScreen.enter.utf8))
        XCTAssertEqual(lflag(slave) & tcflag_t(ICANON | ECHO | ISIG), 0)

        // RW-40 B: left press at (10,5), then the terminal goes away.
        send(master, "\u{1B}[<0;10;5M")
        XCTAssertTrue(c.wait { !$0.events.isEmpty })
        close(master)
        XCTAssertTrue(c.wait { $0.finish != nil })
        let p = pad80x24.point(column: 10, row: 5)
        XCTAssertEqual(c.events, [.touch(id: 0, phase: .down, x: p.x, y: p.y), .touch(id: 0, phase: .up, x: p.x, y: p.y)])
        XCTAssertEqual(c.finish, .hangUp)
    }

    func testQuitKeyRestoresTheTerminal() throws {
        let (master, slave) = try openPty()
        defer { close(slave); close(master) }
        let before = lflag(slave)
        let c = Collector()
        let input = TerminalInput(inputFD: slave, outputFD: slave, onEvent: c.add, onFinish: c.finished)
        try input.start()
        defer { input.stop() }
        _ = readUntil(master, contains: Array(TerminalScreen.enter.utf8))
        // A toggled key touch, a kitty-style split report, then q.
        send(master, "m\u{1B}[<0;")
        send(master, "3;4M\u{1B}[<0;3;4mq")
        XCTAssertTrue(c.wait { $0.finish != nil })
        let output = readUntil(master, contains: Array(TerminalScreen.exit.utf8))
        XCTAssertNotNil(output.firstRange(of: Array(TerminalScreen.exit.utf8)), "exit modes written")
        XCTAssertEqual(c.finish, .quit)
        XCTAssertEqual(lflag(slave), before, "terminal settings restored")
        let p = pad80x24.point(column: 3, row: 4)
        XCTAssertEqual(c.events, [
            keyEvent("m", .down),
            .touch(id: 0, phase: .down, x: p.x, y: p.y), .touch(id: 0, phase: .up, x: p.x, y: p.y),
            keyEvent("m", .up),  // ended on quit
        ])
    }

    func testStopFromAnotherThread() throws {
        let (master, slave) = try openPty()
        defer { close(slave); close(master) }
        let c = Collector()
        let input = TerminalInput(inputFD: slave, outputFD: nil, onEvent: c.add, onFinish: c.finished)
        try input.start()
        send(master, "w")
        XCTAssertTrue(c.wait { !$0.events.isEmpty })
        input.stop()
        input.stop()
        XCTAssertEqual(c.finish, .stopped)
        XCTAssertEqual(held(c.events), [], "the held w got its up")
        XCTAssertEqual(c.events.count, 2)
    }
}
