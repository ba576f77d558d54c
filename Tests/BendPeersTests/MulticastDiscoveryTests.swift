// SPDX-License-Identifier: GPL-3.0-or-later
@testable import BendPeers
import BendSystem
import Glibc
import XCTest

/// Announcements go to the multicast group 239.255.47.81 as well as to 127.0.0.1: the
/// unicast copy reaches only one of the sockets sharing the port (SO_REUSEPORT
/// balances), the multicast copy reaches each of them.
final class MulticastDiscoveryTests: XCTestCase {
    func testTwoListenersOnOneHostBothHearOneAnnouncer() throws {
        let port: UInt16 = 48_100 + UInt16(getpid() % 90)
        let a = try PeerSession(configuration: .init(displayName: "listener A", role: .client))
        let b = try PeerSession(configuration: .init(displayName: "listener B", role: .client))
        defer { a.stop(); b.stop() }
        try a.browse(port: port)
        try b.browse(port: port)
        let announcer = try PeerAnnouncer(PeerAnnouncement(tcpPort: 4321, authRequired: false, name: "shared"), broadcast: false, port: port)
        defer { announcer.stop() }
        let expected = [PeerAnnouncement(tcpPort: 4321, authRequired: false, name: "shared", host: "127.0.0.1")]
        let deadline = MonotonicClock.nanos() + 5_000_000_000
        while MonotonicClock.nanos() < deadline, a.availableInstruments != expected || b.availableInstruments != expected {
            usleep(10_000)
        }
        XCTAssertEqual(a.availableInstruments, expected, "listener A")
        XCTAssertEqual(b.availableInstruments, expected, "listener B")
    }

    /// The group copy alone (no unicast listener involved): a socket that only joined
    /// the group hears the announcer through `lo`.
    func testAnnouncementArrivesOnTheMulticastGroup() throws {
        let port: UInt16 = 48_200 + UInt16(getpid() % 90)
        let socket = try openAnnouncementListener(port: port)
        let fd = socket.fd
        defer { socket.close() }
        // Receive only datagrams addressed to the group: IP_PKTINFO tells the destination.
        try socket.setOption(Int32(IPPROTO_IP), IP_PKTINFO, Int32(1))
        let announcer = try PeerAnnouncer(PeerAnnouncement(tcpPort: 99, authRequired: true, name: "group"), broadcast: false, port: port)
        defer { announcer.stop() }
        var destinations: Set<String> = []
        let deadline = MonotonicClock.nanos() + 3_000_000_000
        while MonotonicClock.nanos() < deadline, destinations.count < 2 {
            guard readable(fd, 0.5) else { continue }
            var buffer = [UInt8](repeating: 0, count: 256)
            var control = [UInt8](repeating: 0, count: 256)
            let n = buffer.withUnsafeMutableBytes { data in
                control.withUnsafeMutableBytes { ctl -> Int in
                    var iov = iovec(iov_base: data.baseAddress, iov_len: data.count)
                    return withUnsafeMutablePointer(to: &iov) { iovp in
                        var msg = msghdr(msg_name: nil, msg_namelen: 0, msg_iov: iovp, msg_iovlen: 1,
                                         msg_control: ctl.baseAddress, msg_controllen: ctl.count, msg_flags: 0)
                        let n = recvmsg(fd, &msg, Int32(MSG_DONTWAIT))
                        guard n > 0, let c = CMSG_FIRSTHDR_(&msg) else { return n }
                        if c.pointee.cmsg_level == IPPROTO_IP, c.pointee.cmsg_type == IP_PKTINFO {
                            let info = UnsafeRawPointer(c).advanced(by: MemoryLayout<cmsghdr>.size).loadUnaligned(as: in_pktinfo.self)
                            var addr = info.ipi_addr
                            var text = [CChar](repeating: 0, count: 32)
                            inet_ntop(AF_INET, &addr, &text, 32)
                            destinations.insert(String(cString: text))
                        }
                        return n
                    }
                }
            }
            if n > 0 { XCTAssertEqual(PeerAnnouncement.parse(buffer[0..<n], host: "")?.name, "group") }
        }
        XCTAssertEqual(destinations, ["239.255.47.81", "127.0.0.1"])
    }

    private func CMSG_FIRSTHDR_(_ msg: UnsafeMutablePointer<msghdr>) -> UnsafeMutablePointer<cmsghdr>? {
        guard msg.pointee.msg_controllen >= MemoryLayout<cmsghdr>.size, let c = msg.pointee.msg_control else { return nil }
        return c.assumingMemoryBound(to: cmsghdr.self)
    }
}
