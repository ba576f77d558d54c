// SPDX-License-Identifier: GPL-3.0-or-later
@testable import BendOSC
import BendSystem
import Foundation
import Glibc
import XCTest

/// One OSC client cannot lock out the rest over TCP (issue 16): idle connections make
/// room and time out, the connection limit is per host, refusals are logged once a
/// second with a count. Clients come from different loopback hosts (127.0.0.N).
final class OSCTCPLimitTests: XCTestCase {
    /// Log lines as the receiver's thread writes them; the test waits for one on a condition.
    private final class Lines: @unchecked Sendable {
        private let condition = NSCondition()
        private var lines: [String] = []
        func add(_ l: String) { condition.lock(); lines.append(l); condition.broadcast(); condition.unlock() }
        var all: [String] { condition.lock(); defer { condition.unlock() }; return lines }
        /// Waits (woken by each line; `seconds` at most) until `done` holds. - Returns: whether it did.
        func wait(seconds: Double, until done: ([String]) -> Bool) -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            condition.lock()
            defer { condition.unlock() }
            while !done(lines) { if !condition.wait(until: deadline) { return done(lines) } }
            return true
        }
    }

    /// A receiver on TCP loopback with its log lines.
    private final class Listener: @unchecked Sendable {
        let receiver: OSCReceiver
        let lines = Lines()
        let to: SocketAddress

        init(idleTimeout: Double = OSCReceiver.defaultIdleTimeout) throws {
            let lines = self.lines
            receiver = try OSCReceiver(address: try OSCListenAddress("127.0.0.1:0", allow: []), tcp: true, timeout: 2,
                                       idleTimeout: idleTimeout, emit: { _ in },
                                       log: { lines.add($0) }, voices: { 0 })
            receiver.start()
            to = try SocketAddress.parse(receiver.boundDescription)
        }

        /// A connection from loopback host `host` (127.0.0.N).
        func connect(from host: String) throws -> Socket {
            let s = try Socket.open(.ipv4, .stream, nonBlocking: true)
            do {
                try s.bind(to: SocketAddress(numeric: host, port: 0)!)
                try to.withSockaddr { (sa, len) throws(SystemError) in
                    try s.connect(rawAddress: sa, length: len, name: "connect(\(to))", timeout: 2)
                }
            } catch {
                s.close()
                throw error
            }
            return s
        }

        var log: [String] { lines.all }
    }

    /// Sends one OSC packet with its 4-byte size.
    private func send(_ s: Socket, _ packet: [UInt8]) throws {
        let n = UInt32(packet.count)
        let framed = [UInt8(n >> 24), UInt8(truncatingIfNeeded: n >> 16), UInt8(truncatingIfNeeded: n >> 8), UInt8(truncatingIfNeeded: n)] + packet
        try framed.withUnsafeBytes { try s.sendAll($0) }
    }

    /// `/bendsynth/voices` on the connection: (all OSC touches, this connection's), or nil
    /// when the receiver closed it or did not answer within 2 s.
    private func query(_ s: Socket) throws -> (touches: Int, mine: Int)? {
        try? send(s, osc_("/bendsynth/voices"))
        var buffer = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 256)
        let deadline = MonotonicClock.nanos() + 2_000_000_000
        while MonotonicClock.nanos() < deadline {
            guard try IOWait.wait(fd: s.fd, for: .readable, timeout: 2).contains(.readable) else { return nil }
            let n = recv(s.fd, &chunk, chunk.count, 0)
            guard n > 0 else { return nil }
            buffer += chunk[0..<n]
            guard buffer.count >= 4 else { continue }
            let size = buffer[0..<4].reduce(0) { $0 << 8 | Int($1) }
            guard buffer.count >= 4 + size else { continue }
            guard case .message(let m)? = try? OSCPacket.decode(Array(buffer[4..<(4 + size)])),
                  case .int32(let t) = m.arguments[1], case .int32(let o) = m.arguments[2] else { return nil }
            return (Int(t), Int(o))
        }
        return nil
    }

    /// True when the receiver has closed `s` (end of stream within `seconds`).
    private func closedByReceiver(_ s: Socket, within seconds: Double = 2) throws -> Bool {
        var byte: UInt8 = 0
        guard try IOWait.wait(fd: s.fd, for: .readable, timeout: seconds).contains(.readable) else { return false }
        return (try? withUnsafeMutableBytes(of: &byte) { try s.receive(into: $0) }) == 0
    }

    /// 16 idle connections from 16 hosts fill the table; a 17th host's connection is not
    /// refused: the connection idle longest (holding no touch) makes room, and it plays.
    func testIdleConnectionsDoNotKeepAnotherSenderOut() throws {
        let l = try Listener()
        defer { l.receiver.stop() }
        var idle: [Socket] = []
        defer { idle.forEach { $0.close() } }
        for n in 1...OSCReceiver.maxConnections {
            let s = try l.connect(from: "127.0.0.\(n)")
            XCTAssertNotNil(try query(s), "connection \(n) is heard")
            idle.append(s)
        }
        let player = try l.connect(from: "127.0.0.99")
        defer { player.close() }
        try send(player, osc_("/bendsynth/touch", .int32(1), .float(0.5), .float(0.5)))
        let answer = try query(player)
        XCTAssertEqual(answer?.mine, 1, "the new sender plays")
        XCTAssertTrue(try closedByReceiver(idle[0]), "the connection idle longest made room")
        XCTAssertNotNil(try query(idle[1]), "the others stay")
        XCTAssertTrue(l.log.contains { $0.contains("127.0.0.1:") && $0.contains("to make room for a new TCP connection") }, "\(l.log)")
    }

    /// Four connections from one host holding touches are that host's limit: its fifth is
    /// refused while another host still gets in; 200 refusals make about one line a
    /// second, whose counts add up to 200.
    func testConnectionLimitIsPerHostAndRefusalsAreLoggedOnceASecond() throws {
        let l = try Listener()
        defer { l.receiver.stop() }
        var held: [Socket] = []
        defer { held.forEach { $0.close() } }
        for id in 0..<Int32(OSCReceiver.maxConnectionsPerHost) {
            let s = try l.connect(from: "127.0.0.1")
            try send(s, osc_("/bendsynth/touch", .int32(id), .float(0.5), .float(0.5)))
            XCTAssertEqual(try query(s)?.mine, 1)
            held.append(s)
        }
        let t0 = MonotonicClock.nanos()
        for _ in 0..<200 {
            let s = try l.connect(from: "127.0.0.1")
            XCTAssertTrue(try closedByReceiver(s), "a fifth connection of the host is refused")
            s.close()
        }
        let seconds = Double(MonotonicClock.nanos() - t0) / 1e9
        let other = try l.connect(from: "127.0.0.2")
        defer { other.close() }
        try send(other, osc_("/bendsynth/touch", .int32(1), .float(0.5), .float(0.5)))
        XCTAssertEqual(try query(other)?.mine, 1, "another host plays")
        // The last count comes once its second is over: wait for that line (the 50 ms tick writes it).
        func refusals(_ log: [String]) -> (lines: Int, standFor: Int) { countLines(log, "has 4 TCP connections holding touches") }
        _ = l.lines.wait(seconds: 5) { refusals($0).standFor >= 200 }
        let r = refusals(l.log)
        print("OSC TCP: 200 refusals in \(String(format: "%.2f", seconds)) s logged in \(r.lines) lines")
        XCTAssertEqual(r.standFor, 200, "\(l.log)")
        XCTAssertLessThanOrEqual(Double(r.lines), seconds + 2, "one line a second at most: \(l.log)")
        for s in held { XCTAssertEqual(try query(s)?.mine, 1, "the host's four connections play on") }
    }

    /// A connection that sends nothing for the idle timeout and holds no touch is closed;
    /// one holding a touch is not.
    func testIdleConnectionTimesOut() throws {
        let l = try Listener(idleTimeout: 0.3)
        defer { l.receiver.stop() }
        let touching = try l.connect(from: "127.0.0.1")
        defer { touching.close() }
        try send(touching, osc_("/bendsynth/touch", .int32(1), .float(0.5), .float(0.5)))
        let idle = try l.connect(from: "127.0.0.2")
        defer { idle.close() }
        XCTAssertNotNil(try query(idle))
        let t0 = MonotonicClock.nanos()
        XCTAssertTrue(try closedByReceiver(idle, within: 5), "the idle connection is closed")
        let waited = Double(MonotonicClock.nanos() - t0) / 1e9
        print(String(format: "OSC TCP: an idle connection (timeout 0.3 s) closed after %.2f s", waited))
        XCTAssertGreaterThanOrEqual(waited, 0.25)
        XCTAssertLessThan(waited, 1.5)
        XCTAssertEqual(try query(touching)?.mine, 1, "the connection holding a touch stays, though as quiet")
        XCTAssertTrue(l.log.contains { $0.contains("nothing for 0.3 s and no touch held") }, "\(l.log)")
    }
}
