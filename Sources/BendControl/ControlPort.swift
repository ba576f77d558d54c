// SPDX-License-Identifier: GPL-3.0-or-later
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
/// The touches, the sustain control and the ring's reserve are its `TouchGate` (the
/// real-time core every source shares; a plugin's render thread uses one directly).
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
    /// The touches down, the sustain control, pending ups: under `lock`.
    private let gate: TouchGate
    /// Rounded pad touches: their rounder, the y they last had and the x last sent.
    private var rounded: [UInt32: (rounder: PitchRounder, y: Double, x: Double)] = [:]
    /// Pad moves glide over the time since their touch's last report, held within this
    /// many seconds (`glideMoves(within:)`); nil: the mixer's glide.
    private var reportGlide: ClosedRange<Double>?
    /// Each pad touch's last report (down or move), stream frame: under `lock`.
    private var lastReport: [UInt32: UInt64] = [:]

    /// Touches that are down, by port id (a copy). - Thread: any.
    public var activeTouches: Set<UInt32> { lock.withLock { _ in gate.activeTouches } }

    /// Slots of the engine's ring kept for ups (see `TouchGate`): an eighth of the ring.
    var upReserve: Int { gate.upReserve }

    /// - Parameters:
    ///   - mixer: the engine; a new event ring is made for this source (setup only).
    ///   - rounding: how pad touches are rounded; nil: not at all.
    ///   - clock: stamps live events; nil for offline use, where callers give frames.
    ///   - yMap: what a pad touch's y plays (`PadYMap`): its gain, or with a filter in the
    ///     engine (`MixerConfiguration.filter`) its timbre; nil: as the filter's settings
    ///     say (`FilterSettings.padYIsTimbre`).
    public convenience init(mixer: Mixer, pitchMap: PitchMap, rounding: PitchRounding? = nil, clock: StreamClock?,
                            observers: [ControlEventObserver] = [], yMap: PadYMap? = nil) {
        self.init(mixer: mixer, source: mixer.addSource(), pitchMap: pitchMap, rounding: rounding, clock: clock, observers: observers,
                  yMap: yMap)
    }

    /// A port on a source the mixer already has, whose ring's producer before it is done
    /// (its port's source stopped and every touch released): a source whose pitch map or
    /// rounding changes while the instrument plays (a plugin's pad settings).
    /// - Thread: setup, or the thread that stopped the source before.
    public init(mixer: Mixer, source: (index: UInt32, ring: SPSCRing<EngineEvent>), pitchMap: PitchMap, rounding: PitchRounding? = nil,
                clock: StreamClock?, observers: [ControlEventObserver] = [], yMap: PadYMap? = nil) {
        let (index, ring) = source
        self.source = index
        self.ring = ring
        self.pitchMap = pitchMap
        self.rounding = rounding?.mode == .off ? nil : rounding
        self.clock = clock
        self.observers = observers
        self.rate = mixer.configuration.rate
        self.mixer = mixer
        let filter = mixer.configuration.filter != nil
        let padY = yMap.map { $0 == .cutoff } ?? (mixer.configuration.filter?.padYIsTimbre ?? false)
        gate = TouchGate(source: index, ring: ring, timbre: filter, padYIsTimbre: padY)
    }

    deinit { gate.deallocate() }

    /// True when the engine follows touches' timbres (it has a filter): a source with a
    /// second finger dimension sends it (`ControlEvent.timbre`). - Thread: any.
    public var takesTimbre: Bool { gate.takesTimbre }

    /// True when the port's pitches move between events (`hold` rounding): call `tick`.
    public var needsTicks: Bool { rounding?.mode == .hold }

    /// Events dropped because the engine's ring for this source was full (or had only
    /// its reserve for ups left: `upReserve`). - Thread: any.
    public var dropped: Int { ring.dropped + gate.refused }

    /// Makes pad moves glide from one report to the next instead of stepping: a source
    /// whose reports are coarser than the finger (the terminal's mouse, which reports a
    /// cell at a time: about 24 cents a cell on the default map) then sounds a slide, not
    /// a staircase. Each move glides over the time since its touch's last report, held
    /// within `range` seconds (a pointer that jumps after a rest glides the longest);
    /// with `hold` rounding its raw pitch glides under the rounding (`PitchRounder`).
    /// nil: the mixer's glide (`MixerConfiguration.smoothingSeconds`).
    /// - Thread: any (before or while the source sends).
    public func glideMoves(within range: ClosedRange<Double>?) {
        lock.withLock { _ in reportGlide = range }
    }

    /// The glide of a pad touch's report at `frame`, seconds (0: none), and notes it.
    private func reportGlideSeconds(_ id: UInt32, _ phase: TouchPhase, _ frame: UInt64) -> Double {
        guard let range = reportGlide else { return 0 }
        switch phase {
        case .up:
            lastReport[id] = nil
            return 0
        case .down:
            lastReport[id] = frame
            return 0
        case .move:
            let last = lastReport[id] ?? frame
            lastReport[id] = frame
            let seconds = Double(frame &- min(last, frame)) / rate
            return min(max(seconds, range.lowerBound), range.upperBound)
        }
    }

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
            guard gate.hasRoom else { return false }
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
        let frame = gate.begin(atFrame: frame)
        switch event {
        case let .touch(id, phase, rawX, y):
            let portID = gate.portID(id, phase)
            let glide = reportGlideSeconds(portID, phase, frame)
            // Rounding follows the touch by its port id (as `tick` moves it); hold
            // rounding glides the raw pitch itself, its ticks carry the slide.
            let holds = rounding?.mode == .hold
            let x = round(id: portID, phase: phase, x: rawX, y: y, frame: frame, glide: holds ? glide : 0)
            let frames = holds ? 0 : UInt16(min((glide * rate).rounded(), Double(UInt16.max)))
            guard gate.push(id: portID, phase: phase, ratio: Float(pitchMap.ratio(x: x)), gain: padGain(y: y), frame: frame,
                            timbre: gate.timbre(of: event), glide: frames) else { return }
            notify(.touch(id: portID, phase: phase, x: x, y: y), frame)
        case let .pitched(id, phase, r, g, y):
            let portID = gate.portID(id, phase)
            let (ratio, gain) = TouchGate.pitchedValues(ratio: r, gain: g)
            guard gate.push(id: portID, phase: phase, ratio: ratio, gain: gain, frame: frame, timbre: gate.timbre(of: event)) else { return }
            notify(.pitched(id: portID, phase: phase, ratio: r, gain: g, y: y), frame)
        case let .timbre(id, value):
            let portID = gate.portID(id, .move)
            if gate.setTimbre(portID, value, atFrame: frame) { notify(.timbre(id: portID, value: value), frame) }
        case let .send(id, bus, level):
            let portID = gate.portID(id, .move)
            if gate.pushSend(portID, bus, level, atFrame: frame) { notify(.send(id: portID, bus: bus, level: level), frame) }
        case let .tilt(value):
            if gate.pan(value, atFrame: frame) { notify(event, frame) }
        case let .sustain(on):
            guard on != gate.sustained else { return }
            notify(event, frame)
            let n = gate.setSustain(on, atFrame: frame)
            for i in 0..<n { notify(.touch(id: gate.released(i), phase: .up, x: 0, y: 0), frame) }
        }
    }

    /// A pad touch's gain for its y: y itself, or `PadYMap.cutoffGain` when y is its timbre.
    private func padGain(y: Double) -> Float { gate.padYIsTimbre ? Float(PadYMap.cutoffGain) : Float(gain(y: y)) }

    /// Tells every observer.
    private func notify(_ event: ControlEvent, _ frame: UInt64) {
        for o in observers { o.observe(event, source: source, streamFrame: frame) }
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

    /// The panic's part in this port: `releaseAll` when a touch is down or held by the
    /// sustain control (a silent port is left alone: a second release would restart the
    /// release of voices already fading). Returns how many touches ended.
    /// - Thread: any (serialised with the source's calls by the port's lock: the source
    ///   goes on sending; its touches that ended here are no longer down, so their moves
    ///   and ups are dropped, and its next down plays).
    @discardableResult
    public func panic() -> Int {
        lock.withLock { _ in
            guard gate.touchCount > 0 || gate.sustained else { return 0 }
            let n = gate.touchCount
            releaseAllLocked()
            return n
        }
    }

    private func releaseAllLocked() {
        rounded.removeAll()
        lastReport.removeAll()
        var frame = gate.lastFrame
        if let clock {
            frame = clock.stamp(nanos: MonotonicClock.nanos())
            if frame < gate.lastFrame {
                // Events are queued ahead: they are not played.
                mixer.cut(source: source, atFrame: frame)
                for o in observers { o.cut(source: source, atFrame: frame) }
            }
        }
        // The sustained touches end too, and the control is let go: nothing stays stuck
        // (observers see it let go first, so a recorded take's ups are not held either).
        let (held, n) = gate.releaseAll(atFrame: frame, rewind: clock != nil)
        if held { notify(.sustain(false), gate.lastFrame) }
        for i in 0..<n { notify(.touch(id: gate.released(i), phase: .up, x: 0, y: 0), gate.lastFrame) }
    }

    /// Moves every resting touch of `hold` rounding to where it has got to now.
    /// - Thread: any (the ticker's); serialised with the source's calls.
    public func tick() {
        guard needsTicks else { return }
        lock.withLock { _ in
            let frame = max(clock?.stamp(nanos: MonotonicClock.nanos()) ?? gate.lastFrame, gate.lastFrame)
            tickLocked(atFrame: frame)
        }
    }

    /// `tick()` at stream frame `frame` (offline).
    public func tick(atFrame frame: UInt64) {
        guard needsTicks else { return }
        lock.withLock { _ in tickLocked(atFrame: max(frame, gate.lastFrame)) }
    }

    private func tickLocked(atFrame frame: UInt64) {
        guard let rounding, !rounded.isEmpty else { return }
        let t = Double(frame) / rate
        for id in rounded.keys.sorted() {
            guard var entry = rounded[id] else { continue }
            entry.rounder.advance(to: t)
            let x = pitchMap.x(ratio: rounding.tuning.ratio(cents: entry.rounder.output))
            // A move the full ring cannot take is sent by a later tick (x stays behind).
            let send = abs(x - entry.x) > 1e-9 && gate.isDown(id) && gate.hasRoom
            if send { entry.x = x }
            rounded[id] = entry
            guard send, gate.tickMove(id: id, ratio: Float(pitchMap.ratio(x: x)), gain: padGain(y: entry.y), atFrame: frame) else { continue }
            let event = ControlEvent.touch(id: id, phase: .move, x: x, y: entry.y)
            for o in observers { o.observe(event, source: source, streamFrame: frame) }
        }
    }

    /// The x to play for a pad touch's event: rounded when rounding is on.
    private func round(id: UInt32, phase: TouchPhase, x: Double, y: Double, frame: UInt64, glide: Double = 0) -> Double {
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
            rounder.move(cents: cents, time: t, glide: glide)
        }
        let out = pitchMap.x(ratio: rounding.tuning.ratio(cents: rounder.output))
        rounded[id] = (rounder, y, out)
        return out
    }
}
