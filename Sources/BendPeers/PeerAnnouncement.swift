// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem
import CBluetooth  // for Glibc's socket names in this module: see Sources/CBluetooth/shim.h
import Glibc

/// LAN discovery without Avahi: an instrument sends a UDP datagram once a second to
/// port 47811 on the multicast group 239.255.47.81 (TTL 1, looped back to this host;
/// through `lo` when it listens on loopback only, else the default interface), on
/// 127.0.0.1 and, when it listens off loopback, to 255.255.255.255: the ASCII text
/// `bendsynth2 <tcp-port> <auth 0|1> <instance, 16 hex digits> <name>`
/// (docs/PROTOCOL.md; version 1's `bendsynth1 <tcp-port> <auth> <name>`, without the
/// instance, is still read). The multicast copy reaches every listener on a host (a
/// unicast datagram reaches one of the sockets sharing the port with SO_REUSEPORT).
///
/// The instance (the session's, also sent in HELLO/ACCEPT) tells instruments apart: one
/// instrument heard on several addresses (loopback and its LAN address) is one entry;
/// two that share a name are two.
public struct PeerAnnouncement: Sendable, Equatable {
    public static let port: UInt16 = 47_811
    /// The administratively scoped (RFC 2365) IPv4 group announcements go to.
    public static let multicastGroup = "239.255.47.81"
    public var tcpPort: UInt16
    public var authRequired: Bool
    public var name: String
    /// The instrument's instance id; nil from a version-1 announcement.
    public var instance: UInt64?
    /// Where it came from (filled in on receipt): the instrument's IPv4 address; its
    /// loopback address when it was heard there too (the same machine: the shortest way).
    public var host: String = ""
    /// The other addresses the same instance was heard from (`merge`), in the order heard.
    public var alsoAt: [String] = []

    public init(tcpPort: UInt16, authRequired: Bool, name: String, instance: UInt64? = nil, host: String = "") {
        self.tcpPort = tcpPort; self.authRequired = authRequired; self.name = name; self.instance = instance; self.host = host
    }

    public var text: String {
        guard let instance else { return "bendsynth1 \(tcpPort) \(authRequired ? 1 : 0) \(name)" }
        return "bendsynth2 \(tcpPort) \(authRequired ? 1 : 0) \(Self.hex(instance)) \(name)"
    }

    /// The instance as 16 hex digits ("-" for none), as `peers` shows it.
    public var instanceText: String { instance.map(Self.hex) ?? "-" }

    static func hex(_ v: UInt64) -> String {
        let d = String(v, radix: 16)
        return String(repeating: "0", count: 16 - d.count) + d
    }

    /// Parses a datagram; nil for anything else (never throws: strangers' datagrams are ignored).
    public static func parse(_ bytes: some Collection<UInt8>, host: String) -> PeerAnnouncement? {
        guard bytes.count <= 200, let s = String(validating: Array(bytes), as: UTF8.self) else { return nil }
        if s.hasPrefix("bendsynth2 ") {
            let parts = s.split(separator: " ", maxSplits: 4, omittingEmptySubsequences: false)
            guard parts.count == 5, let port = UInt16(parts[1]), port > 0, parts[2] == "0" || parts[2] == "1",
                  parts[3].utf8.count == 16, let instance = UInt64(parts[3], radix: 16) else { return nil }
            return PeerAnnouncement(tcpPort: port, authRequired: parts[2] == "1", name: String(parts[4]), instance: instance, host: host)
        }
        let parts = s.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "bendsynth1", let port = UInt16(parts[1]), port > 0,
              parts[2] == "0" || parts[2] == "1" else { return nil }
        return PeerAnnouncement(tcpPort: port, authRequired: parts[2] == "1", name: String(parts[3]), host: host)
    }

    /// True when `other` is the same instrument: the same instance when both carry one,
    /// else the same `host:port`.
    public func isSameInstrument(as other: PeerAnnouncement) -> Bool {
        if let a = instance, let b = other.instance { return a == b }
        return host == other.host && tcpPort == other.tcpPort
    }

    /// The key one instrument is kept under in a list.
    var identity: String { instance.map { "instance \(Self.hex($0))" } ?? "\(host):\(tcpPort)" }

