// SPDX-License-Identifier: GPL-3.0-or-later
import BendEngine
import Synchronization

/// The real-time core of one input source's way into the engine: the touches that are
/// down, the sustain control and the touches it holds, the ups a full ring could not
/// take, and the ring's reserve for ups. It turns control events (with their pitch ratio
/// and gain worked out by the caller) into engine events on the source's ring, and
/// passes each event that takes effect to `observe` (MIDI out, a touch script, the pad).
///
/// Fixed-size state allocated at setup (`TouchTable`s, a ring of pending ups, a sort
/// buffer): `apply` and `releaseAll` allocate nothing and take no lock (`@_noLocks`), so
/// a plugin's render thread uses a gate directly; a `ControlPort` (a control thread's
/// source) wraps one in its lock with rounding and observers. One producer at a time.
///
/// Rules (the same for every source):
/// - Frames are made non-decreasing per source.
/// - A down, move or pan is refused (counted) when no more than `upReserve` slots of
///   the ring are free, so a flood never costs the up of a sounding touch; an up the
///   full ring cannot take is kept and pushed first by the next call (never lost).
/// - A move or up of a touch that is not down is ignored (so is everything of a down that
///   was refused).
/// - Timbre (when the engine has a filter: `timbre`): a touch's timbre (a pitched touch's
///   y — MIDI's CC 74 —, a pad touch's y with `padYIsTimbre`, or a `.timbre` event) goes
///   as an engine `.timbre` after its down and after a move that changed it (kept per
///   touch, 16 bits, in its flags).
/// - Sustain: while it is down a touch's up is deferred (it sounds on) until it is let
///   go; a source id reused while its earlier touch is held gets a port id of its own
///   (counting down from UInt32.max), so the held sound goes on beside the new one.
///   Engine keys and observers use port ids.
/// - Thread: the source's producer (render, or a port's control thread under its lock).
public struct TouchGate: @unchecked Sendable {
    /// The source index: the upper half of every `TouchKey` this gate makes.
    public let source: UInt32
    let ring: SPSCRing<EngineEvent>
    /// The ring's slots.
    let ringCapacity: Int
    /// Port id → flags (`down`, `deferred`, `aliased`).
    let touches: TouchTable
    /// Source id → port id, for touches that went down while their source id was held.
    let aliases: TouchTable
    /// Ups the full ring could not take, oldest first: a ring of `capacity` ids.
    let pending: UnsafeMutablePointer<UInt32>
    /// Scratch for ids in order (`capacity`).
    let sorted: UnsafeMutablePointer<UInt32>
    let state: UnsafeMutablePointer<State>
    /// Downs, moves and pans refused to keep the ring's reserve for ups (and downs past
    /// `capacity`). - Thread: any reads.
    let refusals: UnsafeMutablePointer<Atomic<Int>>

    struct State {
        /// The latest frame an event was stamped with (frames are made non-decreasing).
        var lastFrame: UInt64 = 0
        /// The sustain control is down.
        var held = false
        /// The next port id to try for an alias.
        var nextAlias: UInt32 = .max
        /// Pending ups: the oldest's index in `pending`, and how many.
        var pendingHead = 0
        var pendingCount = 0
        /// Touches' timbres go to the engine (it has a filter); a pad touch's y is its
        /// timbre (`--y-map cutoff`).
        var timbre = false
        var padYIsTimbre = false
    }

    static var down: UInt32 { @_noLocks @inline(__always) get { 1 } }
    static var deferred: UInt32 { @_noLocks @inline(__always) get { 2 } }
    static var aliased: UInt32 { @_noLocks @inline(__always) get { 4 } }
    /// The flags of a touch's state (the rest: its timbre).
    static var stateFlags: UInt32 { @_noLocks @inline(__always) get { 7 } }
    /// The touch's timbre has been sent: its 16 bits are the upper half of the flags.
    static var timbreSent: UInt32 { @_noLocks @inline(__always) get { 8 } }

    /// Touches (down or held by the sustain control) a source may have at once: OSC's
    /// 64 senders × 64 touches.
    public static let defaultCapacity = 4096

