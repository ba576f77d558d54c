// SPDX-License-Identifier: GPL-3.0-or-later
import BendAudio
import BendControl
import BendDBus
import BendMIDI
import BendSystem
import Synchronization

/// What play builds and the later phases use; freed at the end of `run`.
/// - Thread: setup.
final class PlayParts {
    let output: AudioOutput
    let sources: [InputSource]
    var midiPorts: JACKMIDIRings?
    var core: InstrumentCore?
    var reloader: ToneReloader?
    var recorders: LiveRecordings?
    var latencyLog: EventLatencyLog?
    var midiOut: MIDIOutPump?
    var slots: [InstrumentCore.SlotID] = []
    /// With the web pad and the terminal pad, the terminal pad starts after Enter.
    var padWaitsForEnter: Bool { sources.contains(where: \.printsForThePlayer) && sources.contains(where: \.ownsTerminal) }

    init(output: AudioOutput, sources: [InputSource]) {
        self.output = output
        self.sources = sources
    }

    /// When play cannot go on: undo what started (sources, output, recording).
    func abandon() {
        core?.stopAll()
        output.stop()
        recorders?.stopSound()
    }

    /// After the render thread stopped: the tone watcher, the recorders, the core.
    func free() {
        reloader?.stop()
        recorders?.deallocate()
        core?.deallocate()
        core = nil
    }
}

extension PlaySession {
    /// Start: the sources (a script's first events are queued before the output renders
    /// its first period), the output, the tone watcher, MIDI out, the touches' writer.
    func start(_ play: PlayParts) throws {
        let core = play.core!, output = play.output, log = self.log, finished = self.finished
        let waitsForAll = !play.sources.contains { $0.endsPlay }
        let remaining = Atomic<Int>(play.sources.filter { !$0.endsPlay }.count)
        // SIGHUP stops play like SIGTERM (StopSignals); with a terminal, its reader sees
        // the hang-up too (POLLHUP/EIO). Never SIG_IGN it here: that would discard it.
        StopSignals.wait { _ in finished.signal() }
        PanicSignal.onSignal { [weak core] in _ = core?.panic(from: "SIGUSR1") }
        for (source, slot) in zip(play.sources, play.slots) where !(play.padWaitsForEnter && source.ownsTerminal) {
            let endsPlay = source.endsPlay
            try core.start(source, in: slot) {
                if endsPlay || (waitsForAll && remaining.subtract(1, ordering: .relaxed).newValue == 0) { finished.signal() }
            }
        }
        // The JACK server going away ends play like q or Ctrl-C; the failure exits 1.
        output.whenEnded {
            log("\(output.failureDescription ?? "the output ended"); stopping")
            finished.signal()
        }
        do { try output.start(core.driver(record: play.recorders?.ring)) } catch {
            throw InstrumentError(.runtime, "cannot start the output: \(error)")
        }
        do { try play.reloader?.start() } catch { log("note: the tone's files are not watched for changes: \(error)") }
        let clock = core.clock
        do { try play.midiOut?.start(position: { core.position }, horizon: { clock?.frameOfNow() ?? core.position }) } catch {
            log("--midi-out: cannot start its event loop: \(error)")
        }
        log("\(output.description); tone '\(core.tone.path)'; \(settings.sound.voices) voices")
        if let note = output.realtimeNote { log("note: \(note)") }
        // Under systemd (Type=notify): READY once the first period has reached the device.
        let meters = core.meters
        ServiceNotifier.ready(status: "playing: \(output.description)", firstPeriodDone: { meters.position > 0 },
                              frames: { meters.position })
        do { try play.recorders?.touches?.flushEvery(0.25) } catch {  // written as the stream passes (also before Enter)
            log("--record-touches: cannot start its writer: \(error); the take is written at the end")
        }
        do { try play.recorders?.midi?.writeEvery(1, position: { core.position }) } catch {  // a valid file up to the last second
            log("--record-midi: cannot start its writer: \(error); the file is written at the end")
        }
    }

    /// Wait: for a reason to stop. With the web pad and the terminal pad, the terminal pad
    /// (which takes the whole screen) starts only after Enter, so the player can scan the
    /// QR code; everything else, the output included, plays meanwhile.
    func waitForTheEnd(_ play: PlayParts) {
        guard play.padWaitsForEnter else { return finished.wait() }
        let finished = self.finished
        log("scan the code, then press Enter for the pad (the phone plays already)")
        let entered = Atomic<Bool>(false)
        let prompt = try? EnterPrompt { entered.store(true, ordering: .relaxed); finished.signal() }
        finished.wait()
        prompt?.cancel()
        guard entered.load(ordering: .relaxed), let core = play.core else { return }
        do {
            for (source, slot) in zip(play.sources, play.slots) where source.ownsTerminal { try core.start(source, in: slot) { finished.signal() } }
            finished.wait()
        } catch {
            log("\(error)")
        }
    }

    /// Stop and report: every source stops and its touches end, voices fade, the output
    /// stops, files are finished, the terminal is restored; the last lines said.
    /// - Throws: `InstrumentError(.runtime)` for the output's, a recording's or a source's failure.
    func finish(_ play: PlayParts) throws {
        ServiceNotifier.stopping()
        PanicSignal.onSignal(nil)
        let core = play.core!, output = play.output
        core.fadeOut(rendering: { output.failureDescription == nil })
        play.midiOut?.finish(position: core.position, running: { output.failureDescription == nil })
        let failure = output.failureDescription
        output.stop()
        play.recorders?.stopSound()
        report(play)
        let recordingFailures = play.recorders?.finish(log: log) ?? []
        if let failure { throw InstrumentError(.runtime, failure) }
        // A recording that failed part-way (a full disk) exits 1, after play went on.
        if !recordingFailures.isEmpty { throw InstrumentError(.runtime, recordingFailures.joined(separator: "; ")) }
        for source in play.sources {
            if let e = source.failureDescription { throw InstrumentError(.runtime, "\(source.name): \(e)") }
        }
    }

    /// The last lines: time played, xruns, dropped events, the output's own lines (JACK's
    /// period changes), each source's (MIDI in), MIDI out, and with `loadStats` the render
    /// thread's load and the events' latency.
    func report(_ play: PlayParts) {
        let core = play.core!, output = play.output, rate = output.rate
        let seconds = Double(core.position) / Double(rate)
        let dropped = core.dropped
        // Paced by the clock (no device): no xruns to speak of.
        log(String(format: "played %.1f s", seconds) + (output.isPaced ? "" : ", \(output.xruns) xrun" + (output.xruns == 1 ? "" : "s"))
            + (dropped > 0 ? ", \(dropped) events dropped (queue full)" : ""))
        output.summaryLines.forEach(log)
        play.sources.compactMap(\.summary).forEach(log)
        if let midiOut = play.midiOut { log(midiOut.summary) }
        if settings.output.loadStats, let meter = output.loadMeter {
            log(meter.summary)
            if let line = play.latencyLog?.summary(meter: meter, rate: rate, periodFrames: output.periodFrames) { log(line) }
            if let t = meter.firstPeriodWallSeconds { log(String(format: "first period written at %.6f (wall clock, s)", t)) }
            if let counts = RenderThreadWatch.report() {
                log("render thread over the whole run: \(counts.summary) (render_watch.so)")
            }
        }
    }
}
