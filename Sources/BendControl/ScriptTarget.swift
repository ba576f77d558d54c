// SPDX-License-Identifier: GPL-3.0-or-later

/// Where a `ScriptPlayer` puts a script's events: a `ControlPort` (queued ahead, each
/// held by the render thread until its frame: `play --script`, `render`), or a sender
/// that passes each on as it comes due (`remote --script`: the link to an instrument).
/// - Thread: the player's (one producer).
public protocol ScriptTarget: Sendable {
    /// Queues `event` to take effect at stream frame `frame`; false (nothing sent,
    /// nothing dropped) when there is no room now: the player offers it again later.
    func offer(_ event: ControlEvent, atFrame frame: UInt64) -> Bool
    /// True when the target's pitches move between events (`hold` rounding): the player
    /// ticks it a millisecond of the stream apart.
    var needsTicks: Bool { get }
    /// One tick at stream frame `frame`; false (nothing ticked) when there is no room.
    func offerTick(atFrame frame: UInt64) -> Bool
}

extension ControlPort: ScriptTarget {
    public func offer(_ event: ControlEvent, atFrame frame: UInt64) -> Bool { trySend(event, atFrame: frame) }

    public func offerTick(atFrame frame: UInt64) -> Bool {
        guard ring.count < ring.capacity else { return false }
        tick(atFrame: frame)
        return true
    }
}

/// A target that hands each event on at once (a link's `forward`), its frame unused:
/// the player paces it (`ScriptPlayer.queue(before:)` with the clock's frame). No ticks:
/// rounding is the receiving instrument's.
public struct ForwardingScriptTarget: ScriptTarget {
    private let send: @Sendable (ControlEvent) -> Void

    public init(_ send: @escaping @Sendable (ControlEvent) -> Void) { self.send = send }

    public func offer(_ event: ControlEvent, atFrame frame: UInt64) -> Bool {
        send(event)
        return true
    }

    public var needsTicks: Bool { false }

    public func offerTick(atFrame frame: UInt64) -> Bool { true }
}