    /// - Parameters:
    ///   - source: the engine source index (`Mixer.addSource`).
    ///   - ring: that source's event ring; this gate is its one producer.
    ///   - capacity: touches down or held at once (a down past it is refused).
    /// - Thread: setup.
    ///   - timbre: send touches' timbres (the engine has a filter); `padYIsTimbre`: a pad
    ///     touch's y is its timbre (its gain is then the caller's).
    public init(source: UInt32, ring: SPSCRing<EngineEvent>, capacity: Int = TouchGate.defaultCapacity, timbre: Bool = false,
                padYIsTimbre: Bool = false) {
        self.source = source
        self.ring = ring
        ringCapacity = ring.capacity
        touches = TouchTable(capacity: capacity)
        aliases = TouchTable(capacity: capacity)
        pending = .allocate(capacity: capacity)
        sorted = .allocate(capacity: capacity)
        state = .allocate(capacity: 1)
        var initial = State()
        initial.timbre = timbre
        initial.padYIsTimbre = timbre && padYIsTimbre
        state.initialize(to: initial)
        refusals = .allocate(capacity: 1)
        refusals.initialize(to: Atomic(0))
    }

    /// - Thread: setup, once no thread uses it.
    public func deallocate() {
        touches.deallocate(); aliases.deallocate(); pending.deallocate(); sorted.deallocate()
        state.deallocate(); refusals.deallocate()
    }

    /// Touches the gate holds at most.
    public var capacity: Int { touches.capacity }
    /// Slots of the ring kept for ups (and the release of the whole source): an eighth.
    public var upReserve: Int { @_noLocks get { ringCapacity / 8 } }
    /// True while the ring has room above the reserve for ups.
    public var hasRoom: Bool { @_noLocks get { ring.freeSlots > upReserve } }
    /// Events refused (the ring's reserve, or `capacity`). - Thread: any.
    public var refused: Int { refusals.pointee.load(ordering: .relaxed) }
    /// The latest frame an event took effect at.
    public var lastFrame: UInt64 { @_noLocks get { state.pointee.lastFrame } }
    /// True while the sustain control is down.
    public var sustained: Bool { @_noLocks get { state.pointee.held } }
    /// True when touches' timbres go to the engine (it has a filter).
    public var takesTimbre: Bool { @_noLocks get { state.pointee.timbre } }
    /// True when a pad touch's y is its timbre (`--y-map cutoff`).
    public var padYIsTimbre: Bool { @_noLocks get { state.pointee.padYIsTimbre } }
    /// Touches down or held by the sustain control (with any state kept), 0 when none.
    public var touchCount: Int { @_noLocks get { touches.count } }
    /// True when port id `id` is down.
    @_noLocks
    public func isDown(_ id: UInt32) -> Bool { (touches[id] ?? 0) & TouchGate.down != 0 }

    /// The touches that are down, in increasing id order (into `sorted`).
    @_noLocks
    func downIDs() -> Int { touches.sortedKeys(where: TouchGate.down, into: sorted) }

    /// The port ids down now (a copy, for tests and the control side). - Thread: the owner's.
    public var activeTouches: Set<UInt32> { Set(UnsafeBufferPointer(start: sorted, count: downIDs())) }

    /// The ratio and gain a `pitched` event plays: the ratio clamped to 0…
    /// `EngineLimits.maximumRatio` (NaN → 0), the gain to 0…1 (NaN → 0).
    @_noLocks @inline(__always)
    public static func pitchedValues(ratio: Double, gain g: Double) -> (ratio: Float, gain: Float) {
        let r = ratio.isNaN ? 0 : min(max(ratio, 0), Double(EngineLimits.maximumRatio))
        let gain = g.isNaN ? 0 : min(max(g, 0), 1)
        return (Float(r), Float(gain))
    }

    /// What a touch event plays, given the event with port ids and its frame: the event
    /// as observers see it (a rounded pad touch's x), its pitch ratio and linear gain.
    public typealias Prepare = (ControlEvent, UInt64) -> (event: ControlEvent, ratio: Float, gain: Float)

