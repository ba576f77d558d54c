import BendControl

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
/// Each peer's touch ids live in their own namespace: a peer's DOWN gets a fresh local
/// id, its MOVE and UP follow that id, so two peers' touch 1 are two touches. A peer is
/// held to `PeerLimits` (an UP always passes: a voice is never stranded), and when it
/// goes (`release`) every touch it holds ends. A value with no I/O: the session's I/O
/// thread feeds it, tests feed it directly.
/// - Thread: one at a time (the session's I/O thread: the port's one producer).
public struct PeerTouchTranslator: Sendable {
    public let limits: PeerLimits
    /// Each peer's touches: its own id → the local id it plays under.
    private var touches: [PeerID: [UInt32: UInt32]] = [:]
    /// Token bucket per peer: tokens left, when last filled (monotonic ns), last notice.
    private var buckets: [PeerID: (tokens: Double, at: UInt64, lastNotice: UInt64)] = [:]
    /// The next local touch id (1…UInt32.max, then wraps to 1).
    private var nextTouch: UInt32 = 1

    public init(limits: PeerLimits = PeerLimits()) { self.limits = limits }

    /// Local ids of the touches `peer` holds now, ascending.
    public func touches(of peer: PeerID) -> [UInt32] { (touches[peer] ?? [:]).values.sorted() }

    /// One message from a connected peer, received at `now` (monotonic ns).
    /// - Parameters:
    ///   - emit: gets each control event, in order (ids are local ones).
    ///   - notice: gets each line for the player (TEXT, limits gone over).
    public mutating func receive(_ message: PeerMessage, from peer: PeerInfo, at now: UInt64,
                                 emit: (ControlEvent) -> Void, notice: (String) -> Void) {
        if case .text(let text) = message {
            return notice("message from \(peer.name.isEmpty ? peer.address : peer.name): \(Self.shown(text, limit: limits.textBytes))")
        }
        if case .touch(_, .up, _, _, _) = message {} else { guard allow(peer, at: now, notice: notice) else { return } }
        switch message {
        case let .touch(id, phase, x, y, _):
            var mine = touches[peer.id, default: [:]]
            defer { touches[peer.id] = mine }
            switch phase {
            case .down:
                if let old = mine[id] { emit(.touch(id: old, phase: .up, x: 0, y: 0)) }
                guard mine.count < limits.touchesAtOnce || mine[id] != nil else {
                    return notice("\(peer): more than \(limits.touchesAtOnce) touches at once; touch dropped")
                }
                let local = nextTouch
                nextTouch = nextTouch == UInt32.max ? 1 : nextTouch + 1
                mine[id] = local
                emit(.touch(id: local, phase: .down, x: Double(x), y: Double(y)))
            case .move:
                guard let local = mine[id] else { return }
                emit(.touch(id: local, phase: .move, x: Double(x), y: Double(y)))
            case .up:
                guard let local = mine.removeValue(forKey: id) else { return }
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
        for local in (touches.removeValue(forKey: peer) ?? [:]).values.sorted() {
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
        var b = buckets[peer.id] ?? (rate, now, 0)
        b.tokens = min(rate, b.tokens + Double(now &- b.at) / 1e9 * rate)
        b.at = now
        defer { buckets[peer.id] = b }
        if b.tokens >= 1 { b.tokens -= 1; return true }
        if now &- b.lastNotice > 1_000_000_000 {
            b.lastNotice = now
            notice("\(peer): over \(Int(rate)) events/s; events dropped")
        }
        return false
    }
}
