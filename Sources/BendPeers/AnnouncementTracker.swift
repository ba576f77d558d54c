// SPDX-License-Identifier: GPL-3.0-or-later
/// Which instruments discovery hears now: turns announcements (and their absence) into
/// `.available` / `.unavailable` state changes. A pure value; the session feeds it.
///
/// An instrument is keyed by its instance id (a version-1 announcement: by `host:port`),
/// so one heard on several addresses is one entry (`PeerAnnouncement.merge`); its
/// `PeerID` is the instance (version 1: the FNV-1a hash of `host:port`), the same while
/// it is heard.
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
        let key = a.identity
        if var e = entries[key] {
            e.lastHeard = now
            var list = [e.announcement]
            let changed = PeerAnnouncement.merge(a, into: &list)
            e.announcement = list[0]
            e.info.name = a.name
            entries[key] = e
            return changed ? PeerStateChange(peer: e.info, state: .available, reason: nil, detail: Self.detail(a)) : nil
        }
        let info = PeerInfo(id: PeerID(a.instance ?? Self.fnv1a(key)), name: a.name, address: "\(a.host):\(a.tcpPort)")
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