    /// `Prepare` for pitched touches (MIDI): the ratio and gain as given, clamped
    /// (`pitchedValues`); a pad touch would play silence (ratio 0).
    @_noLocks
    public static func pitched(_ event: ControlEvent, _ frame: UInt64) -> (event: ControlEvent, ratio: Float, gain: Float) {
        guard case let .pitched(_, _, r, g, _) = event else { return (event, 0, 0) }
        let (ratio, gain) = pitchedValues(ratio: r, gain: g)
        return (event, ratio, gain)
    }

    /// Applies one control event at stream frame `frame`. A touch's id becomes its port
    /// id first; then `prepare` says what it plays (a pad touch's pitch map and rounding;
    /// `TouchGate.pitched` for MIDI's). `observe` gets each event that took effect, with
    /// port ids, at its frame (a sustain change before the ups it releases).
    /// The steps it takes (`begin`, `portID`, `push`, `pan`, `setSustain`) are public for
    /// a caller whose own work is not real-time (a `ControlPort`).
    /// - Thread: the source's producer.
    @_noLocks
    public func apply(_ event: ControlEvent, atFrame frame: UInt64, prepare: Prepare,
                      observe: (ControlEvent, UInt64) -> Void) {
        let frame = begin(atFrame: frame)
        switch event {
        case let .touch(id, phase, _, _), let .pitched(id, phase, _, _, _):
            let portID = self.portID(id, phase)
            let (played, ratio, gain) = prepare(portID != id ? event.withTouchID(portID) : event, frame)
            if push(id: portID, phase: phase, ratio: ratio, gain: gain, frame: frame, timbre: timbre(of: event)) { observe(played, frame) }
        case let .timbre(id, value):
            let portID = self.portID(id, .move)
            if setTimbre(portID, value, atFrame: frame) { observe(event.withTouchID(portID), frame) }
        case let .send(id, bus, level):
            let portID = self.portID(id, .move)
            if pushSend(portID, bus, level, atFrame: frame) { observe(event.withTouchID(portID), frame) }
        case let .tilt(value):
            if pan(value, atFrame: frame) { observe(event, frame) }
        case let .sustain(on):
            guard on != state.pointee.held else { return }
            observe(event, frame)
            let n = setSustain(on, atFrame: frame)
            var i = 0
            while i < n { observe(.touch(id: sorted[i], phase: .up, x: 0, y: 0), frame); i += 1 }
        }
    }

    /// The frame an event stamped `frame` takes effect at (frames never go back), made
    /// the latest; the ups kept from a full ring are pushed first.
    /// - Thread: the source's producer.
    @_noLocks
    public func begin(atFrame frame: UInt64) -> UInt64 {
        let frame = max(frame, state.pointee.lastFrame)
        state.pointee.lastFrame = frame
        flushPending(frame)
        return frame
    }

    /// A pan of every voice at `frame`; false when refused (no room above the reserve).
    /// - Thread: the source's producer.
    @_noLocks
    public func pan(_ value: Double, atFrame frame: UInt64) -> Bool {
        let pan = value.isNaN ? 0 : min(max(value, -1), 1)
        guard hasRoom else { refusals.pointee.add(1, ordering: .relaxed); return false }
        _ = ring.push(EngineEvent(frame: frame, kind: .pan, value: Float(pan)))
        return true
    }

    /// The sustain control goes down or is let go at `frame`. Letting it go pushes the
    /// ups of every touch it held; returns how many, their ids in increasing order at
    /// `released(0..<n)` (0 when it was down already, or goes down).
    /// - Thread: the source's producer.
    @_noLocks
    public func setSustain(_ on: Bool, atFrame frame: UInt64) -> Int {
        guard on != state.pointee.held else { return 0 }
        state.pointee.held = on
        return on ? 0 : releaseDeferred(frame)
    }

    /// The `i`th id the last `setSustain` or `releaseAll` ended.
    @_noLocks
    public func released(_ i: Int) -> UInt32 { sorted[i] }

