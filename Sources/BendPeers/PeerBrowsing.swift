import CBluetooth  // for Glibc's socket names in this module: see Sources/CBluetooth/shim.h
import Glibc

/// Which instruments discovery hears now: turns announcements (and their absence) into
/// `.available` / `.unavailable` state changes. A pure value; the session feeds it.
///
/// An instrument is keyed by `host:port`; its `PeerID` is the FNV-1a hash of that key
/// (announcements carry no instance id), so it stays the same while it is heard.
public struct AnnouncementTracker: Sendable {
    /// Seconds without an announcement after which an instrument is `.unavailable`
    /// (announcements come once a second; default 3.5 s tolerates two lost ones).
    public var expiry: Double

    struct Entry: Sendable { var announcement: PeerAnnouncement; var lastHeard: UInt64; var info: PeerInfo }
    private(set) var entries: [String: Entry] = [:]
    private var order: [String] = []

    public init(expiry: Double = 3.5) { self.expiry = expiry }

    /// The instruments heard now, in the order first heard.
    public var available: [PeerAnnouncement] { order.compactMap { entries[$0]?.announcement } }

    /// Records an announcement heard at `now` (monotonic ns). Returns `.available` when
    /// the instrument is new or changed its name or key requirement, else nil.
    public mutating func heard(_ a: PeerAnnouncement, at now: UInt64) -> PeerStateChange? {
        let key = "\(a.host):\(a.tcpPort)"
        if var e = entries[key] {
            e.lastHeard = now
            let changed = e.announcement != a
            e.announcement = a
            e.info.name = a.name
            entries[key] = e
            return changed ? PeerStateChange(peer: e.info, state: .available, reason: nil, detail: Self.detail(a)) : nil
        }
        let info = PeerInfo(id: PeerID(Self.fnv1a(key)), name: a.name, address: key)
        entries[key] = Entry(announcement: a, lastHeard: now, info: info)
        order.append(key)
        return PeerStateChange(peer: info, state: .available, reason: nil, detail: Self.detail(a))
    }

    /// Drops instruments not heard for `expiry` seconds before `now`; one `.unavailable`
    /// change each, in the order first heard.
    public mutating func expire(at now: UInt64) -> [PeerStateChange] {
        var gone: [PeerStateChange] = []
        order.removeAll { key in
            guard let e = entries[key], Double(now &- e.lastHeard) > expiry * 1e9 else { return false }
            entries[key] = nil
            gone.append(PeerStateChange(peer: e.info, state: .unavailable, reason: nil,
                                        detail: "no announcement for \(expiry) s"))
            return true
        }
        return gone
    }

    static func detail(_ a: PeerAnnouncement) -> String { a.authRequired ? "announced, shared key required" : "announced, open" }

    static func fnv1a(_ s: String) -> UInt64 {
        s.utf8.reduce(0xcbf2_9ce4_8422_2325 as UInt64) { ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01b3 }
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
    var deadline = MonotonicNanos.now() + UInt64(seconds * 1e9)
    var buffer = [UInt8](repeating: 0, count: 512)
    var matchedOnce = false
    func matches() -> [PeerAnnouncement] {
        let all = tracker.available
        let exact = all.filter { $0.name == name }
        return exact.isEmpty ? all.filter { $0.name.lowercased() == name.lowercased() } : exact
    }
    while MonotonicNanos.now() < deadline {
        let left = Double(deadline - min(deadline, MonotonicNanos.now())) / 1e9
        guard Sockets.wait(fd, events: Int16(POLLIN), timeout: left) else { continue }
        while case let (a, more) = receiveAnnouncement(fd, &buffer), more {
            if let a { _ = tracker.heard(a, at: MonotonicNanos.now()) }
        }
        if !matchedOnce, !matches().isEmpty {
            matchedOnce = true
            deadline = min(deadline, MonotonicNanos.now() + 1_100_000_000)
        }
    }
    return matches()
}

extension PeerSession {
    /// Starts hearing instruments' UDP announcements on `port`: each newly heard one
    /// reaches `onStateChange` as `.available`, each silent for `expiry` seconds as
    /// `.unavailable`, in order with the session's other events (same I/O thread).
    /// - Throws: `PeerError.system` when the port cannot be bound.
    /// - Thread: setup, once.
    public func browse(port: UInt16 = PeerAnnouncement.port, expiry: Double = 3.5) throws {
        guard !stopping.load(ordering: .relaxed) else { throw PeerError.stopped }
        let fd = try openAnnouncementListener(port: port)
        do { try setup.withLock { _ in try startThread() } } catch { close(fd); throw error }
        commands.withLock { $0.append(.browse(fd, expiry)) }   // the I/O thread owns `browser`
        poke()
    }

    /// The instruments heard now (after `browse`).
    /// - Thread: any.
    public var availableInstruments: [PeerAnnouncement] { heardInstruments.withLock { $0 } }

    /// Reads pending announcements and expires silent instruments. - Thread: I/O thread.
    func serviceBrowser(readable: Bool, _ buffer: inout [UInt8]) {
        guard browser >= 0 else { return }
        let now = MonotonicNanos.now()
        var changes: [PeerStateChange] = []
        if readable {
            while case let (a, more) = receiveAnnouncement(browser, &buffer), more {
                if let a, let c = tracker.heard(a, at: now) { changes.append(c) }
            }
        }
        changes += tracker.expire(at: now)
        guard !changes.isEmpty else { return }
        let list = tracker.available
        heardInstruments.withLock { $0 = list }
        for c in changes { onStateChange(c) }
    }
}
