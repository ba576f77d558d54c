// SPDX-License-Identifier: GPL-3.0-or-later
import BendAudio
import BendControl
import BendDBus
import BendEngine
import BendInput
import BendMIDI
import BendSystem
import BendWeb
import Dispatch
import Foundation
import Synchronization

/// A live instrument, assembled from a `LiveSettings` value: its sources (made by
/// `SourceFactory`), its output (ALSA, JACK, or paced by the clock into a recording),
/// its recordings and MIDI out, and its shutdown. `play`, `replay` and `remote --monitor`
/// are front ends over it: parse → settings → `LiveInstrument(settings).run()`.
///
/// `run` plays until the terminal quits (`q`, hang-up), SIGINT/SIGTERM/SIGHUP, `stop()`,
/// the output ends (a JACK server gone), or every source that does not end play by itself
/// has ended (a script is done). Then it stops cleanly: every source stops and its
/// touches end, voices fade, the output stops, the files are finished, the terminal is
/// restored; the last lines (time played, xruns, what was written) go to `log`.
/// - Thread: setup (the thread that calls `run`; it must have blocked the stop signals
///   with `StopSignals.block()` before starting any thread).
public final class LiveInstrument: @unchecked Sendable {
    public let settings: LiveSettings
    private let log: @Sendable (String) -> Void
    private let show: @Sendable (String) -> Void
    private let deviceReport: () -> String
    /// Signalled once for each reason to stop; `run` waits on it.
    private let finished = DispatchSemaphore(value: 0)

    /// - Parameters:
    ///   - log: one line for the player (the app prefixes "bendsynth: " and writes stderr).
    ///   - show: a line written as it is (the web pad's address and QR code, the device list).
    ///   - deviceReport: the PCMs that exist, said when the ALSA device does not open.
    public init(_ settings: LiveSettings, log: @escaping @Sendable (String) -> Void, show: @escaping @Sendable (String) -> Void,
                deviceReport: @escaping () -> String = { "" }) {
        self.settings = settings
        self.log = log
        self.show = show
        self.deviceReport = deviceReport
    }

    /// Asks the instrument to stop, as SIGTERM does (remote: the instrument left).
    /// - Thread: any.
    public func stop() { finished.signal() }

    /// Plays until stopped (see the type).
    /// - Throws: `InstrumentError`: `.input` (exit 2) for a bad tone, key, script or
    ///   recording name; `.runtime` (exit 1) when a source, the output or a recording
    ///   fails.
    public func run() throws {
        StopSignals.block()  // before any thread starts: SIGINT/SIGTERM go to one waiter
        let sources = try SourceFactory(log: log, show: show).make(settings.sources, sound: settings.sound, jack: settings.output.isJACK)
        var recordings = settings.recordings
        let files = try RecordingFiles.claim(recordings.requested, overwrite: recordings.overwrite, say: log)
        var names = files.paths.makeIterator()
        if recordings.sound != nil { recordings.sound = names.next() }
        if recordings.touches != nil { recordings.touches = names.next() }
        if recordings.midi != nil { recordings.midi = names.next() }
        do { try play(sources, recordings: recordings, files: files) } catch {
            files.discardUnlessStarted()
            throw error
        }
    }

