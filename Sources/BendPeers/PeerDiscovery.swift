import BendSystem
import CBluetooth  // for Glibc's socket names in this module: see Sources/CBluetooth/shim.h
import Glibc
import Synchronization

/// The session's discovery (`PeerSession.browse`): hears instruments' UDP announcements
/// and turns them, and their silence, into `.available` / `.unavailable` state changes
/// (an `AnnouncementTracker`). Owns the announcement socket.
/// - Thread: `adopt`, `service` and `close` on the session's I/O thread (`close` also
///   after it ended); `available` from any thread.
final class PeerDiscovery: @unchecked Sendable {
    /// The announcement socket, −1 while not browsing. I/O thread only.
    private var socket: Int32 = -1
    /// What was heard. I/O thread only.
    private var tracker = AnnouncementTracker()
    /// A copy of `tracker.available` for other threads.
    private let heard = Mutex<[PeerAnnouncement]>([])

    /// The descriptor to wait on, −1 while not browsing. - Thread: I/O thread.
    var descriptor: Int32 { socket }

    /// Starts browsing on `fd` (from `openAnnouncementListener`), forgetting instruments
    /// silent for `expiry` seconds. False when already browsing: the caller closes `fd`.
    func adopt(_ fd: Int32, expiry: Double) -> Bool {
        guard socket < 0 else { return false }
        socket = fd
        tracker.expiry = expiry
        return true
    }

    /// The instruments heard now. - Thread: any.
    var available: [PeerAnnouncement] { heard.withLock { $0 } }

    /// Reads pending announcements (when `readable`) and expires silent instruments.
    /// - Returns: the state changes, in order (none while not browsing).
    func service(readable: Bool, _ buffer: inout [UInt8]) -> [PeerStateChange] {
        guard socket >= 0 else { return [] }
        let now = MonotonicClock.nanos()
        var changes: [PeerStateChange] = []
        if readable {
            while case let (a, more) = receiveAnnouncement(socket, &buffer), more {
                if let a, let c = tracker.heard(a, at: now) { changes.append(c) }
            }
        }
        changes += tracker.expire(at: now)
        if !changes.isEmpty {
            let list = tracker.available
            heard.withLock { $0 = list }
        }
        return changes
    }

    /// Stops browsing (closes the socket).
    func close() {
        if socket >= 0 { Glibc.close(socket); socket = -1 }
    }
}

/// A UDP socket bound to the announcement port (shared with other listeners), a member
/// of the announcement group on `lo` and on the default interface (each join is best
/// effort: a namespace without a multicast route still hears loopback and broadcast).
/// - Throws: `PeerError.system` naming the failing call.
func openAnnouncementListener(port: UInt16) throws -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw Sockets.fail("socket(AF_INET, SOCK_DGRAM)") }
    Sockets.setInt(fd, SOL_SOCKET, SO_REUSEADDR, 1)
    Sockets.setInt(fd, SOL_SOCKET, SO_REUSEPORT, 1)
    do { try Sockets.bind(fd, IPEndpoint(address: 0, port: port)) } catch { close(fd); throw error }
    for interface in [inet_addr("127.0.0.1"), 0] {
        var m = ip_mreq(imr_multiaddr: in_addr(s_addr: inet_addr(PeerAnnouncement.multicastGroup)), imr_interface: in_addr(s_addr: interface))
        _ = setsockopt(fd, Int32(IPPROTO_IP), IP_ADD_MEMBERSHIP, &m, socklen_t(MemoryLayout<ip_mreq>.size))
    }
    return fd
}

/// Reads one pending datagram without blocking: the announcement, or nil (none pending
/// — `more` false — or not an announcement).
func receiveAnnouncement(_ fd: Int32, _ buffer: inout [UInt8]) -> (PeerAnnouncement?, more: Bool) {
    var sa = sockaddr_in(), len = socklen_t(MemoryLayout<sockaddr_in>.size)
    let n = buffer.withUnsafeMutableBytes { b in
        withUnsafeMutablePointer(to: &sa) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(fd, b.baseAddress, b.count, Int32(MSG_DONTWAIT), $0, &len) } }
    }
    guard n >= 0 else { return (nil, false) }
    return (PeerAnnouncement.parse(buffer[0..<n], host: IPEndpoint(sa).host), true)
}

/// Listens until an instrument announcing the display name `name` is heard, then one
/// announcement period (1.1 s) more to find others of the same name; or until
/// `seconds` pass. Returns every instrument of that name (exact match first; when none
/// matches exactly, a case-insensitive match), in the order first heard.
/// - Throws: `PeerError.system` when the discovery port cannot be bound.
/// - Thread: any (blocks up to `seconds`).
public func findInstruments(named name: String, seconds: Double, port: UInt16 = PeerAnnouncement.port) throws -> [PeerAnnouncement] {
    let fd = try openAnnouncementListener(port: port)
    defer { close(fd) }
    var tracker = AnnouncementTracker(expiry: .infinity)
    var deadline = MonotonicClock.nanos() + UInt64(seconds * 1e9)
    var buffer = [UInt8](repeating: 0, count: 512)
    var matchedOnce = false
    func matches() -> [PeerAnnouncement] {
        let all = tracker.available
        let exact = all.filter { $0.name == name }
        return exact.isEmpty ? all.filter { $0.name.lowercased() == name.lowercased() } : exact
    }
    while MonotonicClock.nanos() < deadline {
        let left = Double(deadline - min(deadline, MonotonicClock.nanos())) / 1e9
        guard Sockets.wait(fd, events: Int16(POLLIN), timeout: left) else { continue }
        while case let (a, more) = receiveAnnouncement(fd, &buffer), more {
            if let a { _ = tracker.heard(a, at: MonotonicClock.nanos()) }
        }
        if !matchedOnce, !matches().isEmpty {
            matchedOnce = true
            deadline = min(deadline, MonotonicClock.nanos() + 1_100_000_000)
        }
    }
    return matches()
}