    /// Ends every touch (the source went away, the player quit, a plugin was reset):
    /// the sustain control is let go, every touch down or held ends (their ids in order
    /// at `released(0..<count)`, for the observers' ups), and the engine releases the
    /// whole source at `frame`. With `rewind`, `frame` may be before the latest event's
    /// (a live stop of a source whose events were queued ahead, which the caller cut:
    /// `Mixer.cut`); later events count from it.
    /// - Returns: whether the sustain control was down, and how many touches ended.
    /// - Thread: the source's producer.
    @_noLocks
    public func releaseAll(atFrame frame: UInt64, rewind: Bool = false) -> (sustained: Bool, count: Int) {
        let frame = rewind ? frame : max(frame, state.pointee.lastFrame)
        state.pointee.lastFrame = frame
        let held = state.pointee.held
        state.pointee.held = false
        let n = touches.sortedKeys(where: TouchGate.down | TouchGate.deferred, into: sorted)
        touches.removeAll()
        aliases.removeAll()
        state.pointee.pendingCount = 0
        state.pointee.pendingHead = 0
        _ = ring.push(EngineEvent(frame: frame, kind: .releaseSource, key: TouchKey(source: source, touch: 0)))
        return (held, n)
    }

    /// `releaseAll`, telling `observe` (the sustain let go first when it was down, then
    /// an up for each touch in id order).
    /// - Thread: the source's producer.
    @_noLocks
    public func releaseAll(atFrame frame: UInt64, observe: (ControlEvent, UInt64) -> Void) {
        let (held, n) = releaseAll(atFrame: frame)
        let at = state.pointee.lastFrame
        if held { observe(.sustain(false), at) }
        var i = 0
        while i < n { observe(.touch(id: sorted[i], phase: .up, x: 0, y: 0), at); i += 1 }
    }

    /// A move of a down touch at `frame` (`hold` rounding's ticks): false when it is not
    /// down or the ring has no room above the reserve.
    /// - Thread: the source's producer.
    @_noLocks
    public func tickMove(id: UInt32, ratio: Float, gain: Float, atFrame frame: UInt64) -> Bool {
        guard isDown(id) && hasRoom else { return false }
        state.pointee.lastFrame = max(frame, state.pointee.lastFrame)
        _ = ring.push(EngineEvent(frame: state.pointee.lastFrame, kind: .move, key: TouchKey(source: source, touch: id), value: ratio, gain: gain))
        return true
    }

    /// The timbre a touch event carries, if any (`State.timbre`): a pitched touch's y, a
    /// pad touch's y when it is the timbre.
    @_noLocks @inline(__always)
    public func timbre(of event: ControlEvent) -> Float? {
        guard state.pointee.timbre else { return nil }
        switch event {
        case let .pitched(_, _, _, _, y): return Float(y)
        case let .touch(_, _, _, y): return state.pointee.padYIsTimbre ? Float(y) : nil
        case .tilt, .sustain, .timbre, .send: return nil
        }
    }

    /// Touch `id`'s timbre at `frame` (a `.timbre` event): sent when it is down, the engine
    /// has a filter and it changed; false otherwise (nothing to observe).
    /// - Thread: the source's producer.
    @_noLocks
    public func setTimbre(_ id: UInt32, _ value: Double, atFrame frame: UInt64) -> Bool {
        guard state.pointee.timbre, isDown(id) else { return false }
        return pushTimbre(id, Float(value), frame: frame, force: false)
    }

    /// Pushes touch `id`'s send to `bus` (level clamped to 0…1 by the engine); false when
    /// the touch is not down or the ring has no room.
    /// - Thread: the source's producer.
    @_noLocks
    public func pushSend(_ id: UInt32, _ bus: SendBus, _ level: Double, atFrame frame: UInt64) -> Bool {
        guard isDown(id) else { return false }
        guard hasRoom, ring.push(.send(frame: frame, key: TouchKey(source: source, touch: id), bus: bus, level: Float(level))) else {
            refusals.pointee.add(1, ordering: .relaxed)
            return false
        }
        return true
    }

