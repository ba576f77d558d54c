/// A sustain control's state for one source: whether it is down, and the touches
/// released while it was, which keep sounding until it is let go. `ControlPort` owns one
/// and applies it to every source's touches alike (terminal, web, MIDI, scripts, OSC…).
///
/// A touch id the source reuses while its earlier touch is still held (the mouse's one
/// id, a key struck again) gets a port id of its own (`portID`), so the held sound goes
/// on beside the new one: the port's engine keys and its observers use port ids.
/// - Thread: the port's (under its lock).
public struct Sustain: Sendable, Equatable {
    /// True while the control is down.
    public private(set) var held = false
    /// Touches released while it was down, still sounding (port ids).
    public private(set) var deferred: Set<UInt32> = []
    /// Source id → port id, for touches that went down while their source id was held.
    private var aliases: [UInt32: UInt32] = [:]
    /// The next port id to try for an alias (counting down from the top of the id range).
    private var nextAlias: UInt32 = .max

    public init() {}

    /// The port id of the source's touch `id` for an event of `phase`; `inUse` says
    /// whether a port id is taken (down or held).
    public mutating func portID(_ id: UInt32, _ phase: TouchPhase, inUse: (UInt32) -> Bool) -> UInt32 {
        switch phase {
        case .down:
            aliases[id] = nil
            guard deferred.contains(id) else { return id }
            var alias = nextAlias
            while alias == id || deferred.contains(alias) || inUse(alias) || aliases.values.contains(alias) { alias &-= 1 }
            nextAlias = alias &- 1
            aliases[id] = alias
            return alias
        case .move:
            return aliases[id] ?? id
        case .up:
            return aliases.removeValue(forKey: id) ?? id
        }
    }

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

    /// The source stops: every deferred touch (their ups are due) and the control let go.
    public mutating func releaseAll() -> Set<UInt32> {
        held = false
        aliases.removeAll()
        defer { deferred.removeAll() }
        return deferred
    }
}
