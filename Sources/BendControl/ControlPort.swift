import BendEngine
import BendSystem
import Synchronization

/// Receives every control event from every source, e.g. to write a touch script of a
/// live take (`--record-touches`) or to show the touches on screen.
/// - Thread: called on the source's thread; implementations must be thread-safe.
public protocol ControlEventObserver: AnyObject, Sendable {
    func observe(_ event: ControlEvent, source: UInt32, streamFrame: UInt64)
    /// Source `source`'s events observed for after `streamFrame` will not be played
    /// (`ControlPort.releaseAll` when the source had queued ahead: a script stopped
    /// early). The ups of its touches at `streamFrame` follow. Default: nothing.
    func cut(source: UInt32, atFrame streamFrame: UInt64)
}

extension ControlEventObserver {
    public func cut(source: UInt32, atFrame streamFrame: UInt64) {}
}

/// One input source's way into the engine: it maps pad coordinates to pitch ratio and
/// gain, rounds pad touches onto the tuning's steps (`rounding`), stamps each event with
/// the stream frame it should take effect at, and pushes it on the source's own
/// `SPSCRing<EngineEvent>`.
///
/// Rounding happens here, before anything else sees the touch: the engine gets ordinary
/// pitch events, and observers (the touch script recorder, MPE out) get the touch with
/// its rounded x (the pitch map's inverse of the rounded ratio), so they carry the pitch
/// that sounds. `hold` rounding also moves resting touches between events: something
/// calls `tick()` every few milliseconds (`RoundingTicker` live; the offline renderer
/// with frames).
///
/// Calls are serialised by the port's lock (the source's thread and the ticker's), so
/// the ring keeps one producer at a time.
public final class ControlPort: @unchecked Sendable {
    /// The source index: the upper half of every `TouchKey` this port makes.
    public let source: UInt32
    public let pitchMap: PitchMap
    /// Rounding of pad touches; nil (or mode `off`): none.
    public let rounding: PitchRounding?
    let ring: SPSCRing<EngineEvent>
    let clock: StreamClock?
    let observers: [ControlEventObserver]
    /// The engine, for `releaseAll`'s cut of events queued ahead.
    private let mixer: Mixer
    /// Frames per second (stream frames → seconds for rounding).
    let rate: Double
    private let lock = Mutex(())
    /// Touches that are down, by the source's id, for `releaseAll`.
    private(set) public var activeTouches: Set<UInt32> = []
    /// The sustain control (`ControlEvent.sustain`), and the touches released while it was
    /// down: still sounding, their ups deferred until it is let go (or `releaseAll`).
    private var sustain = Sustain()
    private var lastFrame: UInt64 = 0
    /// Rounded pad touches: their rounder, the y they last had and the x last sent.
    private var rounded: [UInt32: (rounder: PitchRounder, y: Double, x: Double)] = [:]
    /// Downs, moves and pans refused to keep the ring's reserve for ups.
    private let refused = Atomic<Int>(0)
    /// Ups the full ring could not take: pushed first by the next call (never lost).
    private var pendingUps: [UInt32] = []

    /// Slots of the engine's ring kept for ups (and the release of the whole source): a
    /// down, move or pan is refused when no more than this many are free, so a flood that
    /// fills the ring (a render thread that fell behind, a sender far over its limits)
    /// costs moves and new touches, never the up of a touch that sounds — which would
    /// leave its voice sounding for good. An eighth of the ring.
    var upReserve: Int { ring.capacity / 8 }

    /// True while the ring has room above the reserve for ups.
    private var hasRoom: Bool { ring.capacity - ring.count > upReserve }

    /// - Parameters:
    ///   - mixer: the engine; a new event ring is made for this source (setup only).
    ///   - rounding: how pad touches are rounded; nil: not at all.
    ///   - clock: stamps live events; nil for offline use, where callers give frames.
    public init(mixer: Mixer, pitchMap: PitchMap, rounding: PitchRounding? = nil, clock: StreamClock?,
                observers: [ControlEventObserver] = []) {
        let (index, ring) = mixer.addSource()
        self.source = index
        self.ring = ring
        self.pitchMap = pitchMap
        self.rounding = rounding?.mode == .off ? nil : rounding
        self.clock = clock
        self.observers = observers
        self.rate = mixer.configuration.rate
        self.mixer = mixer
    }

    /// True when the port's pitches move between events (`hold` rounding): call `tick`.
    public var needsTicks: Bool { rounding?.mode == .hold }

