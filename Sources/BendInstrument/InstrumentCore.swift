// SPDX-License-Identifier: GPL-3.0-or-later
import BendAudio
import BendControl
import BendEngine
import BendSystem
import Synchronization

/// The one door to an instrument, that every front end is a thin shell over — `play`
/// (`PlaySession`), the LV2 plugin, and a CLAP plugin next: the tone and its swaps
/// (`SwappedTones`), the engine (`Instrument`: mixer, stream clock), the input ports and
/// their sources, the context sources see, one rounding ticker, and for a plugin host its
/// render face (`HostRender`: the host's MIDI at its frames, MIDI out, the block step).
///
/// Sources live in slots: `reserve` takes an engine source (an event ring) at setup, and
/// a source is started in it then or later — `restart` from a control thread while the
/// instrument plays (a plugin's web pad, served again with new pad settings), on a new
/// port of the same ring with its own pitch map and rounding; the source before it stops
/// and every touch it started ends first.
/// - Thread: setup (made, reserved, freed); `start`, `restart`, `stop`, the tone calls on
///   one control thread at a time (setup, or a plugin host's worker); `hostRender` and
///   `driver` are used on the render thread.
public final class InstrumentCore: @unchecked Sendable {
    public let sound: SoundSettings
    /// Frames per second.
    public let rate: Double
    /// The engine, its clock and its render step.
    let instrument: Instrument
    /// Every tone played, until no voice plays it.
    let tones: SwappedTones
    private let assets: [String]
    private let log: @Sendable (String) -> Void
    private let show: @Sendable (String) -> Void
    /// What sources see; a front end adds to it at setup (`touchBoard`, `lateEvents`).
    public var context: InputContext

    /// One reserved source: its engine ring, its port now, and the source in it.
    private struct Slot {
        let engine: (index: UInt32, ring: SPSCRing<EngineEvent>)
        var port: ControlPort
        var observers: [ControlEventObserver]
        var source: InputSource?
        /// False once its touches were released and nothing started since: released once
        /// only (a second release of a voice already fading restarts its release curve).
        var open = true
    }
    private let slots = Mutex<[Slot]>([])
    private var ticker: RoundingTicker?
    /// The plugin host's face, once asked for.
    private var host: HostRender?

    /// A slot: where `start` and `restart` put a source.
    public struct SlotID: Hashable, Sendable {
        let index: Int
    }

    /// An instrument playing `tone` (owned from now on; `levels` the thread making its
    /// band-limited levels, joined before it is freed).
    /// - Parameters:
    ///   - periodFrames: the longest period a sink or host block asks for in one step.
    ///   - output: what sources may show of the output.
    ///   - assets: where the default tone is (a plugin's bundle; play: the installation's).
    public init(sound: SoundSettings, tone: ToneSource.Loaded, levels: SystemThread?, rate: Double, periodFrames: Int,
                output: any OutputStatus, assets: [String] = [], log: @escaping @Sendable (String) -> Void,
                show: @escaping @Sendable (String) -> Void) {
        self.sound = sound
        self.rate = rate
        self.assets = assets
        self.log = log
        self.show = show
        instrument = Instrument(configuration: sound.configuration(rate: rate, periodFrames: periodFrames), sound: tone.sound, live: true)
        tones = SwappedTones(playing: tone, levels: levels, mixer: instrument.mixer)
        context = InputContext(meters: InstrumentMeters(mixer: instrument.mixer), output: output, pitchMap: sound.pitchMap, rate: rate,
                               tuning: sound.tuning)
        context.toneNote = sound.toneNote
        context.panic = { [weak self] in _ = self?.panic(from: $0) }
        context.panicNotice = { [weak self] in self?.panicNotice }
    }

    /// Loads the tone `sound` names (its levels made on a thread of their own) and makes
    /// the instrument (a plugin's instantiate).
    /// - Throws: `InstrumentError(.input)` for a tone that does not load; `(.runtime)` when
    ///   the levels' thread cannot start.
    public static func load(sound: SoundSettings, rate: Double, periodFrames: Int, output: any OutputStatus, assets: [String],
                            log: @escaping @Sendable (String) -> Void, show: @escaping @Sendable (String) -> Void) throws -> InstrumentCore {
        let tone = try ToneSource.load(sound, rate: rate, levelsNow: false, assets: assets, note: { log("note: \($0)") })
        let levels: SystemThread?
        do { levels = try ToneSource.makeLevelsInBackground(tone, log: log) } catch {
            tone.deallocate()
            throw error
        }
        return InstrumentCore(sound: sound, tone: tone, levels: levels, rate: rate, periodFrames: periodFrames, output: output,
                              assets: assets, log: log, show: show)
    }

    // MARK: - Slots and sources

    /// Reserves a slot: an engine source of its own, with a port at the instrument's pitch
    /// map and rounding that `observers` see. - Thread: setup (before the first period).
    public func reserve(observers: [ControlEventObserver] = []) -> SlotID {
        let engine = instrument.reserveSource()
        let port = ControlPort(mixer: instrument.mixer, source: engine, pitchMap: sound.pitchMap, rounding: sound.rounding,
                               clock: instrument.clock, observers: observers)
        return slots.withLock { s in
            s.append(Slot(engine: engine, port: port, observers: observers, source: nil))
            return SlotID(index: s.count - 1)
        }
    }