    /// Play, its recordings' names claimed (`files`).
    private func play(_ made: [SourceFactory.Made], recordings names: Recordings, files: RecordingFiles) throws {
        let sound = settings.sound, log = self.log
        let sources = made.map(\.source)
        // The tone first: a bad tone file is bad input (exit 2) whatever the device does.
        // (Its band-limited levels are made once the output's rate is known, on a thread
        // of their own while play starts: `makeLevelsInBackground`.)
        var said = Set<String>()  // (loaded again at the granted rate: each note once)
        var tone = try ToneSource.load(sound, rate: Double(sound.rate), levelsNow: false, note: { said.insert($0); log("note: \($0)") })
        let output = try LiveOutput.open(settings.output, rate: sound.rate, recording: names.sound != nil, log: log, show: show,
                                         deviceReport: deviceReport)
        let midiIn = sources.compactMap { $0 as? JACKMIDIInSource }.first
        let midiPorts = try LiveOutput.openMIDI(settings.output, output: output, midiIn: midiIn)
        let rate = output.rate
        if rate != sound.rate {
            tone.deallocate()
            tone = try ToneSource.load(sound, rate: Double(rate), levelsNow: false, note: {  // resampled to the granted rate
                if said.insert($0).inserted { log("note: \($0)") }
            })
        }
        let levelMaker: SystemThread?
        do { levelMaker = try ToneSource.makeLevelsInBackground(tone, log: log) } catch {
            tone.deallocate()
            throw error
        }
        let instrument = Instrument(configuration: sound.configuration(rate: Double(rate), periodFrames: output.periodFrames),
                                    sound: tone.sound, live: true)
        let mixer = instrument.mixer
        // The tone again when its files change; it owns every tone played (freed last).
        let reloader = ToneReloader(playing: tone, levels: levelMaker, sound: sound, rate: Double(rate), mixer: mixer, log: log)
        defer { reloader.finish() }
        defer { reloader.stop(); instrument.deallocate() }  // no tick after the mixer is gone
        let meters = InstrumentMeters(mixer: mixer)

        let recorders: LiveRecordings
        do { recorders = try LiveRecordings(names, rate: rate, sound: sound, position: { meters.position }) } catch {
            output.stop()
            throw error
        }
        defer { recorders.deallocate() }
        if let path = names.sound, output is PacedOutput { log("playing into '\(path)' only") }
        // Ports number their sources 0, 1, … in order; a script's events are queued ahead.
        let latencyLog = settings.output.loadStats
            ? EventLatencyLog(skipped: Set(sources.indices.filter { sources[$0] is ScriptSource }.map(UInt32.init))) : nil
        var midiOut: MIDIOutPump?
        if let midiPorts, settings.output.midiOut, let queue = midiPorts.outgoing {
            midiOut = MIDIOutPump(queue: queue, status: midiPorts, rate: Double(rate), toneNote: sound.toneNote, pitchMap: sound.pitchMap)
        }
        // Every source's touches, for the terminal pad to show (marked by source).
        let touchBoard = TouchBoard(pitchMap: sound.pitchMap)
        let observers: [ControlEventObserver] = recorders.observers + (midiOut.map { [$0] } ?? []) + (latencyLog.map { [$0] } ?? [])
            + [touchBoard]
        let ports = made.map { instrument.addPort(pitchMap: sound.pitchMap, rounding: sound.rounding, observers: observers + $0.observers) }
        for (source, port) in zip(sources, ports) {
            touchBoard.mark(source: port.source, as: Character(source.name.first.map { String($0).uppercased() } ?? "?"))
        }

        let remaining = Atomic<Int>(sources.filter { !$0.endsPlay }.count)
        let waitsForAll = !sources.contains { $0.endsPlay }
        // SIGHUP stops play like SIGTERM (StopSignals); with a terminal, its reader sees
        // the hang-up too (POLLHUP/EIO). Never SIG_IGN it here: that would discard it.
        let finished = self.finished
        StopSignals.wait { _ in finished.signal() }
        var context = InputContext(mixer: mixer, output: output, pitchMap: sound.pitchMap, rate: Double(rate), tuning: sound.tuning)
        context.touchBoard = touchBoard
        context.toneNote = sound.toneNote
        if let midiIn { context.lateEvents = { midiIn.lateEvents } }
        var started: [InputSource] = []
        // With --web and the terminal pad, the pad (which takes the whole screen) starts
        // only after Enter, so the player can scan the QR code; everything else, the
        // output included, plays meanwhile: the phone is heard from its first touch.
        let padWaitsForEnter = sources.contains { $0 is WebSource } && sources.contains { $0 is TerminalSource }
        let startSource = { (source: InputSource, port: ControlPort) throws in
            let endsPlay = source.endsPlay
            try source.start(port: port, context: context) {
                if endsPlay || (waitsForAll && remaining.subtract(1, ordering: .relaxed).newValue == 0) {
                    finished.signal()
                }
            }
            started.append(source)
        }
        // When play cannot go on from here: undo what started (sources, output, recording).
        func abandon(_ error: Error) -> Error {
            started.forEach { $0.stop() }
            output.stop()
            recorders.stopSound()
            return error
        }
        do {
            for (source, port) in zip(sources, ports) where !(padWaitsForEnter && source is TerminalSource) {
                try startSource(source, port)
            }
        } catch {
            throw abandon(error)
        }
        // The output starts after the sources, so a script's first events are queued
        // before the first period is rendered.
        // The JACK server going away ends play like q or Ctrl-C; the failure exits 1.
        output.whenEnded {
            log("\(output.failureDescription ?? "the output ended"); stopping")
            finished.signal()
        }
        do { try output.start(instrument.driver(record: recorders.ring)) } catch {
            throw abandon(InstrumentError(.runtime, "cannot start the output: \(error)"))
        }
        files.started = true
        do { try reloader.start() } catch { log("note: the tone's files are not watched for changes: \(error)") }
        // `--round hold` moves resting touches between their sources' events.
        var ticker: RoundingTicker?
        if ports.contains(where: \.needsTicks) {
            do {
                ticker = try RoundingTicker(ports: ports)
                try ticker?.start()
            } catch {
                throw abandon(InstrumentError(.runtime, "cannot start the rounding event loop: \(error)"))
            }
        }
        let clock = instrument.clock
        do { try midiOut?.start(position: { meters.position }, horizon: { clock?.frameOfNow() ?? meters.position }) } catch {
            log("--midi-out: cannot start its event loop: \(error)")
        }
        log("\(output.description); tone '\(tone.path)'; \(sound.voices) voices")
        if let note = output.realtimeNote { log("note: \(note)") }
        // Under systemd (Type=notify): READY once the first period has reached the device.
        ServiceNotifier.ready(status: "playing: \(output.description)", firstPeriodDone: { meters.position > 0 },
                              frames: { meters.position })
        do { try recorders.touches?.flushEvery(0.25) } catch {  // written as the stream passes (also before Enter)
            log("--record-touches: cannot start its writer: \(error); the take is written at the end")
        }
        if padWaitsForEnter {
            log("scan the code, then press Enter for the pad (the phone plays already)")
            let entered = Atomic<Bool>(false)
            let prompt = try? EnterPrompt { entered.store(true, ordering: .relaxed); finished.signal() }
            finished.wait()
            prompt?.cancel()
            if entered.load(ordering: .relaxed) {
                do {
                    for (source, port) in zip(sources, ports) where source is TerminalSource { try startSource(source, port) }
                    finished.wait()
                } catch {
                    log("\(error)")
                }
            }
        } else {
            finished.wait()
        }
        ServiceNotifier.stopping()

        // Stop cleanly: every source stops and its touches end, voices fade, the output
        // stops, files are finished, the terminal is restored.
        started.forEach { $0.stop() }
        ticker?.stop()
        instrument.fadeOut(rendering: { output.failureDescription == nil })
        midiOut?.finish(position: meters.position, running: { output.failureDescription == nil })
        let failure = output.failureDescription
        output.stop()
        recorders.stopSound()
        report(output: output, instrument: instrument, midiIn: midiIn, midiOut: midiOut, latencyLog: latencyLog)
        let midiFailure = recorders.finish(log: log)
        if let failure { throw InstrumentError(.runtime, failure) }
        if let midiFailure { throw InstrumentError(.runtime, midiFailure) }
        for case let terminal as TerminalSource in sources {
            if let e = terminal.failureDescription { throw InstrumentError(.runtime, "terminal: \(e)") }
        }
    }

