// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem
import Glibc
import XCTest

/// `SocketAddress` (text forms, v4 and v6) and `Socket` (TCP, UDP, errors).
final class SocketAddressTests: XCTestCase {
    func testParseTable() throws {
        let table: [(text: String, defaultPort: UInt16?, expected: String)] = [
            ("127.0.0.1:80", nil, "127.0.0.1:80"),
            ("[::1]:9000", nil, "[::1]:9000"),
            (":9000", nil, "127.0.0.1:9000"),
            ("9000", nil, "127.0.0.1:9000"),
            ("0.0.0.0:0", nil, "0.0.0.0:0"),
            ("[::]:5", nil, "[::]:5"),
            ("[::1]", 7, "[::1]:7"),
            ("::1", 7, "[::1]:7"),
            ("10.1.2.3", 7, "10.1.2.3:7"),
            ("", 7, "127.0.0.1:7"),
            ("localhost:1234", nil, "127.0.0.1:1234"),
        ]
        for row in table {
            let a = try SocketAddress.parse(row.text, defaultPort: row.defaultPort, family: row.text.hasPrefix("localhost") ? .ipv4 : nil)
            XCTAssertEqual(a.description, row.expected, row.text)
        }
    }

    func testParseErrorsSayWhatWasExpected() {
        let table: [(text: String, reason: String)] = [
            ("1.2.3.4:99999", "port '99999' is not a number 0…65535 (0: any free port)"),
            ("1.2.3.4:x", "port 'x' is not a number 0…65535 (0: any free port)"),
            ("fe80:1:2", "an IPv6 address goes in brackets, [ADDR]:PORT"),
            ("[::1", "expected [IPv6]:PORT; no ']'"),
            ("[::1]x", "expected [IPv6]:PORT"),
            ("1.2.3.4", "expected [HOST:]PORT or [IPv6]:PORT; no port given"),
            ("no-such-host.invalid:1", "cannot resolve host 'no-such-host.invalid': "),
        ]
        for row in table {
            XCTAssertThrowsError(try SocketAddress.parse(row.text)) { e in
                let p = e as? SocketAddress.ParseError
                XCTAssertEqual(p?.text, row.text)
                XCTAssertTrue(p?.reason.hasPrefix(row.reason) ?? false, "\(row.text): \(String(describing: p))")
                XCTAssertEqual(p?.description.hasPrefix("'\(row.text)': "), true)
            }
        }
    }

    func testFamilyRestrictionRefusesTheOther() {
        XCTAssertThrowsError(try SocketAddress.parse("[::1]:1", family: .ipv4))
        XCTAssertEqual(try SocketAddress.parse("127.0.0.1:1", family: .ipv4).family, .ipv4)
    }

    func testPropertiesOfBothFamilies() throws {
        let v4 = SocketAddress(ipv4: inet_addr("127.0.0.2"), port: 5)
        XCTAssertEqual(v4.host, "127.0.0.2")
        XCTAssertEqual(v4.bracketedHost, "127.0.0.2")
        XCTAssertTrue(v4.isLoopback)
        XCTAssertFalse(v4.isAny)
        XCTAssertEqual(v4.ipv4, inet_addr("127.0.0.2"))
        XCTAssertEqual(v4.ipBytes, [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 0, 2])
        XCTAssertEqual(v4.with(port: 9).port, 9)
        let v6 = try XCTUnwrap(SocketAddress(numeric: "::1", port: 5))
        XCTAssertEqual(v6.family, .ipv6)
        XCTAssertEqual(v6.bracketedHost, "[::1]")
        XCTAssertTrue(v6.isLoopback)
        XCTAssertNil(v6.ipv4)
        XCTAssertTrue(try XCTUnwrap(SocketAddress(numeric: "::", port: 0)).isAny)
        XCTAssertTrue(try XCTUnwrap(SocketAddress(numeric: "::ffff:127.0.0.1", port: 0)).isLoopback)
        XCTAssertFalse(try XCTUnwrap(SocketAddress(numeric: "192.168.1.1", port: 0)).isLoopback)
        XCTAssertEqual(Set([v4, v4.with(port: 5), v6]).count, 2)
        XCTAssertNil(SocketAddress(numeric: "not an address", port: 0))
    }
}

final class SocketTests: XCTestCase {
    func roundTrip(_ host: String) throws {
        let listener = try Socket.listening(on: try SocketAddress.parse("[\(host)]:0"))
        defer { listener.close() }
        let bound = try listener.localAddress()
        XCTAssertNotEqual(bound.port, 0)
        XCTAssertEqual(bound.host, host)
        let client = try Socket.connected(to: bound, timeout: 5)
        defer { client.close() }
        try client.setNoDelay()
        let (server, from) = try XCTUnwrap(try listener.accept())
        defer { server.close() }
        XCTAssertEqual(from?.host, host)
        XCTAssertEqual(client.remoteAddress(), bound)
        try Array("hello".utf8).withUnsafeBytes { try client.sendAll($0) }
        var buffer = [UInt8](repeating: 0, count: 16)
        let n = try buffer.withUnsafeMutableBytes { try server.receive(into: $0) }
        XCTAssertEqual(n.map { String(decoding: buffer[0..<$0], as: UTF8.self) }, "hello")
        client.close()
        XCTAssertEqual(try buffer.withUnsafeMutableBytes { try server.receive(into: $0) }, 0, "end of stream")
    }