    /// Events dropped because the engine's ring for this source was full (or had only
    /// its reserve for ups left: `upReserve`). - Thread: any.
    public var dropped: Int { ring.dropped + refused.load(ordering: .relaxed) }

    /// Sends a live event, stamped from the monotonic clock.
    /// - Thread: this source's thread.
    public func send(_ event: ControlEvent) {
        let frame = clock?.stamp(nanos: MonotonicClock.nanos()) ?? 0
        send(event, atFrame: frame)
    }

    /// Like `send(_:atFrame:)`, but returns false (sending nothing, dropping nothing)
    /// when the engine's ring for this source has no room, so the caller can retry.
    /// - Thread: this source's thread.
    public func trySend(_ event: ControlEvent, atFrame frame: UInt64) -> Bool {
        lock.withLock { _ in
            guard hasRoom else { return false }
            sendLocked(event, atFrame: frame)
            return true
        }
    }

    /// Sends an event that takes effect at stream frame `frame` (offline render and
    /// replay). Frames are made non-decreasing per source.
    /// - Thread: this source's thread.
    public func send(_ event: ControlEvent, atFrame frame: UInt64) {
        lock.withLock { _ in sendLocked(event, atFrame: frame) }
    }

    private func sendLocked(_ event: ControlEvent, atFrame frame: UInt64) {
        let frame = max(frame, lastFrame)
        lastFrame = frame
        while let id = pendingUps.first, ring.push(EngineEvent(frame: frame, kind: .up, key: TouchKey(source: source, touch: id))) {
            pendingUps.removeFirst()
        }
        var event = event
        // Source ids → port ids (the same unless a reused id's earlier touch is sustained).
        if let (id, phase) = event.touchPhase {
            let portID = sustain.portID(id, phase) { activeTouches.contains($0) }
            if portID != id { event = event.withTouchID(portID) }
        }
        switch event {
        case let .touch(id, phase, rawX, y):
            let x = round(id: id, phase: phase, x: rawX, y: y, frame: frame)
            if x != rawX { event = .touch(id: id, phase: phase, x: x, y: y) }
            guard push(id: id, phase: phase, ratio: Float(pitchMap.ratio(x: x)), gain: Float(gain(y: y)), frame: frame) else { return }
        case let .pitched(id, phase, ratio, g, _):
            let r = ratio.isNaN ? 0 : min(max(ratio, 0), Double(EngineLimits.maximumRatio))
            guard push(id: id, phase: phase, ratio: Float(r), gain: Float(gain(y: g)), frame: frame) else { return }
        case let .tilt(value):
            let pan = value.isNaN ? 0 : min(max(value, -1), 1)
            guard hasRoom else { refused.add(1, ordering: .relaxed); return }
            ring.push(EngineEvent(frame: frame, kind: .pan, value: Float(pan)))
        case let .sustain(on):
            guard on != sustain.held else { return }
            for o in observers { o.observe(event, source: source, streamFrame: frame) }
            for id in sustain.set(on) { pushUp(id, frame: frame) }
            return
        }
        for o in observers { o.observe(event, source: source, streamFrame: frame) }
    }

    /// A deferred touch's up, now: the engine's and the observers'.
    private func pushUp(_ id: UInt32, frame: UInt64) {
        if !ring.push(EngineEvent(frame: frame, kind: .up, key: TouchKey(source: source, touch: id))) { pendingUps.append(id) }
        for o in observers { o.observe(.touch(id: id, phase: .up, x: 0, y: 0), source: source, streamFrame: frame) }
    }

    /// Pushes one touch's engine event; false (nothing pushed) for a move or up of a
    /// touch that is not down, and for a down or move refused to keep the ring's reserve
    /// for ups (a refused down never started: its moves and up are ignored too).
    private func push(id: UInt32, phase: TouchPhase, ratio: Float, gain g: Float, frame: UInt64) -> Bool {
        let key = TouchKey(source: source, touch: id)
        switch phase {
        case .down:
            guard hasRoom else { refused.add(1, ordering: .relaxed); return false }
            activeTouches.insert(id)
            ring.push(EngineEvent(frame: frame, kind: .down, key: key, value: ratio, gain: g))
        case .move:
            guard activeTouches.contains(id) else { return false }
            guard hasRoom else { refused.add(1, ordering: .relaxed); return false }
            ring.push(EngineEvent(frame: frame, kind: .move, key: key, value: ratio, gain: g))
        case .up:
            guard activeTouches.remove(id) != nil else { return false }
            // Held by the sustain control: sounds on, its up (engine's and observers') later.
            if sustain.defer(id) { return false }
            if !ring.push(EngineEvent(frame: frame, kind: .up, key: key)) { pendingUps.append(id) }
        }
        return true
    }

