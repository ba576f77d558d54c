// SPDX-License-Identifier: GPL-3.0-or-later
import BendEngine

/// The sustain control of a `TouchGate`: the touches released while it is down keep
/// sounding until it is let go, and a source id reused meanwhile gets a port id of its
/// own (the mouse's one id, a key struck again), so the held sound goes on beside the
/// new one. Each source's gate holds its own touches (the terminal's space bar, the web
/// pad's button, MIDI's CC 64, a touch script's `sustain` line).
extension TouchGate {
    /// The port id of the source's touch `id` for an event of `phase` (call it once per
    /// event, before `push`).
    /// - Thread: the source's producer.
    @_noLocks
    public func portID(_ id: UInt32, _ phase: TouchPhase) -> UInt32 {
        switch phase {
        case .down:
            if let old = aliases.remove(id) { clearAlias(old) }
            guard (touches[id] ?? 0) & TouchGate.deferred != 0 else { return id }
            var alias = state.pointee.nextAlias
            while alias == id || touches[alias] != nil { alias &-= 1 }
            state.pointee.nextAlias = alias &- 1
            guard aliases.set(id, alias) else { return id }
            touches.set(alias, TouchGate.aliased)
            return alias
        case .move:
            return aliases[id] ?? id
        case .up:
            guard let alias = aliases.remove(id) else { return id }
            clearAlias(alias)
            return alias
        }
    }

    /// Port id `alias` is no longer an alias (it stays while down or held).
    @_noLocks @inline(__always)
    func clearAlias(_ alias: UInt32) {
        if let flags = touches[alias] { setFlags(alias, flags & ~TouchGate.aliased) }
    }

    /// The control is let go: every deferred touch's up is pushed (in id order, kept at
    /// `released(0..<n)`). Returns n.
    @_noLocks
    func releaseDeferred(_ frame: UInt64) -> Int {
        let n = touches.sortedKeys(where: TouchGate.deferred, into: sorted)
        var i = 0
        while i < n {
            let id = sorted[i]
            setFlags(id, (touches[id] ?? 0) & ~TouchGate.deferred)
            if !ring.push(EngineEvent(frame: frame, kind: .up, key: TouchKey(source: source, touch: id))) { keepPending(id) }
            i += 1
        }
        return n
    }
}