    /// The port of `slot` now (a front end that sends into it itself, a test).
    public func port(_ slot: SlotID) -> ControlPort { slots.withLock { $0[slot.index].port } }

    /// The sources `settings` ask for (`SourceFactory`), not started: made before the
    /// core, so a bad key file is said before the tone loads or the device opens.
    /// - Throws: `InstrumentError` (a bad key file, Bluetooth or the sequencer unavailable).
    public static func makeSources(_ settings: [SourceSettings], sound: SoundSettings, jack: Bool, log: @escaping @Sendable (String) -> Void,
                                   show: @escaping @Sendable (String) -> Void) throws -> [(source: InputSource, observers: [ControlEventObserver])] {
        try SourceFactory(log: log, show: show).make(settings, sound: sound, jack: jack).map { ($0.source, $0.observers) }
    }

    /// The sources `settings` ask for, as this core's sound makes them (a plugin's pad).
    public func makeSources(_ settings: [SourceSettings]) throws -> [(source: InputSource, observers: [ControlEventObserver])] {
        try Self.makeSources(settings, sound: sound, jack: false, log: log, show: show)
    }

    /// Starts `source` in `slot` (empty, or its source stopped) on the slot's port; it calls
    /// `finished` once if it ends by itself.
    /// - Throws: what the source throws (its touches are released); `InstrumentError(.runtime)`
    ///   when the rounding ticker cannot start.
    public func start(_ source: InputSource, in slot: SlotID, finished: @escaping @Sendable () -> Void = {}) throws {
        try launch(source, in: slot, on: port(slot), context: context, finished: finished)
    }

    /// The one source start: `source` on `port` in `slot`, the ticker told of the port.
    private func launch(_ source: InputSource, in slot: SlotID, on port: ControlPort, context: InputContext,
                        finished: @escaping @Sendable () -> Void) throws {
        do { try source.start(port: port, context: context, finished: finished) } catch {
            port.releaseAll()
            throw error
        }
        slots.withLock {
            $0[slot.index].source = source
            $0[slot.index].open = true
        }
        try tickPorts()
    }

    /// Stops the source in `slot` (if any) and starts `made` there on a new port of the
    /// slot's ring with `pitch`'s pitch map, rounding, scale and tone note, seen by the
    /// slot's observers and `observers`: a source served again with new settings while the
    /// instrument plays. Returns the source started.
    /// - Throws: as `start` (the slot is then empty).
    /// - Thread: setup or one control thread (a plugin's worker).
    @discardableResult
    public func restart(_ slot: SlotID, with made: InputSource, pitch: SoundSettings, observers: [ControlEventObserver] = [],
                        finished: @escaping @Sendable () -> Void = {}) throws -> InputSource {
        stop(slot)
        let (engine, kept) = slots.withLock { ($0[slot.index].engine, $0[slot.index].observers) }
        let port = ControlPort(mixer: instrument.mixer, source: engine, pitchMap: pitch.pitchMap, rounding: pitch.rounding,
                               clock: instrument.clock, observers: kept + observers)
        var context = self.context
        context.pitchMap = pitch.pitchMap
        context.tuning = pitch.tuning
        context.toneNote = pitch.toneNote
        slots.withLock {
            $0[slot.index].port = port
            $0[slot.index].open = true
        }
        try launch(made, in: slot, on: port, context: context, finished: finished)
        return made
    }

    /// Stops the source in `slot`; every touch it started ends. - Thread: as `restart`.
    public func stop(_ slot: SlotID) {
        let (source, port, open) = slots.withLock { s -> (InputSource?, ControlPort, Bool) in
            defer {
                s[slot.index].source = nil
                s[slot.index].open = false
            }
            return (s[slot.index].source, s[slot.index].port, s[slot.index].open)
        }
        source?.stop()
        if open { port.releaseAll() }
    }

    /// Stops every source (their touches end) and the ticker. - Thread: setup.
    public func stopAll() {
        for i in slots.withLock({ $0.indices }) { stop(SlotID(index: i)) }
        ticker?.stop()
        ticker = nil
    }

    // MARK: - The panic

    /// How long a pad shows the panic's line, ns.
    static let panicShownFor: UInt64 = 5_000_000_000
    /// The last panic's line and when it was said (monotonic ns).
    private let panicSaid = Mutex<(line: String, at: UInt64)?>(nil)

