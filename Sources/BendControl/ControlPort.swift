import BendEngine
import BendSystem
import Synchronization

/// Receives every control event from every source, e.g. to write a touch script of a
/// live take (`--record-touches`) or to show the touches on screen.
/// - Thread: called on the source's thread; implementations must be thread-safe.
public protocol ControlEventObserver: AnyObject, Sendable {
    func observe(_ event: ControlEvent, source: UInt32, streamFrame: UInt64)
}

/// One input source's way into the engine: it maps pad coordinates to pitch ratio and
/// gain, stamps each event with the stream frame it should take effect at, and pushes
/// it on the source's own `SPSCRing<EngineEvent>` (single producer: use a port from one thread).
public final class ControlPort: @unchecked Sendable {
    /// The source index: the upper half of every `TouchKey` this port makes.
    public let source: UInt32
    public let pitchMap: PitchMap
    let ring: SPSCRing<EngineEvent>
    let clock: StreamClock?
    let observers: [ControlEventObserver]
    /// Touches that are down, by the source's id, for `releaseAll`.
    private(set) public var activeTouches: Set<UInt32> = []
    private var lastFrame: UInt64 = 0

    /// - Parameters:
    ///   - mixer: the engine; a new event ring is made for this source (setup only).
    ///   - clock: stamps live events; nil for offline use, where callers give frames.
    public init(mixer: Mixer, pitchMap: PitchMap, clock: StreamClock?, observers: [ControlEventObserver] = []) {
        let (index, ring) = mixer.addSource()
        self.source = index
        self.ring = ring
        self.pitchMap = pitchMap
        self.clock = clock
        self.observers = observers
    }

    /// Events dropped because the engine's ring for this source was full.
    public var dropped: Int { ring.dropped }

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
        guard ring.count < ring.capacity else { return false }
        send(event, atFrame: frame)
        return true
    }

    /// Sends an event that takes effect at stream frame `frame` (offline render and
    /// replay). Frames are made non-decreasing per source.
    /// - Thread: this source's thread.
    public func send(_ event: ControlEvent, atFrame frame: UInt64) {
        let frame = max(frame, lastFrame)
        lastFrame = frame
        switch event {
        case let .touch(id, phase, x, y):
            guard push(id: id, phase: phase, ratio: Float(pitchMap.ratio(x: x)), gain: Float(gain(y: y)), frame: frame) else { return }
        case let .pitched(id, phase, ratio, g, _):
            let r = ratio.isNaN ? 0 : min(max(ratio, 0), Double(EngineLimits.maximumRatio))
            guard push(id: id, phase: phase, ratio: Float(r), gain: Float(gain(y: g)), frame: frame) else { return }
        case let .tilt(value):
            let pan = value.isNaN ? 0 : min(max(value, -1), 1)
            ring.push(EngineEvent(frame: frame, kind: .pan, value: Float(pan)))
        }
        for o in observers { o.observe(event, source: source, streamFrame: frame) }
    }

    /// Pushes one touch's engine event; false (nothing pushed) for a move or up of a
    /// touch that is not down.
    private func push(id: UInt32, phase: TouchPhase, ratio: Float, gain g: Float, frame: UInt64) -> Bool {
        let key = TouchKey(source: source, touch: id)
        switch phase {
        case .down:
            activeTouches.insert(id)
            ring.push(EngineEvent(frame: frame, kind: .down, key: key, value: ratio, gain: g))
        case .move:
            guard activeTouches.contains(id) else { return false }
            ring.push(EngineEvent(frame: frame, kind: .move, key: key, value: ratio, gain: g))
        case .up:
            guard activeTouches.remove(id) != nil else { return false }
            ring.push(EngineEvent(frame: frame, kind: .up, key: key))
        }
        return true
    }

    /// Ends every touch of this source (the source went away, or the player quit):
    /// their voices fade out with the normal release; observers see an `up` for each.
    /// - Thread: this source's thread.
    public func releaseAll() {
        let frame = max(clock?.stamp(nanos: MonotonicClock.nanos()) ?? lastFrame, lastFrame)
        for id in activeTouches.sorted() {
            for o in observers { o.observe(.touch(id: id, phase: .up, x: 0, y: 0), source: source, streamFrame: frame) }
        }
        activeTouches.removeAll()
        ring.push(EngineEvent(frame: frame, kind: .releaseSource, key: TouchKey(source: source, touch: 0)))
    }
}
