import BendSystem
import CBluetooth  // for Glibc's socket names in this module: see Sources/CBluetooth/shim.h
import Dispatch
import Glibc

/// LAN discovery without Avahi: an instrument sends a UDP datagram once a second to
/// port 47811 on the multicast group 239.255.47.81 (TTL 1, looped back to this host;
/// through `lo` when it listens on loopback only, else the default interface), on
/// 127.0.0.1 and, when it listens off loopback, to 255.255.255.255: the ASCII text
/// `bendsynth1 <tcp-port> <auth 0|1> <name>` (docs/PROTOCOL.md). The multicast copy
/// reaches every listener on a host (a unicast datagram reaches one of the sockets
/// sharing the port with SO_REUSEPORT).
public struct PeerAnnouncement: Sendable, Equatable {
    public static let port: UInt16 = 47_811
    /// The administratively scoped (RFC 2365) IPv4 group announcements go to.
    public static let multicastGroup = "239.255.47.81"
    public var tcpPort: UInt16
    public var authRequired: Bool
    public var name: String
    /// Where it came from (filled in on receipt): the instrument's IPv4 address.
    public var host: String = ""

    public init(tcpPort: UInt16, authRequired: Bool, name: String, host: String = "") {
        self.tcpPort = tcpPort; self.authRequired = authRequired; self.name = name; self.host = host
    }

    public var text: String { "bendsynth1 \(tcpPort) \(authRequired ? 1 : 0) \(name)" }

    /// Parses a datagram; nil for anything else (never throws: strangers' datagrams are ignored).
    public static func parse(_ bytes: some Collection<UInt8>, host: String) -> PeerAnnouncement? {
        guard bytes.count <= 200, let s = String(validating: Array(bytes), as: UTF8.self) else { return nil }
        let parts = s.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "bendsynth1", let port = UInt16(parts[1]), port > 0,
              parts[2] == "0" || parts[2] == "1" else { return nil }
        return PeerAnnouncement(tcpPort: port, authRequired: parts[2] == "1", name: String(parts[3]), host: host)
    }
}

/// Sends an announcement every second until stopped.
/// - Thread: start/stop from setup; the timer runs on a Dispatch queue.
public final class PeerAnnouncer: @unchecked Sendable {
    private let fd: Int32
    private let timer: DispatchSourceTimer
    private let targets: [IPEndpoint]

    /// - Parameter broadcast: the instrument listens off loopback: multicast on the
    ///   default interface and also to 255.255.255.255; false: multicast through `lo` only.
    /// Send failures (no route for multicast in a bare namespace) are ignored: the
    /// loopback copy still goes.
    public init(_ announcement: PeerAnnouncement, broadcast: Bool, port: UInt16 = PeerAnnouncement.port) throws {
        fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Sockets.fail("socket(AF_INET, SOCK_DGRAM)") }
        Sockets.setInt(fd, SOL_SOCKET, SO_BROADCAST, 1)
        Sockets.setInt(fd, Int32(IPPROTO_IP), IP_MULTICAST_TTL, 1)
        Sockets.setInt(fd, Int32(IPPROTO_IP), IP_MULTICAST_LOOP, 1)
        var interface = in_addr(s_addr: broadcast ? 0 : inet_addr("127.0.0.1"))  // 0: the default
        setsockopt(fd, Int32(IPPROTO_IP), IP_MULTICAST_IF, &interface, socklen_t(MemoryLayout<in_addr>.size))
        var t = [IPEndpoint(address: inet_addr(PeerAnnouncement.multicastGroup), port: port),
                 IPEndpoint(address: inet_addr("127.0.0.1"), port: port)]
        if broadcast { t.append(IPEndpoint(address: 0xffff_ffff, port: port)) }
        targets = t
        let bytes = Array(announcement.text.utf8)
        let fd = self.fd, targets = t
        timer = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
        timer.schedule(deadline: .now(), repeating: 1.0)
        timer.setEventHandler {
            for ep in targets {
                var sa = ep.sockaddr
                _ = withUnsafePointer(to: &sa) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        sendto(fd, bytes, bytes.count, Int32(MSG_DONTWAIT), $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                }
            }
        }
        timer.resume()
    }

    public func stop() { timer.cancel() }

    deinit { timer.cancel(); close(fd) }
}

/// Listens for announcements for a while and returns the instruments heard, in the
/// order first heard (one entry per host and port).
/// - Throws: `PeerError.system` when the discovery port cannot be bound.
/// - Thread: any (blocks `seconds`).
public func discoverInstruments(seconds: Double, port: UInt16 = PeerAnnouncement.port) throws -> [PeerAnnouncement] {
    let fd = try openAnnouncementListener(port: port)
    defer { close(fd) }
    var found: [PeerAnnouncement] = []
    let deadline = MonotonicClock.nanos() + UInt64(seconds * 1e9)
    var buffer = [UInt8](repeating: 0, count: 512)
    while MonotonicClock.nanos() < deadline {
        guard Sockets.wait(fd, events: Int16(POLLIN), timeout: Double(deadline - min(deadline, MonotonicClock.nanos())) / 1e9) else { continue }
        var sa = sockaddr_in(), len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let n = buffer.withUnsafeMutableBytes { b in
            withUnsafeMutablePointer(to: &sa) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(fd, b.baseAddress, b.count, Int32(MSG_DONTWAIT), $0, &len) } }
        }
        guard n > 0, let a = PeerAnnouncement.parse(buffer[0..<n], host: IPEndpoint(sa).host) else { continue }
        if !found.contains(where: { $0.host == a.host && $0.tcpPort == a.tcpPort }) { found.append(a) }
    }
    return found
}