    /// The panic, the one for every front end: every touch of every source ends, the
    /// sustain control let go and the touches it held too (each port's `panic`), and a
    /// plugin host's MIDI notes at its next block (`HostRender.requestPanic`). The
    /// sources go on playing: their next touch sounds. `from` names what asked (the
    /// terminal pad's Escape, the phone pad's button, MIDI CC 120/123, OSC
    /// `/bendsynth/panic`, SIGUSR1); the line saying so goes to the pad (`panicNotice`)
    /// and, while no terminal pad is drawn, to the log. Returns how many touches ended.
    /// - Thread: any control thread (a source's, the signal waiter's), never inside a
    ///   port call.
    @discardableResult
    public func panic(from: String) -> Int {
        let (ports, padDrawn) = slots.withLock { s in (s.map(\.port), s.contains { $0.source?.ownsTerminal == true }) }
        var touches = 0, sources = 0
        for port in ports {
            let n = port.panic()
            touches += n
            if n > 0 { sources += 1 }
        }
        host?.requestPanic()
        let line = "panic (\(from)): every touch ended (\(touches) touch\(touches == 1 ? "" : "es")"
            + (sources > 1 ? " of \(sources) sources)" : ")")
        panicSaid.withLock { $0 = (line, MonotonicClock.nanos()) }
        if !padDrawn { log(line) }
        return touches
    }

    /// The last panic's line while it is fresh (`panicShownFor`), for a pad to show.
    public var panicNotice: String? {
        panicSaid.withLock { s in s.flatMap { MonotonicClock.nanos() &- $0.at < Self.panicShownFor ? $0.line : nil } }
    }

    /// The sources started, in slot order.
    public var sources: [InputSource] { slots.withLock { $0.compactMap(\.source) } }

    /// Events dropped on the way into the engine (queues full), every port's.
    public var dropped: Int { slots.withLock { $0.reduce(0) { $0 + $1.port.dropped } } }

    /// One rounding ticker for the ports whose rounding moves resting touches (`hold`).
    private func tickPorts() throws {
        let ports = slots.withLock { $0.map(\.port) }
        guard ports.contains(where: \.needsTicks) || ticker != nil else { return }
        if let ticker { ticker.tick(ports); return }
        do {
            let t = try RoundingTicker(ports: ports)
            try t.start()
            ticker = t
        } catch {
            throw InstrumentError(.runtime, "cannot start the rounding event loop: \(error)")
        }
    }

    // MARK: - Render

    /// The render step a sink's thread calls (`RenderDriver.period`); `record` gets a copy.
    public func driver(record: SPSCRing<Float>? = nil) -> RenderDriver { instrument.driver(record: record) }

    /// The stream frame of the next period's first frame.
    public var position: UInt64 { instrument.mixer.position }

    /// The stream clock (live instruments), for a front end that stamps events itself.
    public var clock: StreamClock? { instrument.clock }

    /// What sources and front ends read: peak, voices, position.
    public var meters: InstrumentMeters { context.meters }

    /// A plugin host's render face (made once, with its own engine source for the host's
    /// MIDI), its blocks rendered in steps of the mixer's period bound. - Thread: setup.
    public var hostRender: HostRender {
        if let host { return host }
        let made = HostRender(driver: instrument.driver(), bound: instrument.periodFrames, source: instrument.reserveSource())
        host = made
        return made
    }

    /// An observer that sends a port's touches to the host as MPE (`HostMIDIOut`), its zone
    /// set-up first, at the stream frame of now: a source's observer at `restart`.
    public func mpeOut(toneNote: Double, pitchMap: PitchMap) -> ControlEventObserver {
        let out = HostMIDIOut(ring: hostRender.outgoing, toneNote: toneNote, pitchMap: pitchMap)
        out.configure(atFrame: instrument.clock?.stamp(nanos: MonotonicClock.nanos()) ?? position)
        return out
    }

    /// Every source stops and every touch ends (`stopAll`), then the voices fade out while
    /// `rendering()` says a render thread still runs (see `Instrument.fadeOut`).
    /// - Thread: setup, at the end of play.
    public func fadeOut(rendering: () -> Bool) {
        stopAll()
        instrument.fadeOut(rendering: rendering)
    }

    // MARK: - The tone

    /// The tone new touches play (the last handed to the mixer).
    public var tone: ToneSource.Loaded { tones.playing }

    /// Reads a tone (a tone file, or an SFZ instrument: `ToneSource.load`) as this
    /// instrument's settings say, with its band-limited levels made here (never on the
    /// render thread). `path` nil: the default tone. `toneNote`: the MIDI note ratio 1
    /// stands for (an SFZ instrument is placed so).
    /// - Throws: `InstrumentError(.input)` naming the file and the reason.
    public func loadTone(_ path: String?, toneNote: Double, note: (String) -> Void) throws -> ToneSource.Loaded {
        var settings = sound
        settings.tone = path
        settings.toneNote = toneNote
        return try ToneSource.load(settings, rate: rate, levelsNow: true, assets: assets, note: note)
    }

    /// New touches play `tone` from the next period on (`Mixer.replace`, no lock); voices
    /// sounding keep theirs. Owned from now on; tones the mixer gave back are freed first.
    public func play(_ tone: ToneSource.Loaded, levels: SystemThread? = nil) { tones.swap(to: tone, levels: levels) }

    /// Frees the tones the mixer gave back; returns how many.
    @discardableResult
    public func freeRetired() -> Int { tones.freeRetired() }

    /// Frees the engine, the host face and every tone, after the last period (sources stop first).
    public func deallocate() {
        stopAll()
        host?.deallocate()
        host = nil
        instrument.deallocate()
        tones.deallocate()
    }
}
