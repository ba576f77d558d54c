// SPDX-License-Identifier: GPL-3.0-or-later
/// The per-peer queue for unreliable sends on a stream-only link (Bluetooth RFCOMM has
/// no datagrams): bounded, and the newest move of a touch replaces an older queued one
/// (likewise the newest tilt), so a slow link carries the latest positions instead of a
/// growing backlog. A full queue drops the newest message and counts it.
///
/// Reliable messages do not pass through it; before a touch's reliable UP (or DOWN) is
/// written, `removeMoves(of:)` discards that touch's queued moves so none trails its end.
/// - Thread: one owner at a time (a value; the session keeps it under the peer's lock).
public struct BestEffortQueue: Sendable {
    /// What `enqueue` did.
    public enum Outcome: Equatable, Sendable {
        case queued
        /// An older queued move of the same touch (or an older tilt) was overwritten in place.
        case replaced
        /// The queue was full: this message was dropped.
        case dropped
    }

    /// Most messages waiting, ≥ 1.
    public let capacity: Int
    public private(set) var items: [PeerMessage] = []
    /// Messages dropped because the queue was full.
    public private(set) var dropped = 0
    /// Messages overwritten by a newer one of the same touch or tilt.
    public private(set) var replaced = 0

    public init(capacity: Int = 32) {
        precondition(capacity >= 1, "BestEffortQueue capacity must be at least 1")
        self.capacity = capacity
        items.reserveCapacity(capacity)
    }

    public var isEmpty: Bool { items.isEmpty }

    @discardableResult
    public mutating func enqueue(_ m: PeerMessage) -> Outcome {
        if let i = items.firstIndex(where: { Self.supersedes(m, $0) }) {
            items[i] = m
            replaced += 1
            return .replaced
        }
        guard items.count < capacity else { dropped += 1; return .dropped }
        items.append(m)
        return .queued
    }

    /// The oldest waiting message, or nil.
    public mutating func dequeue() -> PeerMessage? { items.isEmpty ? nil : items.removeFirst() }

    /// Discards the queued moves of touch `id` (its reliable UP or DOWN is about to go).
    public mutating func removeMoves(of id: UInt32) {
        items.removeAll { if case let .touch(t, .move, _, _, _) = $0 { t == id } else { false } }
    }

    /// True when `new` makes `old` pointless: a move of the same touch, or any tilt.
    static func supersedes(_ new: PeerMessage, _ old: PeerMessage) -> Bool {
        switch (new, old) {
        case let (.touch(a, .move, _, _, _), .touch(b, .move, _, _, _)): a == b
        case (.tilt, .tilt): true
        default: false
        }
    }
}
