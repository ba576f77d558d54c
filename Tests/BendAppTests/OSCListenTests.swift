// SPDX-License-Identifier: GPL-3.0-or-later
import BendOSC
import BendSystem
import Foundation
import Glibc
import XCTest

/// Where `play --osc` listens and whom it hears; OSC over TCP.
final class OSCListenTests: XCTestCase {
    /// A listener other interfaces can reach needs an allow-list: exit 2, saying why.
    func testNonLoopbackListenerNeedsAllowList() throws {
        for spec in ["0.0.0.0:9000", "[::]:9000"] {
            let r = try BinaryRunner.run(["play", "--no-terminal", "--osc", spec, "-d", "null"])
            XCTAssertEqual(r.status, 2, r.stderr)
            XCTAssertTrue(r.stderr.contains("is not a loopback address; OSC has no authentication"), r.stderr)
        }
        let bad = try BinaryRunner.run(["play", "--no-terminal", "--osc", "0.0.0.0:9000", "--osc-allow", "phone", "-d", "null"])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains("option '--osc-allow': 'phone' is not a numeric IPv4 or IPv6 address"), bad.stderr)
        let port = try BinaryRunner.run(["play", "--no-terminal", "--osc", "127.0.0.1:70000", "-d", "null"])
        XCTAssertEqual(port.status, 2)
        XCTAssertTrue(port.stderr.contains("expected [ADDR:]PORT with PORT in 0…65535, got '127.0.0.1:70000'"), port.stderr)
        let orphan = try BinaryRunner.run(["play", "--no-terminal", "--osc-tcp", "--script", "x.jsonl", "-d", "null"])
        XCTAssertEqual(orphan.status, 2)
    }

    /// On this machine's own non-loopback address: a sender not in --osc-allow is
    /// dropped unheard (logged once); one in it plays.
    func testAllowListOnAnInterface() throws {
        guard let ip = Self.nonLoopbackIPv4() else { throw XCTSkip("no non-loopback IPv4 interface") }
        for (allow, heard) in [("192.0.2.254", false), (ip, true)] {
            let dir = try BinaryRunner.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: dir) }
            let play = try OSCPlayProcess(["play", "--no-terminal", "--osc", "\(ip):0", "--osc-allow", allow,
                                           "--record", dir.appendingPathComponent("t.wav").path, "-d", "bendsynth_no_such_pcm"], dir: dir)
            let c = UDPClient(port: play.port, host: ip, bindTo: ip)
            c.send(OSCEncoder.encode("/bendsynth/touch", [.int32(1), .float(0.5), .float(0.5)])!)
            if heard {
                try waitUntil("the allowed sender's touch") { c.voices()?.touches == 1 }
            } else {
                XCTAssertNil(c.voices(), "no reply to a sender not allowed")
                try waitUntil("the refusal note") { play.stderr.contains("osc: ignoring \(ip): not in --osc-allow") }
                XCTAssertEqual(play.stderr.components(separatedBy: "osc: ignoring").count - 1, 1, "logged once")
            }
            XCTAssertEqual(play.terminate(), 0, play.stderr)
        }
    }

    /// TCP: liblo's oscsend (osc.tcp://) and a framed client; closing a connection ends its touches.
    func testTCP() throws {
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let touches = dir.appendingPathComponent("t.jsonl").path
        let play = try OSCPlayProcess(["play", "--no-terminal", "--osc", "127.0.0.1:0", "--osc-tcp", "--record-touches", touches,
                                       "--record", dir.appendingPathComponent("t.wav").path, "-d", "bendsynth_no_such_pcm"], dir: dir)
        XCTAssertTrue(play.stderr.contains("OSC listening on tcp 127.0.0.1:"), play.stderr)
        // oscsend connects, sends one touch, closes: the touch starts and ends.
        XCTAssertEqual(try play.client("/usr/bin/oscsend", ["osc.tcp://127.0.0.1:\(play.port)", "/bendsynth/touch", "iff", "3", "0.5", "0.5"]), 0)
        let a = try TCPClient(port: play.port)
        a.send(OSCEncoder.encode("/bendsynth/touch", [.int32(1), .float(0.25), .float(0.5)])!)
        try waitUntil("the framed client's touch") { a.voices()?.mine == 1 }
        try waitUntil("a voice") { a.voices()?.voices == 1 }
        a.close()
        let b = try TCPClient(port: play.port)
        try waitUntil("the closed connection's touch to end") { b.voices()?.touches == 0 }
        XCTAssertEqual(play.terminate(), 0, play.stderr)
        let lines = try String(contentsOfFile: touches, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.filter { $0.contains("\"down\"") }.count, 2, "oscsend's and the framed client's")
        XCTAssertEqual(lines.filter { $0.contains("\"up\"") }.count, 2)
    }

    static func nonLoopbackIPv4() -> String? {
        SocketAddress.interfaceAddresses().first { $0.family == .ipv4 && !$0.isLoopback }?.host
    }
}

/// OSC over TCP with the 4-byte size before each packet.
final class TCPClient {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)

    init(port: UInt16) throws {
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_port = port.bigEndian
        inet_pton(AF_INET, "127.0.0.1", &a.sin_addr)
        let rc = withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard rc == 0 else { throw POSIXError(.ECONNREFUSED) }
        var tv = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    func send(_ bytes: [UInt8]) {
        let n = UInt32(bytes.count)
        let framed = [UInt8(n >> 24), UInt8(truncatingIfNeeded: n >> 16), UInt8(truncatingIfNeeded: n >> 8), UInt8(truncatingIfNeeded: n)] + bytes
        _ = framed.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, 0) }
    }

    func voices() -> (voices: Int, touches: Int, mine: Int)? {
        send(OSCEncoder.encode("/bendsynth/voices", [])!)
        var size = [UInt8](repeating: 0, count: 4)
        guard recv(fd, &size, 4, Int32(MSG_WAITALL)) == 4 else { return nil }
        let n = size.reduce(0) { $0 << 8 | Int($1) }
        var body = [UInt8](repeating: 0, count: n)
        guard recv(fd, &body, n, Int32(MSG_WAITALL)) == n,
              case .message(let m)? = try? OSCPacket.decode(body), m.types == "iii",
              case .int32(let v) = m.arguments[0], case .int32(let t) = m.arguments[1], case .int32(let o) = m.arguments[2] else { return nil }
        return (Int(v), Int(t), Int(o))
    }

    func close() { Glibc.close(fd) }
}