    func testTCPOverIPv4() throws { try roundTrip("127.0.0.1") }

    func testTCPOverIPv6() throws {
        guard (try? Socket.open(.ipv6, .stream))?.close() != nil else { throw XCTSkip("no IPv6 here") }
        try roundTrip("::1")
    }

    func testUDPOverBothFamilies() throws {
        for host in ["127.0.0.1", "::1"] {
            let a = try Socket.datagram(boundTo: try XCTUnwrap(SocketAddress(numeric: host, port: 0)))
            let b = try Socket.datagram(boundTo: try XCTUnwrap(SocketAddress(numeric: host, port: 0)))
            defer { a.close(); b.close() }
            try b.setNonBlocking(true)
            var buffer = [UInt8](repeating: 0, count: 16)
            XCTAssertNil(try buffer.withUnsafeMutableBytes { try b.receiveFrom(into: $0) }, "nothing pending: nil, not an error")
            let sent = try [UInt8]([7, 8, 9]).withUnsafeBytes { try a.send($0, to: try b.localAddress()) }
            XCTAssertEqual(sent, 3)
            try b.setNonBlocking(false)
            let got = try XCTUnwrap(try buffer.withUnsafeMutableBytes { try b.receiveFrom(into: $0) })
            XCTAssertEqual(Array(buffer[0..<got.count]), [7, 8, 9])
            XCTAssertEqual(got.from, try a.localAddress())
        }
    }

    func testAcceptWithNothingPendingIsNil() throws {
        let listener = try Socket.listening(on: SocketAddress(ipv4: inet_addr("127.0.0.1"), port: 0))
        defer { listener.close() }
        try listener.setNonBlocking(true)
        XCTAssertNil(try listener.accept())
    }

    func testErrorsNameTheCallAndAddress() throws {
        let first = try Socket.listening(on: SocketAddress(ipv4: inet_addr("127.0.0.1"), port: 0))
        defer { first.close() }
        let taken = try first.localAddress()
        XCTAssertThrowsError(try Socket.listening(on: taken)) { e in
            XCTAssertEqual(e as? SystemError, SystemError(call: "bind(\(taken))", code: EADDRINUSE))
        }
        // A port nobody listens on: refused at once.
        let closed = try Socket.listening(on: SocketAddress(ipv4: inet_addr("127.0.0.1"), port: 0))
        let free = try closed.localAddress()
        closed.close()
        XCTAssertThrowsError(try Socket.connected(to: free, timeout: 5)) { e in
            XCTAssertEqual(e as? SystemError, SystemError(call: "connect(\(free))", code: ECONNREFUSED))
        }
    }

    /// A listener whose accept queue is full drops new SYNs: the connect gets no answer
    /// and must end at its timeout with ETIMEDOUT.
    func testConnectTimesOut() throws {
        let listener = try Socket.open(.ipv4, .stream)
        defer { listener.close() }
        try listener.bind(to: SocketAddress(ipv4: inet_addr("127.0.0.1"), port: 0))
        try listener.listen(backlog: 0)
        let address = try listener.localAddress()
        var held: [Socket] = []
        defer { held.forEach { $0.close() } }
        var timedOut: SystemError?
        for _ in 0..<8 {
            let t0 = MonotonicClock.nanos()
            do {
                held.append(try Socket.connected(to: address, timeout: 0.3))
            } catch {
                timedOut = error
                XCTAssertGreaterThanOrEqual(MonotonicClock.nanos() - t0, 250_000_000)
                break
            }
        }
        guard let timedOut else { throw XCTSkip("the kernel accepted every connection (no backlog limit here)") }
        XCTAssertEqual(timedOut, SystemError(call: "connect(\(address))", code: ETIMEDOUT))
    }

    func testOptions() throws {
        let s = try Socket.open(.ipv4, .stream)
        defer { s.close() }
        try s.setOption(SOL_SOCKET, SO_REUSEADDR, Int32(1))
        XCTAssertEqual(try s.option(SOL_SOCKET, SO_REUSEADDR), 1)
        try s.setSendTimeout(seconds: 0.5)
        XCTAssertEqual(try s.option(SOL_SOCKET, SO_TYPE), Int32(SOCK_STREAM.rawValue))
        XCTAssertEqual(fcntl(s.fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC)
        XCTAssertThrowsError(try Socket(fd: -1).option(SOL_SOCKET, SO_TYPE)) { e in
            XCTAssertEqual((e as? SystemError)?.code, EBADF)
        }
    }
}
