/// A sustain control's state for one source: whether it is down, and the touches
/// released while it was, which keep sounding until it is let go. `ControlPort` owns one
/// and applies it to every source's touches alike (terminal, web, MIDI, scripts, OSC…).
/// - Thread: the port's (under its lock).
public struct Sustain: Sendable, Equatable {
    /// True while the control is down.
    public private(set) var held = false
    /// Touches released while it was down, still sounding (the source's ids).
    public private(set) var deferred: Set<UInt32> = []

    public init() {}

    /// The control goes down or is let go: the touches whose ups are due now (all the
    /// deferred ones when it is let go), in id order.
    public mutating func set(_ on: Bool) -> [UInt32] {
        held = on
        guard !on else { return [] }
        defer { deferred.removeAll() }
        return deferred.sorted()
    }

    /// A touch goes up: true when the control holds it (its up is deferred).
    public mutating func `defer`(_ id: UInt32) -> Bool {
        guard held else { return false }
        deferred.insert(id)
        return true
    }

    /// A touch goes down: true when a sustained touch of the same id still sounds (its
    /// up is due before the new down).
    public mutating func restrike(_ id: UInt32) -> Bool {
        deferred.remove(id) != nil
    }

    /// The source stops: every deferred touch (their ups are due) and the control let go.
    public mutating func releaseAll() -> Set<UInt32> {
        held = false
        defer { deferred.removeAll() }
        return deferred
    }
}