    /// Adds `a` to `list`: a new entry, or, for an instrument already there (the same
    /// instance), its address among the entry's (`host` becomes the loopback address
    /// when it is one) and its newest name and key requirement.
    /// - Returns: true when the entry is new or its name or key requirement changed.
    @discardableResult
    public static func merge(_ a: PeerAnnouncement, into list: inout [PeerAnnouncement]) -> Bool {
        guard let i = list.firstIndex(where: { $0.isSameInstrument(as: a) }) else {
            list.append(a)
            return true
        }
        var e = list[i]
        let changed = e.name != a.name || e.authRequired != a.authRequired || e.tcpPort != a.tcpPort
        e.name = a.name; e.authRequired = a.authRequired; e.tcpPort = a.tcpPort
        if a.host != e.host, !e.alsoAt.contains(a.host) {
            if rank(a.host) < rank(e.host) {
                e.alsoAt.insert(e.host, at: 0)
                e.host = a.host
            } else {
                e.alsoAt.append(a.host)
            }
        }
        list[i] = e
        return changed
    }

    /// Which address `merge` prefers as `host`: 127.0.0.1, then other loopback ones, then the rest.
    private static func rank(_ host: String) -> Int { host == "127.0.0.1" ? 0 : host.hasPrefix("127.") ? 1 : 2 }
}

/// Sends an announcement every second until stopped, from its own event loop's timer.
/// - Thread: init/stop from setup; the timer runs on the announcer's loop.
public final class PeerAnnouncer: @unchecked Sendable {
    private let socket: Socket
    private let loop: EventLoop

    /// - Parameter broadcast: the instrument listens off loopback: multicast on the
    ///   default interface and also to 255.255.255.255; false: multicast through `lo` only.
    /// Send failures (no route for multicast in a bare namespace) are ignored: the
    /// loopback copy still goes.
    /// - Throws: `PeerError.system` naming the failing call.
    public init(_ announcement: PeerAnnouncement, broadcast: Bool, port: UInt16 = PeerAnnouncement.port) throws {
        do {
            socket = try Socket.open(.ipv4, .datagram)
            loop = try EventLoop(name: "bendsynth announce")
        } catch {
            throw PeerError.system(error)
        }
        try? socket.setOption(SOL_SOCKET, SO_BROADCAST, Int32(1))
        try? socket.setOption(Int32(IPPROTO_IP), IP_MULTICAST_TTL, Int32(1))
        try? socket.setOption(Int32(IPPROTO_IP), IP_MULTICAST_LOOP, Int32(1))
        try? socket.setOption(Int32(IPPROTO_IP), IP_MULTICAST_IF, in_addr(s_addr: broadcast ? 0 : inet_addr("127.0.0.1")))  // 0: the default
        var targets = [SocketAddress(ipv4: inet_addr(PeerAnnouncement.multicastGroup), port: port),
                       SocketAddress(ipv4: inet_addr("127.0.0.1"), port: port)]
        if broadcast { targets.append(SocketAddress(ipv4: 0xffff_ffff, port: port)) }
        let bytes = Array(announcement.text.utf8), socket = self.socket, sendTo = targets
        loop.schedule(after: 0, repeating: 1_000_000_000) {
            for target in sendTo {
                _ = try? bytes.withUnsafeBytes { b in try socket.send(b, to: target, flags: Int32(MSG_DONTWAIT)) }
            }
        }
        do { try loop.start() } catch { socket.close(); throw PeerError.system(error) }
    }

    /// Stops announcing and waits for the loop to end.
    public func stop() { loop.stop() }

    deinit { loop.stop(); socket.close() }
}

/// Listens for announcements for a while and returns the instruments heard, in the
/// order first heard (one entry per instance: `PeerAnnouncement.merge`).
/// - Throws: `PeerError.system` when the discovery port cannot be bound.
/// - Thread: any (blocks `seconds`).
public func discoverInstruments(seconds: Double, port: UInt16 = PeerAnnouncement.port) throws -> [PeerAnnouncement] {
    let socket = try openAnnouncementListener(port: port)
    defer { socket.close() }
    var found: [PeerAnnouncement] = []
    let deadline = MonotonicClock.nanos() + UInt64(seconds * 1e9)
    var buffer = [UInt8](repeating: 0, count: 512)
    while MonotonicClock.nanos() < deadline {
        let left = Double(deadline - min(deadline, MonotonicClock.nanos())) / 1e9
        guard (try? IOWait.wait(fd: socket.fd, for: .readable, timeout: left)).map({ !$0.isEmpty }) == true else { continue }
        guard case let (a?, _) = receiveAnnouncement(socket, &buffer) else { continue }
        PeerAnnouncement.merge(a, into: &found)
    }
    return found
}