    /// The last lines: time played, xruns, dropped events, JACK's period changes, MIDI in
    /// and out, and with `loadStats` the render thread's load and the events' latency.
    private func report(output: AudioOutput, instrument: Instrument, midiIn: JACKMIDIInSource?, midiOut: MIDIOutPump?,
                        latencyLog: EventLatencyLog?) {
        let rate = output.rate
        let seconds = Double(instrument.mixer.position) / Double(rate)
        let dropped = instrument.dropped
        // Paced by the clock (no device): no xruns to speak of.
        log(String(format: "played %.1f s", seconds) + (output is PacedOutput ? "" : ", \(output.xruns) xrun" + (output.xruns == 1 ? "" : "s"))
            + (dropped > 0 ? ", \(dropped) events dropped (queue full)" : ""))
        if let jack = output as? JACKOutput, jack.bufferSizeChanges > 0 {
            let times = jack.bufferSizeChanges == 1 ? "once" : "\(jack.bufferSizeChanges) times"
            log("the JACK server changed its period \(times) during the run: \(jack.periodFrames) frames at the start, \(jack.currentPeriodFrames) at the end"
                + (jack.currentPeriodFrames > jack.periodFrames ? " (rendered in steps of \(jack.periodFrames))" : ""))
        }
        if let midiIn { log(midiIn.summary) }
        if let midiOut { log(midiOut.summary) }
        if settings.output.loadStats, let meter = output.loadMeter {
            log(meter.summary)
            if let line = latencyLog?.summary(meter: meter, rate: rate, periodFrames: output.periodFrames) { log(line) }
            if let t = meter.firstPeriodWallSeconds { log(String(format: "first period written at %.6f (wall clock, s)", t)) }
            if let counts = RenderThreadWatch.report() {
                log("render thread over the whole run: \(counts.summary) (render_watch.so)")
            }
        }
    }
}

/// An `AudioOutput` seen as sources see it.
final class AudioOutputStatus: OutputStatus {
    let output: AudioOutput
    init(_ output: AudioOutput) { self.output = output }
    var description: String { output.description }
    var xruns: Int { output.xruns }
    var failureDescription: String? { output.failureDescription }
}

extension StreamClock {
    /// The stream frame of now: the clock's stamp of now less the period it stamps live
    /// events ahead (events before it have come or are coming this period).
    func frameOfNow() -> UInt64 {
        let stamp = stamp(nanos: MonotonicClock.nanos()), period = UInt64(periodFrames)
        return stamp > period ? stamp - period : 0
    }
}

extension InputContext {
    /// The context of a source playing into `output` from `mixer` (the live instrument's,
    /// and a test's that starts one source by hand).
    public init(mixer: Mixer, output: AudioOutput, pitchMap: PitchMap, rate: Double, tuning: Tuning? = nil) {
        self.init(meters: InstrumentMeters(mixer: mixer), output: AudioOutputStatus(output), pitchMap: pitchMap, rate: rate, tuning: tuning)
    }
}
