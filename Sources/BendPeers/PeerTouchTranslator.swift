// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendSystem

/// Per-peer limits of an instrument; going over is noticed (at most once a second for
/// the rate) and the excess dropped.
public struct PeerLimits: Sendable, Equatable {
    /// TOUCH and TILT frames per second per peer (token bucket, burst = one second's worth).
    public var eventsPerSecond = 2000.0
    /// Touches one peer may hold down at once.
    public var touchesAtOnce = 10
    /// Longest TEXT shown, in UTF-8 bytes; a longer one is shown cut, with a note.
    public var textBytes = PeerProtocol.maxTextBytes

    public init() {}
}

/// An instrument's side of the peers' input: turns the TOUCH, TILT and TEXT that
/// connected peers send into control events for one port and notices for the player.
///
/// Each peer's touch ids live in their own namespace (BendControl's `TouchNamespace`):
/// a peer's DOWN gets a fresh local id, its MOVE and UP follow that id, so two peers'
/// touch 1 are two touches. A peer is
/// held to `PeerLimits` (an UP always passes: a voice is never stranded), and when it
/// goes (`release`) every touch it holds ends. A value with no I/O: the session's I/O
/// thread feeds it, tests feed it directly.
/// - Thread: one at a time (the session's I/O thread: the port's one producer).
public struct PeerTouchTranslator: Sendable {
    public let limits: PeerLimits
    /// One touch of one peer, in the peer's own ids.
    struct Owner: Hashable, Sendable { var peer: PeerID; var id: UInt32 }
    /// Each peer's touches → the local ids they play under.
    private var touches = TouchNamespace<Owner>()
    /// Each peer's events (`limits.eventsPerSecond`, burst one second's worth) and the
    /// time of its last over-limit notice (monotonic ns).
    private var buckets: [PeerID: (bucket: TokenBucket, lastNotice: UInt64)] = [:]

    public init(limits: PeerLimits = PeerLimits()) { self.limits = limits }

    /// Local ids of the touches `peer` holds now, ascending.
    public func touches(of peer: PeerID) -> [UInt32] {
        var ids = touches
        return ids.endAll { $0.peer == peer }
    }

    /// One message from a connected peer, received at `now` (monotonic ns).
    /// - Parameters:
    ///   - emit: gets each control event, in order (ids are local ones).
    ///   - notice: gets each line for the player (TEXT, limits gone over).
    public mutating func receive(_ message: PeerMessage, from peer: PeerInfo, at now: UInt64,
                                 emit: (ControlEvent) -> Void, notice: (String) -> Void) {
        if case .text(let text) = message {
            return notice("message from \(peer.shownName): \(UntrustedText.escaped(Self.shown(text, limit: limits.textBytes)))")
        }
        if case .touch(_, .up, _, _, _) = message {} else { guard allow(peer, at: now, notice: notice) else { return } }
        switch message {
        case let .touch(id, phase, x, y, _):
            let owner = Owner(peer: peer.id, id: id)
            if phase == .down, touches.id(of: owner) == nil, touches.count(where: { $0.peer == peer.id }) >= limits.touchesAtOnce {
                return notice("\(peer): more than \(limits.touchesAtOnce) touches at once; touch dropped")
            }
            for e in touches.translate(.touch(id: id, phase: phase, x: Double(x), y: Double(y)), owner: { _ in owner }) {
                guard case let .touch(local, p, _, _) = e, p == .up else { emit(e); continue }
                emit(.touch(id: local, phase: .up, x: 0, y: 0))
            }
        case let .tilt(value, _):
            emit(.tilt(Double(value)))
        default:
            break
        }
    }

    /// `peer` went (BYE, closed stream, heartbeat timeout, a bad frame): ends every
    /// touch it holds (ascending local ids) and forgets its rate.
    public mutating func release(_ peer: PeerID, emit: (ControlEvent) -> Void) {
        for local in touches.endAll(where: { $0.peer == peer }) {
            emit(.touch(id: local, phase: .up, x: 0, y: 0))
        }
        buckets[peer] = nil
    }

    /// `text` as the player sees it: whole up to `limit` UTF-8 bytes, else cut at a
    /// character boundary with a note of its length.
    public static func shown(_ text: String, limit: Int) -> String {
        let bytes = text.utf8.count
        guard bytes > limit else { return text }
        return "\(utf8Prefix(text, maxBytes: limit))… (cut: \(bytes) bytes, limit \(limit))"
    }

    /// Token bucket: `eventsPerSecond`, burst one second; a notice at most once a second.
    private mutating func allow(_ peer: PeerInfo, at now: UInt64, notice: (String) -> Void) -> Bool {
        let rate = limits.eventsPerSecond
        var b = buckets[peer.id] ?? (TokenBucket(rate: rate, burst: rate), 0)
        defer { buckets[peer.id] = b }
        if b.bucket.take(now: now) { return true }
        if now &- b.lastNotice > 1_000_000_000 {
            b.lastNotice = now
            notice("\(peer): over \(Int(rate)) events/s; events dropped")
        }
        return false
    }
}
