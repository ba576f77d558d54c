// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
@testable import BendOSC
import BendSystem
import Glibc
import Synchronization
import XCTest

/// The receiver on BendSystem's runtime: its address over `SocketAddress`, its loop.
final class OSCReceiverTests: XCTestCase {
    func testListenAddressKeepsItsSyntaxAndAllowListOverSocketAddress() throws {
        let port = try OSCListenAddress("9000", allow: [])
        XCTAssertEqual(port.address.description, "127.0.0.1:9000")
        XCTAssertTrue(port.isLoopback)
        let v6 = try OSCListenAddress("[::1]:0", allow: [])
        XCTAssertEqual(v6.address.family, .ipv6)
        XCTAssertTrue(v6.isLoopback)
        let all = try OSCListenAddress("0.0.0.0:9000", allow: ["10.0.0.7", "fd00::8"])
        XCTAssertFalse(all.isLoopback)
        func allows(_ host: String) -> Bool { all.allows(SocketAddress(numeric: host, port: 1234)!) }
        XCTAssertTrue(allows("10.0.0.7"))
        XCTAssertTrue(allows("::ffff:10.0.0.7"), "an IPv4 sender on an IPv6 socket is the same host")
        XCTAssertTrue(allows("fd00::8"))
        XCTAssertTrue(allows("127.0.0.1"), "loopback is always heard")
        XCTAssertTrue(allows("::1"))
        XCTAssertFalse(allows("10.0.0.9"))
        func problem(_ spec: String, _ allow: [String] = []) -> String {
            do { _ = try OSCListenAddress(spec, allow: allow); return "no error" } catch { return error.description }
        }
        XCTAssertEqual(problem("fe80::1:9000"), "option '--osc': an IPv6 address goes in brackets, [ADDR]:PORT; got 'fe80::1:9000'")
        XCTAssertEqual(problem("[::1]"), "option '--osc': expected [IPv6]:PORT, got '[::1]'")
        XCTAssertEqual(problem("127.0.0.1:70000"), "option '--osc': expected [ADDR:]PORT with PORT in 0…65535, got '127.0.0.1:70000'")
        XCTAssertEqual(problem("0.0.0.0:1", ["phone"]), "option '--osc-allow': 'phone' is not a numeric IPv4 or IPv6 address")
        XCTAssertTrue(problem("0.0.0.0:1").hasPrefix("option '--osc': 0.0.0.0 is not a loopback address"))
    }

    /// A touch arrives over UDP on the loop's thread; stop() wakes the loop at once (it
    /// polled a flag every 50 ms) and the sender's touch has ended when it returns.
    func testUDPTouchArrivesAndStopWakesTheLoopAtOnceEndingTheTouch() throws {
        var stops: [Double] = []
        for round in 0..<5 {
            let events = Mutex<[ControlEvent]>([])
            let r = try OSCReceiver(address: try OSCListenAddress("127.0.0.1:0", allow: []), tcp: false, timeout: 2,
                                    emit: { e in events.withLock { $0.append(e) } }, log: { _ in }, voices: { 0 })
            r.start()
            if round == 0 {
                let to = try SocketAddress.parse(r.boundDescription)
                let s = try Socket.open(.ipv4, .datagram)
                defer { s.close() }
                let bytes = try XCTUnwrap(OSCEncoder.encode("/bendsynth/touch", [.int32(4), .float(0.25), .float(0.5)]))
                _ = try bytes.withUnsafeBytes { try s.send($0, to: to) }
                let deadline = MonotonicClock.nanos() + 2_000_000_000
                while events.withLock({ $0.isEmpty }), MonotonicClock.nanos() < deadline { usleep(1_000) }
                XCTAssertEqual(events.withLock { $0 }, [.touch(id: 1, phase: .down, x: 0.25, y: 0.5)])
                XCTAssertEqual(r.activeTouches, 1)
            }
            usleep(20_000)
            let t0 = MonotonicClock.nanos()
            r.stop()
            stops.append(Double(MonotonicClock.nanos() - t0) / 1e6)
            if round == 0 {
                XCTAssertEqual(events.withLock { $0.last }, .touch(id: 1, phase: .up, x: 0, y: 0), "stop ends the touch")
                XCTAssertEqual(r.activeTouches, 0)
            }
        }
        let median = stops.sorted()[2]
        print("OSC receiver stop: median \(String(format: "%.2f", median)) ms of \(stops.map { String(format: "%.2f", $0) })")
        XCTAssertLessThan(median, 10, "stop wakes the loop; it does not wait for a polling period")
    }

    /// TCP: a frame announcing more than a packet may hold closes its connection (logged).
    /// (The connection limits: OSCTCPLimitTests.)
    func testTCPOversizedFrameClosesItsConnection() throws {
        let lines = Mutex<[String]>([])
        let r = try OSCReceiver(address: try OSCListenAddress("127.0.0.1:0", allow: []), tcp: true, timeout: 2,
                                emit: { _ in }, log: { l in lines.withLock { $0.append(l) } }, voices: { 0 })
        r.start()
        defer { r.stop() }
        let to = try SocketAddress.parse(r.boundDescription)
        /// True when the receiver closed `s` (end of stream within 2 s).
        func closedByReceiver(_ s: Socket) throws -> Bool {
            var byte: UInt8 = 0
            guard try IOWait.wait(fd: s.fd, for: .readable, timeout: 2).contains(.readable) else { return false }
            return try withUnsafeMutableBytes(of: &byte) { try s.receive(into: $0) } == 0
        }
        let first = try Socket.connected(to: to, timeout: 2)
        defer { first.close() }
        let oversized: [UInt8] = [0, 1, 0, 0]   // 65 536 bytes: more than OSCPacket.maxSize
        try oversized.withUnsafeBytes { try first.sendAll($0) }
        XCTAssertTrue(try closedByReceiver(first), "the connection that sent it is closed")
        XCTAssertEqual(lines.withLock { $0 }.last,
                       "osc: \(try first.localAddress()) sent a TCP frame of 65536 bytes (more than 65507); closing the connection")
    }
}
