// SPDX-License-Identifier: GPL-3.0-or-later
import BendAudio
import BendControl

/// An instrument whose render step a host drives (the LV2 plugin's `run`): assembled from
/// the same `SoundSettings` as `play`'s, with the same sources (`SourceSettings`, made by
/// `SourceFactory`: the web pad), but with no output of its own — the host calls
/// `driver.period` on its audio thread with its own buffers and block sizes.
///
/// Live: its stream clock is published by each period, so a source's events (a phone's
/// touch) are stamped one period ahead like `play`'s. Events the host hands to `run` (its
/// MIDI) go through a port of their own made at setup (`addPort`).
///
/// Its tone can change while it plays (the plugin's tone parameter): `loadTone` reads
/// one off the render thread, `play` hands it to the mixer without a lock (new touches
/// start on it; sounding voices keep the one they play to their end). It owns every tone
/// it has played until the mixer gives it back (`freeRetired`) or it is freed.
/// - Thread: setup (made in the host's instantiate, freed in its cleanup); `driver` on
///   the host's audio thread; `loadTone`, `play` and `freeRetired` on one control thread
///   at a time (an LV2 host's worker, or its state restore, which LV2 never runs at once).
public final class HostedInstrument: @unchecked Sendable {
    public let sound: SoundSettings
    /// Frames per second (the host's).
    public let rate: Double
    /// The engine, its ports and its render step.
    public let instrument: Instrument
    private let log: @Sendable (String) -> Void
    private let show: @Sendable (String) -> Void
    /// Where the default tone is.
    private let assets: [String]
    /// Every tone it has played, until no voice plays it (`SwappedTones`).
    private let tones: SwappedTones
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
        self.assets = assets
        let tone = try ToneSource.load(sound, rate: rate, levelsNow: false, assets: assets, note: { log("note: \($0)") })
        instrument = Instrument(configuration: sound.configuration(rate: rate, periodFrames: maxBlock), sound: tone.sound, live: true)
        do { tones = SwappedTones(playing: tone, levels: try ToneSource.makeLevelsInBackground(tone, log: log), mixer: instrument.mixer) } catch {
            instrument.deallocate()
            tone.deallocate()
            throw error
        }
    }

    /// The tone new touches play (the last handed to the mixer).
    public var tone: ToneSource.Loaded { tones.playing }

    /// Reads a tone (a tone file, or an SFZ instrument: `ToneSource.load`) as this
    /// instrument's settings say, with its band-limited levels made here (this call may
    /// take a while: never on the render thread). `path` nil: the default tone.
    /// - Parameter toneNote: the MIDI note ratio 1 stands for; an SFZ instrument is
    ///   placed so (its keys then sound at their pitch from MIDI at that tone note).
    /// - Throws: `InstrumentError(.input)` naming the file and the reason.
    public func loadTone(_ path: String?, toneNote: Double, note: (String) -> Void) throws -> ToneSource.Loaded {
        var settings = sound
        settings.tone = path
        settings.toneNote = toneNote
        return try ToneSource.load(settings, rate: rate, levelsNow: true, assets: assets, note: note)
    }

    /// New touches play `tone` from the next period on (`Mixer.replace`, no lock); voices
    /// sounding keep theirs. The instrument owns `tone` from now on. Tones the mixer gave
    /// back are freed first.
    public func play(_ tone: ToneSource.Loaded) { tones.swap(to: tone, levels: nil) }

    /// Frees the tones the mixer gave back (no voice plays them, new touches do not start
    /// on them). Returns how many.
    @discardableResult
    public func freeRetired() -> Int { tones.freeRetired() }

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

    /// Frees the engine and every tone it holds, after the host's last `run` and `stop()`.
    public func deallocate() {
        stop()
        instrument.deallocate()
        tones.deallocate()
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