    /// Pushes touch `id`'s timbre `t` (clamped to 0…1; NaN: 0) unless it is the one last
    /// sent (`force`: after a down, always); false when it was not pushed.
    @_noLocks
    func pushTimbre(_ id: UInt32, _ t: Float, frame: UInt64, force: Bool) -> Bool {
        let value = t.isNaN ? 0 : min(max(t, 0), 1)
        let step = UInt32(value * 65535 + 0.5)
        let flags = touches[id] ?? 0
        if !force && flags & TouchGate.timbreSent != 0 && flags >> 16 == step { return false }
        guard hasRoom, ring.push(EngineEvent(frame: frame, kind: .timbre, key: TouchKey(source: source, touch: id), value: value)) else {
            refusals.pointee.add(1, ordering: .relaxed)
            return false
        }
        touches.set(id, (flags & TouchGate.stateFlags) | TouchGate.timbreSent | step << 16)
        return true
    }

    /// Pushes one touch's engine event; false (nothing pushed) for a move or up of a
    /// touch that is not down, a down or move refused to keep the reserve for ups, a
    /// down past `capacity`, and an up the sustain control holds. `timbre`: the touch's
    /// timbre, sent after a down or move (`State.timbre`; nil: none). `glide`: a move's
    /// glide in frames (`EngineEvent.glide`; 0: the mixer's).
    /// - Thread: the source's producer.
    @_noLocks
    public func push(id: UInt32, phase: TouchPhase, ratio: Float, gain g: Float, frame: UInt64, timbre: Float? = nil,
                     glide: UInt16 = 0) -> Bool {
        let key = TouchKey(source: source, touch: id)
        let flags = touches[id] ?? 0
        switch phase {
        case .down:
            guard hasRoom, touches.set(id, (flags & TouchGate.stateFlags) | TouchGate.down) else {
                refusals.pointee.add(1, ordering: .relaxed); return false
            }
            _ = ring.push(EngineEvent(frame: frame, kind: .down, key: key, value: ratio, gain: g))
            if let timbre { _ = pushTimbre(id, timbre, frame: frame, force: true) }
        case .move:
            guard flags & TouchGate.down != 0 else { return false }
            guard hasRoom else { refusals.pointee.add(1, ordering: .relaxed); return false }
            var move = EngineEvent(frame: frame, kind: .move, key: key, value: ratio, gain: g)
            move.glide = glide
            _ = ring.push(move)
            if let timbre { _ = pushTimbre(id, timbre, frame: frame, force: false) }
        case .up:
            guard flags & TouchGate.down != 0 else { return false }
            // Held by the sustain control: sounds on, its up (engine's and observers') later.
            if state.pointee.held {
                touches.set(id, (flags & ~TouchGate.down) | TouchGate.deferred)
                return false
            }
            setFlags(id, flags & ~TouchGate.down & TouchGate.stateFlags)
            if !ring.push(EngineEvent(frame: frame, kind: .up, key: key)) { keepPending(id) }
        }
        return true
    }

    /// Sets `id`'s flags (removing it when no state is left: its timbre goes with it).
    @_noLocks @inline(__always)
    func setFlags(_ id: UInt32, _ flags: UInt32) {
        if flags & TouchGate.stateFlags == 0 { touches.remove(id) } else { touches.set(id, flags) }
    }

    /// An up for later (the ring was full): pushed first by the next event.
    @_noLocks
    func keepPending(_ id: UInt32) {
        let capacity = touches.capacity
        guard state.pointee.pendingCount < capacity else { return }  // never: each pending up was a touch down
        pending[(state.pointee.pendingHead + state.pointee.pendingCount) % capacity] = id
        state.pointee.pendingCount += 1
    }

    /// Pushes the kept ups while the ring takes them.
    @_noLocks
    func flushPending(_ frame: UInt64) {
        let capacity = touches.capacity
        while state.pointee.pendingCount > 0 {
            let id = pending[state.pointee.pendingHead]
            guard ring.push(EngineEvent(frame: frame, kind: .up, key: TouchKey(source: source, touch: id))) else { return }
            state.pointee.pendingHead = (state.pointee.pendingHead + 1) % capacity
            state.pointee.pendingCount -= 1
        }
    }
}