    /// Ends every touch of this source (the source went away, or the player quit):
    /// their voices fade out with the normal release; observers see an `up` for each.
    /// Live, it happens now (the clock's frame): events the source queued for later (a
    /// script's) are dropped by the engine (`Mixer.cut`) and by the observers (`cut`),
    /// so nothing sounds or is recorded past the stop.
    /// - Thread: this source's thread.
    public func releaseAll() {
        lock.withLock { _ in releaseAllLocked() }
    }

    private func releaseAllLocked() {
        rounded.removeAll()
        var frame = lastFrame
        if let clock {
            frame = clock.stamp(nanos: MonotonicClock.nanos())
            if frame < lastFrame {
                // Events are queued ahead: they are not played.
                mixer.cut(source: source, atFrame: frame)
                for o in observers { o.cut(source: source, atFrame: frame) }
            } else {
                frame = max(frame, lastFrame)
            }
            lastFrame = frame
        }
        // The sustained touches end too, and the control is let go: nothing stays stuck
        // (observers see it let go first, so a recorded take's ups are not held either).
        let held = sustain.held
        let deferred = sustain.releaseAll()
        if held { for o in observers { o.observe(.sustain(false), source: source, streamFrame: frame) } }
        for id in activeTouches.union(deferred).sorted() {
            for o in observers { o.observe(.touch(id: id, phase: .up, x: 0, y: 0), source: source, streamFrame: frame) }
        }
        activeTouches.removeAll()
        ring.push(EngineEvent(frame: frame, kind: .releaseSource, key: TouchKey(source: source, touch: 0)))
    }

    /// Moves every resting touch of `hold` rounding to where it has got to now.
    /// - Thread: any (the ticker's); serialised with the source's calls.
    public func tick() {
        guard needsTicks else { return }
        lock.withLock { _ in
            let frame = max(clock?.stamp(nanos: MonotonicClock.nanos()) ?? lastFrame, lastFrame)
            tickLocked(atFrame: frame)
        }
    }

    /// `tick()` at stream frame `frame` (offline).
    public func tick(atFrame frame: UInt64) {
        guard needsTicks else { return }
        lock.withLock { _ in tickLocked(atFrame: max(frame, lastFrame)) }
    }

    private func tickLocked(atFrame frame: UInt64) {
        guard let rounding, !rounded.isEmpty else { return }
        lastFrame = frame
        let t = Double(frame) / rate
        for id in rounded.keys.sorted() {
            guard var entry = rounded[id] else { continue }
            entry.rounder.advance(to: t)
            let x = pitchMap.x(ratio: rounding.tuning.ratio(cents: entry.rounder.output))
            // A move the full ring cannot take is sent by a later tick (x stays behind).
            let send = abs(x - entry.x) > 1e-9 && activeTouches.contains(id) && hasRoom
            if send { entry.x = x }
            rounded[id] = entry
            guard send else { continue }
            ring.push(EngineEvent(frame: frame, kind: .move, key: TouchKey(source: source, touch: id),
                                  value: Float(pitchMap.ratio(x: x)), gain: Float(gain(y: entry.y))))
            let event = ControlEvent.touch(id: id, phase: .move, x: x, y: entry.y)
            for o in observers { o.observe(event, source: source, streamFrame: frame) }
        }
    }

    /// The x to play for a pad touch's event: rounded when rounding is on.
    private func round(id: UInt32, phase: TouchPhase, x: Double, y: Double, frame: UInt64) -> Double {
        guard let rounding else { return x }
        let t = Double(frame) / rate
        let cents = rounding.tuning.cents(ratio: pitchMap.ratio(x: x))
        var rounder: PitchRounder
        switch phase {
        case .up:
            rounded[id] = nil
            return x
        case .down:
            rounder = PitchRounder(rounding, cents: cents, time: t)
        case .move:
            guard let entry = rounded[id] else { return x }
            rounder = entry.rounder
            rounder.move(cents: cents, time: t)
        }
        let out = pitchMap.x(ratio: rounding.tuning.ratio(cents: rounder.output))
        rounded[id] = (rounder, y, out)
        return out
    }
}
