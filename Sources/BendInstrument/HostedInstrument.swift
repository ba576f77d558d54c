import BendAudio
import BendControl
import BendSystem

/// An instrument whose render step a host drives (the LV2 plugin's `run`): assembled from
/// the same `SoundSettings` as `play`'s, with the same sources (`SourceSettings`, made by
/// `SourceFactory`: the web pad), but with no output of its own — the host calls
/// `driver.period` on its audio thread with its own buffers and block sizes.
///
/// Live: its stream clock is published by each period, so a source's events (a phone's
/// touch) are stamped one period ahead like `play`'s. Events the host hands to `run` (its
/// MIDI) go through a port of their own made at setup (`addPort`).
/// - Thread: setup (made in the host's instantiate, freed in its cleanup); `driver` on
///   the host's audio thread.
public final class HostedInstrument: @unchecked Sendable {
    public let sound: SoundSettings
    /// Frames per second (the host's).
    public let rate: Double
    /// The tone the voices play; freed with the instrument.
    public let tone: ToneSource.Loaded
    /// The engine, its ports and its render step.
    public let instrument: Instrument
    private let log: @Sendable (String) -> Void
    private let show: @Sendable (String) -> Void
    /// Makes the band-limited levels (voices read cubic until they are installed).
    private var levelMaker: SystemThread?
    private var started: [InputSource] = []

    /// - Parameters:
    ///   - rate: the host's sample rate, frames per second.
    ///   - maxBlock: the longest block `driver.period` is given, frames (a longer host
    ///     block is rendered in steps of it).
    ///   - assets: where the default tone is (the plugin's bundle).
    ///   - log: one line for the user (the host's log).
    ///   - show: a line as it is (the web pad's address and code).
    /// - Throws: `InstrumentError(.input)` for a tone that does not load; `(.runtime)` when
    ///   the levels' thread cannot start.
    public init(sound: SoundSettings, rate: Double, maxBlock: Int, assets: [String],
                log: @escaping @Sendable (String) -> Void, show: @escaping @Sendable (String) -> Void) throws {
        self.sound = sound
        self.rate = rate
        self.log = log
        self.show = show
        tone = try ToneSource.load(sound, rate: rate, levelsNow: false, assets: assets, note: { log("note: \($0)") })
        instrument = Instrument(configuration: sound.configuration(rate: rate, periodFrames: maxBlock), sound: tone.sound, live: true)
        do { levelMaker = try ToneSource.makeLevelsInBackground(tone, log: log) } catch {
            instrument.deallocate()
            tone.deallocate()
            throw error
        }
    }

    /// The render step the host's audio thread calls (`RenderDriver.period`).
    public var driver: RenderDriver { instrument.driver() }

    /// The meters sources and the front end read.
    public var meters: InstrumentMeters { InstrumentMeters(mixer: instrument.mixer) }

    /// A port of its own (its own event ring): the host's MIDI, or a source the front end
    /// runs itself. - Thread: setup, before the host's first `run`.
    public func addPort(observers: [ControlEventObserver] = []) -> ControlPort {
        instrument.addPort(pitchMap: sound.pitchMap, rounding: sound.rounding, observers: observers)
    }

    /// Makes and starts `sources` (the web pad), each on a port of its own that
    /// `observers` see too (the plugin's MPE out).
    /// - Throws: `InstrumentError` from making or starting a source; those started stop.
    public func start(_ sources: [SourceSettings], observers: [ControlEventObserver] = []) throws {
        let made = try SourceFactory(log: log, show: show).make(sources, sound: sound, jack: false)
        let context = InputContext(meters: meters, output: HostOutputStatus(rate: rate), pitchMap: sound.pitchMap, rate: rate,
                                   tuning: sound.tuning)
        for m in made {
            let port = addPort(observers: observers + m.observers)
            do { try m.source.start(port: port, context: context) {} } catch {
                stop()
                throw error
            }
            started.append(m.source)
        }
    }

    /// Stops the sources (their touches end). - Thread: setup.
    public func stop() {
        started.forEach { $0.stop() }
        started.removeAll()
        instrument.ports.forEach { $0.releaseAll() }
    }

    /// Frees the engine and the tone, after the host's last `run` and `stop()`.
    public func deallocate() {
        stop()
        levelMaker?.join()
        levelMaker = nil
        instrument.deallocate()
        tone.deallocate()
    }
}

/// The host's output as sources see it (the web pad's status line).
final class HostOutputStatus: OutputStatus {
    let rate: Double
    init(rate: Double) { self.rate = rate }
    var description: String { "LV2 host at \(Int(rate)) Hz" }
    var xruns: Int { 0 }
    var failureDescription: String? { nil }
}
