// SPDX-License-Identifier: GPL-3.0-or-later
import BendAudio
import BendControl
import BendMIDI
import BendSystem

/// `play`: an instrument core (`InstrumentCore`) with a sound output of its own (ALSA,
/// JACK, or paced by the clock into a recording), its recordings and MIDI out, in five
/// phases — build, start, wait, stop, report. `play`, `replay` and `remote --monitor`
/// are front ends over it: parse → settings → `PlaySession(settings).run()`.
///
/// `run` plays until the terminal quits (`q`, hang-up), SIGINT/SIGTERM/SIGHUP, `stop()`,
/// the output ends (a JACK server gone), or every source that does not end play by itself
/// has ended (a script is done). Then it stops cleanly: every source stops and its
/// touches end, voices fade, the output stops, the files are finished, the terminal is
/// restored; the last lines (time played, xruns, what was written) go to `log`.
/// - Thread: setup (the thread that calls `run`; it must have blocked the stop signals
///   with `StopSignals.block()` before starting any thread).
public final class PlaySession: @unchecked Sendable {
    public let settings: LiveSettings
    let log: @Sendable (String) -> Void
    let show: @Sendable (String) -> Void
    private let deviceReport: () -> String
    /// Signalled once for each reason to stop; `run` waits on it.
    let finished: Wakeup
    /// The pad's notices (the terminal pad's status area while it is drawn): the
    /// front end's own when it gave one, else play's, shared with the pad.
    let notices: PadNotices

    /// - Parameters:
    ///   - log: one line for the player (the app prefixes "bendsynth: " and writes stderr).
    ///   - show: a line written as it is (the web pad's address and QR code, the device list).
    ///   - deviceReport: the PCMs that exist, said when the ALSA device does not open.
    /// - Throws: `InstrumentError(.runtime)` when its wake-up cannot be made (no descriptors left).
    public init(_ settings: LiveSettings, log: @escaping @Sendable (String) -> Void, show: @escaping @Sendable (String) -> Void,
                deviceReport: @escaping () -> String = { "" }) throws {
        self.settings = settings
        self.log = log
        self.show = show
        self.deviceReport = deviceReport
        do { finished = try Wakeup("play") } catch { throw InstrumentError(.runtime, "\(error)") }
        notices = settings.sources.lazy.compactMap { s -> PadNotices? in
            if case .terminal(let pad) = s { return pad.notices } else { return nil }
        }.first ?? PadNotices(fallback: log)
    }

    /// The sources asked for, the terminal pad given play's notices.
    private var sourcesWithNotices: [SourceSettings] {
        settings.sources.map { s in
            guard case .terminal(var pad) = s else { return s }
            pad.notices = notices
            return .terminal(pad)
        }
    }

    /// A failure play goes on after (a recording that stopped): on the pad's status line
    /// while it is drawn, and in the log at once. - Thread: any.
    func warnNow(_ line: String) {
        if notices.post(line, pin: true) { log(line) }
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
        let made = try InstrumentCore.makeSources(sourcesWithNotices, sound: settings.sound, jack: settings.output.isJACK, log: log, show: show)
        var names = settings.recordings
        let files = try RecordingFiles.claim(names.requested, overwrite: names.overwrite, say: log)
        var claimed = files.paths.makeIterator()
        if names.sound != nil { names.sound = claimed.next() }
        if names.touches != nil { names.touches = claimed.next() }
        if names.midi != nil { names.midi = claimed.next() }
        let play: PlayParts
        do { play = try build(made, recordings: names) } catch {
            files.discardUnlessStarted()
            throw error
        }
        defer { play.free() }
        do { try start(play) } catch {
            play.abandon()
            files.discardUnlessStarted()
            throw error
        }
        files.started = true
        waitForTheEnd(play)
        try finish(play)
    }

    /// Build: the tone (a bad tone file is bad input, exit 2, whatever the device does),
    /// the output, the core at the output's rate, the recordings, MIDI out and the slots.
    private func build(_ made: [(source: InputSource, observers: [ControlEventObserver])], recordings names: Recordings) throws -> PlayParts {
        let sound = settings.sound, log = self.log
        // Its band-limited levels are made once the output's rate is known, on a thread of
        // their own while play starts.
        var said = Set<String>()  // (loaded again at the granted rate: each note once)
        var tone = try ToneSource.load(sound, rate: Double(sound.rate), levelsNow: false, note: { said.insert($0); log("note: \($0)") })
        let output: AudioOutput
        do {
            output = try LiveOutput.open(settings.output, rate: sound.rate, recording: names.sound != nil, log: log, show: show,
                                         deviceReport: deviceReport)
        } catch {
            tone.deallocate()
            throw error
        }
        let parts = PlayParts(output: output, sources: made.map(\.source))
        do {
            parts.midiPorts = try LiveOutput.openMIDI(settings.output, output: output, sources: parts.sources)
            if output.rate != sound.rate {  // resampled to the granted rate
                let first = tone
                tone = try ToneSource.load(sound, rate: Double(output.rate), levelsNow: false, note: {
                    if said.insert($0).inserted { log("note: \($0)") }
                })
                first.deallocate()
            }
            let levels = try ToneSource.makeLevelsInBackground(tone, log: log)
            let core = InstrumentCore(sound: sound, tone: tone, levels: levels, rate: Double(output.rate), periodFrames: output.periodFrames,
                                      output: OutputLine(output), log: log, show: show)
            parts.core = core
            parts.reloader = ToneReloader(core, log: log)
            parts.recorders = try LiveRecordings(names, rate: output.rate, sound: sound, position: { core.position },
                                              failed: { [weak self] in self?.warnNow($0) })
        } catch {
            if parts.core == nil { tone.deallocate() }
            parts.abandon()
            parts.free()
            throw error
        }
        if let path = names.sound, output.isPaced { log("playing into '\(path)' only") }
        wire(parts, made: made)
        return parts
    }

    /// The observers every port has (recordings, MIDI out, the latency log, the board of
    /// touches the terminal pad shows) and a slot for each source.
    private func wire(_ parts: PlayParts, made: [(source: InputSource, observers: [ControlEventObserver])]) {
        let sound = settings.sound, core = parts.core!, sources = parts.sources
        // Ports number their sources 0, 1, … in order; a script's events are queued ahead.
        if settings.output.loadStats {
            parts.latencyLog = EventLatencyLog(skipped: Set(sources.indices.filter { sources[$0].queuesAhead }.map(UInt32.init)))
        }
        if let ports = parts.midiPorts, settings.output.midiOut, let queue = ports.outgoing {
            parts.midiOut = MIDIOutPump(queue: queue, status: ports, rate: core.rate, toneNote: sound.toneNote, pitchMap: sound.pitchMap)
        }
        let touchBoard = TouchBoard(pitchMap: sound.pitchMap)
        let observers: [ControlEventObserver] = parts.recorders!.observers + (parts.midiOut.map { [$0] } ?? [])
            + (parts.latencyLog.map { [$0] } ?? []) + [touchBoard]
        parts.slots = made.map { core.reserve(observers: observers + $0.observers) }
        for (source, slot) in zip(sources, parts.slots) {
            touchBoard.mark(source: core.port(slot).source, as: Character(source.name.first.map { String($0).uppercased() } ?? "?"))
        }
        core.context.touchBoard = touchBoard
        let late = sources.filter { $0.lateEvents != nil }
        if !late.isEmpty { core.context.lateEvents = { late.reduce(0) { $0 + ($1.lateEvents ?? 0) } } }
    }
}
