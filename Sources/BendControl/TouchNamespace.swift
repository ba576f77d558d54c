// SPDX-License-Identifier: GPL-3.0-or-later
/// Port touch ids for a source whose touches come from many owners (devices, senders,
/// peers), each numbering its own touches: every touch that goes down gets an id no
/// other held touch of the source has, kept until it goes up, so two owners' touch 1 are
/// two voices, and a touch is never mistaken for one that ended.
///
/// Every source with more than one owner uses it (evdev: an input's decoder id; OSC: a
/// sender's touch; peers: a peer's touch id). Ids come from a 32-bit counter starting at
/// `firstID`: it wraps only after 4·10⁹ touches (over a year of ten new touches a
/// second), and even then skips every id still held.
///
///     var ids = TouchNamespace<DeviceTouch>(firstID: TouchNamespace<DeviceTouch>.apartFromPad)
///     for e in ids.translate(event, owner: { DeviceTouch(input: serial, id: $0) }) { port.send(e) }
///
/// - Thread: one (the source's producer thread); a value type, not shared.
public struct TouchNamespace<Owner: Hashable & Sendable>: Sendable {
    /// The first id handed out (never 0).
    public let firstID: UInt32
    /// Ids of the touches held now, by owner.
    private var ids: [Owner: UInt32] = [:]
    /// The same ids, to skip them when the counter comes round again.
    private var held: Set<UInt32> = []
    private var next: UInt32

    /// A first id for sources whose events share a port or a peer session with the
    /// terminal pad, whose own ids (the mouse's 0, one per key) stay below it.
    public static var apartFromPad: UInt32 { 1 << 24 }

    /// - Parameter firstID: the first id handed out, ≥ 1 (0 is taken as 1).
    public init(firstID: UInt32 = 1) {
        self.firstID = max(firstID, 1)
        next = self.firstID
    }

    /// Touches held now.
    public var count: Int { ids.count }

    /// Touches held now by owners for which `belongs` is true (one peer's, one sender's).
    public func count(where belongs: (Owner) -> Bool) -> Int { ids.keys.filter(belongs).count }

    /// The owners of the touches held now for which `belongs` is true, with their ids,
    /// in increasing id order.
    public func held(where belongs: (Owner) -> Bool = { _ in true }) -> [(owner: Owner, id: UInt32)] {
        ids.filter { belongs($0.key) }.map { (owner: $0.key, id: $0.value) }.sorted { $0.id < $1.id }
    }

    /// The id of `owner`'s touch, nil when it is not held.
    public func id(of owner: Owner) -> UInt32? { ids[owner] }

    /// Starts a touch of `owner`: a fresh id (not held by any touch).
    /// - Returns: the new id and, when `owner` already held one (a down without an up),
    ///   the id it replaces, which the caller should end first.
    public mutating func begin(_ owner: Owner) -> (id: UInt32, replaced: UInt32?) {
        let replaced = end(owner)
        while held.contains(next) || next < firstID {
            next = next == UInt32.max ? firstID : next + 1
        }
        let id = next
        next = next == UInt32.max ? firstID : next + 1
        ids[owner] = id
        held.insert(id)
        return (id, replaced)
    }

    /// Ends `owner`'s touch: its id, or nil when it was not held.
    @discardableResult
    public mutating func end(_ owner: Owner) -> UInt32? {
        guard let id = ids.removeValue(forKey: owner) else { return nil }
        held.remove(id)
        return id
    }

    /// Ends every touch whose owner `belongs` (a device unplugged, a peer gone): their
    /// ids in increasing order, to send an up for each.
    public mutating func endAll(where belongs: (Owner) -> Bool = { _ in true }) -> [UInt32] {
        let gone = ids.filter { belongs($0.key) }
        for (owner, id) in gone {
            ids[owner] = nil
            held.remove(id)
        }
        return gone.values.sorted()
    }

    /// One event of an owner's, in its own ids, in port ids: a down gets a fresh id (and
    /// a down for a touch already held first ends it: an up, then the down); a move or
    /// up of a touch not held is dropped; tilt passes unchanged. Pad (`touch`) and
    /// `pitched` events alike keep their other fields.
    /// - Parameter owner: the owner of the event's (own) touch id.
    public mutating func translate(_ event: ControlEvent, owner: (UInt32) -> Owner) -> [ControlEvent] {
        guard let (local, phase) = event.touchPhase else { return [event] }
        let who = owner(local)
        switch phase {
        case .down:
            let (id, replaced) = begin(who)
            let down = event.withTouchID(id)
            return replaced.map { [.touch(id: $0, phase: .up, x: 0, y: 0), down] } ?? [down]
        case .move:
            return ids[who].map { [event.withTouchID($0)] } ?? []
        case .up:
            return end(who).map { [event.withTouchID($0)] } ?? []
        }
    }
}
