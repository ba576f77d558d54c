// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem
import CBluetooth  // for Glibc's socket names in this module: see Sources/CBluetooth/shim.h
import Glibc
import Synchronization

/// The session's discovery (`PeerSession.browse`): hears instruments' UDP announcements
/// on the session's event loop and turns them, and their silence, into `.available` /
/// `.unavailable` state changes (an `AnnouncementTracker`). Owns the announcement socket.
/// - Thread: `start` and `stop` from the session (setup, or after its loop ended); the
///   handler and timer run on the loop; `available` from any thread.
final class PeerDiscovery: @unchecked Sendable {
    private struct Browsing {
        var socket: Socket
        var handler: EventLoop.Handler
        var timer: EventLoop.Timer
    }
    /// Set while browsing.
    private let browsing = Mutex<Browsing?>(nil)
    /// What was heard. Loop thread only.
    private var tracker = AnnouncementTracker()
    private var buffer = [UInt8](repeating: 0, count: 512)
    /// A copy of `tracker.available` for other threads.
    private let heard = Mutex<[PeerAnnouncement]>([])

    /// How often silent instruments are looked for, in nanoseconds.
    static let expiryCheck: UInt64 = 50_000_000

    /// Starts browsing on `socket` (from `openAnnouncementListener`), forgetting
    /// instruments silent for `expiry` seconds; `report` gets the state changes, in
    /// order, on `loop`. False when already browsing: the caller closes `socket`.
    func start(_ socket: Socket, expiry: Double, on loop: EventLoop, report: @escaping @Sendable ([PeerStateChange]) -> Void) -> Bool {
        browsing.withLock { b in
            guard b == nil else { return false }
            loop.execute { [self] in tracker.expiry = expiry }
            let handler = loop.add(fd: socket.fd, events: .readable) { [self] _ in report(service(socket, readable: true)) }
            let timer = loop.schedule(after: Self.expiryCheck, repeating: Self.expiryCheck) { [self] in report(service(socket, readable: false)) }
            b = Browsing(socket: socket, handler: handler, timer: timer)
            return true
        }
    }

    /// The instruments heard now. - Thread: any.
    var available: [PeerAnnouncement] { heard.withLock { $0 } }

    /// Reads pending announcements (when `readable`) and expires silent instruments.
    /// - Returns: the state changes, in order. - Thread: the loop.
    private func service(_ socket: Socket, readable: Bool) -> [PeerStateChange] {
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

    /// Stops browsing: no more reports; closes the socket.
    func stop(on loop: EventLoop) {
        guard let b = browsing.withLock({ b -> Browsing? in defer { b = nil }; return b }) else { return }
        loop.remove(b.handler)
        loop.cancel(b.timer)
        b.socket.close()
    }
}

/// A UDP socket bound to the announcement port (shared with other listeners), a member
/// of the announcement group on `lo` and on the default interface (each join is best
/// effort: a namespace without a multicast route still hears loopback and broadcast).
/// - Throws: `PeerError.system` naming the failing call.
func openAnnouncementListener(port: UInt16) throws(PeerError) -> Socket {
    let s: Socket
    do { s = try Socket.datagram(boundTo: SocketAddress(ipv4: 0, port: port), reusePort: true) } catch { throw PeerError.system(error) }
    for interface in [inet_addr("127.0.0.1"), 0] {
        try? s.setOption(Int32(IPPROTO_IP), IP_ADD_MEMBERSHIP,
                         ip_mreq(imr_multiaddr: in_addr(s_addr: inet_addr(PeerAnnouncement.multicastGroup)), imr_interface: in_addr(s_addr: interface)))
    }
    return s
}

/// Reads one pending datagram without blocking: the announcement, or nil (none pending
/// — `more` false — or not an announcement).
func receiveAnnouncement(_ socket: Socket, _ buffer: inout [UInt8]) -> (PeerAnnouncement?, more: Bool) {
    guard let (n, from) = try? buffer.withUnsafeMutableBytes({ b in try socket.receiveFrom(into: b, flags: Int32(MSG_DONTWAIT)) }) else { return (nil, false) }
    return (PeerAnnouncement.parse(buffer[0..<n], host: from?.host ?? ""), true)
}

/// Listens until an instrument announcing the display name `name` is heard, then one
/// announcement period (1.1 s) more to find others of the same name; or until
/// `seconds` pass. Returns every instrument of that name (exact match first; when none
/// matches exactly, a case-insensitive match), in the order first heard.
/// - Throws: `PeerError.system` when the discovery port cannot be bound.
/// - Thread: any (blocks up to `seconds`).
public func findInstruments(named name: String, seconds: Double, port: UInt16 = PeerAnnouncement.port) throws -> [PeerAnnouncement] {
    let socket = try openAnnouncementListener(port: port)
    defer { socket.close() }
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
        guard (try? IOWait.wait(fd: socket.fd, for: .readable, timeout: left)).map({ !$0.isEmpty }) == true else { continue }
        while case let (a, more) = receiveAnnouncement(socket, &buffer), more {
            if let a { _ = tracker.heard(a, at: MonotonicClock.nanos()) }
        }
        if !matchedOnce, !matches().isEmpty {
            matchedOnce = true
            deadline = min(deadline, MonotonicClock.nanos() + 1_100_000_000)
        }
    }
    return matches()
}
