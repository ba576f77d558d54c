import BendAudio
import BendControl
import BendDBus
import BendEngine
import BendEvdev
import BendInput
import BendMIDI
import BendPeers
import BendSystem
import BendWeb
import Dispatch
import Foundation
import Glibc
import Synchronization

/// `bendsynth play`: the instrument. A pad in the terminal, voices mixed by the render
/// thread and written to ALSA; optionally recorded to WAV and to a touch script.
enum PlayCommand {
    static let specs: [OptionSpec] = [
        OptionSpec("device", "d", value: "PCM", help: "ALSA playback PCM, as in 'aplay -D' (default 'default'); see 'bendsynth devices'"),
        OptionSpec("period", value: "FRAMES", help: "ALSA period in frames (16…8192, default 256)"),
        OptionSpec("periods", value: "N", help: "periods in the ALSA buffer (2…16, default 3)"),
        OptionSpec("record", value: "FILE.wav", help: "also write exactly what is played, in the format of the name's extension as render -o does (.wav float32, .flac, .ogg, .aiff, .caf)"),
        OptionSpec("record-touches", value: "FILE.jsonl", help: "also write every touch and tilt as a touch script: the take, timed from the recording's start like --record's WAV"),
        OptionSpec("record-midi", value: "FILE.mid", help: "also write every touch and tilt as MPE into a Standard MIDI File"),
        OptionSpec("overwrite", help: "let the recordings replace existing files (default: the take goes to new numbered names, e.g. take-1.wav, and play says so)"),
        OptionSpec("script", value: "FILE", help: "play a touch script (.jsonl) or a MIDI file (by its MThd header) live (an input source; standard input need not be a terminal)"),
        OptionSpec("listen", value: "[ADDR][:PORT]", help: "also play touches from other machines (bendsynth remote); bare --listen: loopback, port 47810; no ADDR: loopback only; [IPv6]:PORT too; other addresses need the shared key; the next word is its value only when it is an address or port (a host name: --listen=NAME)"),
        OptionSpec("key-file", value: "FILE", help: "shared key every remote must prove, on loopback too (off loopback the default is made on first use in $XDG_CONFIG_HOME/bendsynth/key)"),
        OptionSpec("name", value: "NAME", help: "with --listen or --bluetooth: the name remotes see and bendsynth peers lists (default 'bendsynth on HOST'; 1…64 UTF-8 bytes)"),
        OptionSpec("bluetooth", help: "also accept remote players over Bluetooth (registers the bendsynth profile with bluetoothd; answers pairing requests)"),
        OptionSpec("allow", value: "ADDR[,ADDR]", help: "with --bluetooth: these Bluetooth addresses may pair and play without asking"),
        OptionSpec("accept-all", help: "with --bluetooth: anyone in range may pair and play without asking"),
        OptionSpec("load-stats", help: "at the end, print the render thread's load per period (median, p99, max) and when the first period was written"),
        OptionSpec("no-terminal", help: "do not use the terminal as an input source (needs another source, e.g. --script)"),
    ] + AudioDriverOptions.specs + EvdevOptions.deviceSpecs + EvdevOptions.mappingSpecs + OSCOptions.specs + WebOptions.specs + SoundOptions.specs + [OptionSpec("help", "h", help: "show this help")]

    static let usage = """
    usage: bendsynth play [-a alsa|jack] [--device PCM] [--record FILE.wav] [options]

    Draws a pad in the terminal. Press and drag the mouse, or hold letter keys, to
    play; x bends the pitch, y sets the gain; ←/→ tilt the pan; q or Ctrl-C quits.
    When no ALSA device opens and --record is given, it plays into the file only.

    """

    struct Options {
        var sound = SoundOptions()
        var audio = AudioDriverOptions()
        var device = "default"
        var period = 256
        var periods = 3
        var record: String?
        var recordTouches: String?
        var recordMIDI: String?
        var script: String?
        var terminal = true
        var loadStats = false
        var evdev = EvdevOptions()
        var listen: String?
        var keyFile: String?
        /// `--name`: what remotes see and `peers` lists (nil: "bendsynth on HOST").
        var name: String?
        var osc = OSCOptions()
        var web = WebOptions()
        var bluetooth = false
        var bluetoothAdmission = BluetoothAdmission()
        /// What to suggest when no device opens and nothing records (replay: its -o).
        var noOutputHint: String?
        /// `--overwrite`: recordings replace existing files.
        var overwrite = false
        /// The files play reads (never written over: `OutputPath.checkNotInput`).
        var inputs: [(what: String, path: String)] = []
    }

    static func run(_ arguments: [String]) throws {
        StopSignals.block()  // before any source makes a thread
        let (parsed, operands) = try parse(arguments, specs: specs + ConfigFile.specs)
        var o = Options()
        for (name, value) in parsed {
            if try o.sound.apply(name, value) { continue }
            if try o.evdev.apply(name, value) { continue }
            if try o.osc.apply(name, value) { continue }
            if try o.audio.apply(name, value) { continue }
            if o.web.apply(name, value) { continue }
            switch name {
            case "help":
                print(CommandTable.help("play"))
                return
            case "device": o.device = value ?? ""
            case "period": o.period = try OptionValues.integer(value, option: name, in: 16...8192)
            case "periods": o.periods = try OptionValues.integer(value, option: name, in: 2...16)
            case "record": o.record = value
            case "record-touches": o.recordTouches = value
            case "record-midi": o.recordMIDI = value
            case "overwrite": o.overwrite = true
            case "script": o.script = value
            case "no-terminal": o.terminal = false
            case "load-stats": o.loadStats = true
            case "listen": o.listen = value ?? ""
            case "key-file": o.keyFile = value
            case "name": o.name = try OptionValues.peerName(value, option: name)
            case "bluetooth": o.bluetooth = true
            case "allow": try o.bluetoothAdmission.allow(value ?? "")
            case "accept-all": o.bluetoothAdmission.acceptAll = true
            default: break
            }
        }
        try o.sound.validate()
        try o.evdev.validate()
        try o.audio.validate()
        guard operands.isEmpty else {
            // A bare --listen/--web takes only an address or port from the next word.
            let hint = arguments.contains("--listen") || arguments.contains("--web")
                ? " (a host name after --listen or --web goes with '=': --listen=\(operands[0]))" : ""
            throw AppError.usage("play: unexpected argument '\(operands[0])'\(hint)")
        }
        o.inputs = OutputPath.inputs(options: parsed, operands: [], specs: specs, outputs: ["record", "record-touches", "record-midi"],
                                     implicit: o.defaultFilesRead)
        try RecordingFiles.check(o)  // before a source reads its files (the key, the certificate)
        try ToneSource.resolveRoot(&o.sound)  // before MIDI sources and scripts read toneNote
        var sources: [InputSource] = []
        if let path = o.script {
            sources.append(ScriptSource(name: "script '\(path)'", script: try ScriptFile.load(path: path, keys: o.sound.keyboardTuning)))
        }
        if !o.evdev.devices.isEmpty { sources.append(EvdevSource(options: o.evdev)) }
        if let listen = o.listen {
            let peers = try PeerSource(listen: listen, keyFile: o.keyFile)
            peers.instrumentName = o.name
            sources.append(peers)
        } else if o.name != nil && !o.bluetooth {
            throw AppError.usage("play: --name is the name remotes over --listen or --bluetooth see; add one of them")
        }
        if !o.bluetooth, o.bluetoothAdmission != BluetoothAdmission() {
            throw AppError.usage("play: --allow and --accept-all are for Bluetooth players; add --bluetooth")
        }
        var prompt: InvitationPrompt?
        if o.bluetooth {
            try PeerSource.requireBluetooth()
            prompt = o.terminal ? InvitationPrompt() : nil
            sources.append(PeerSource(bluetoothChannel: "", admission: o.bluetoothAdmission, prompt: prompt, instrumentName: o.name))
        }
        if let osc = try o.osc.source() { sources.append(osc) }
        if o.audio.midiIn { sources.append(try midiInSource(o)) }
        if let web = try o.web.source(pitchMap: o.sound.pitchMap, addressOnStandardOutput: !o.terminal) { sources.append(web) }
        if o.terminal {
            guard isatty(STDIN_FILENO) == 1 else {
                if sources.isEmpty {
                    throw AppError.usage("play: standard input is not a terminal; the pad is played from a terminal (run bendsynth in one) or give another input source (--script, --evdev, --listen, --osc, --midi-in, --web)")
                }
                throw AppError.usage("play: standard input is not a terminal; add --no-terminal to play from the other sources alone")
            }
            let notices = PadNotices()  // peers' messages go on the pad, not over it
            for case let peers as PeerSource in sources { peers.notices = notices }
            sources.append(TerminalSource(prompt: prompt, notices: notices))
        } else if sources.isEmpty {
            throw AppError.usage("play: --no-terminal leaves no input source; give one (--script, --evdev, --listen, --osc, --midi-in, --web)")
        }
        try play(o, sources: sources)
    }

    static func play(_ o: Options, sources: [InputSource]) throws {
        StopSignals.block()  // before any thread starts: SIGINT/SIGTERM go to one waiter
        var o = o
        let files = try RecordingFiles.prepare(&o)
        do { try play(o, sources: sources, files: files) } catch {
            files.discardUnlessStarted()
            throw error
        }
    }

    /// Play, its recordings' names claimed (`files`).
    private static func play(_ o: Options, sources: [InputSource], files: RecordingFiles) throws {
        // The tone first: a bad tone file is bad input (exit 2) whatever the device does.
        // (Its band-limited levels are made once the output's rate is known, on a thread
        // of their own while play starts: `makeLevelsInBackground`.)
        var tone = try ToneSource.load(o.sound, rate: Double(o.sound.rate), levelsNow: false)
        let output = try openOutput(o)
        let midiRings = try openMIDIPorts(o, output: output, sources: sources)
        let rate = output.rate
        if rate != o.sound.rate {
            tone.deallocate()
            tone = try ToneSource.load(o.sound, rate: Double(rate), levelsNow: false)  // resampled to the granted rate
        }
        defer { tone.deallocate() }
        let levelMaker = try ToneSource.makeLevelsInBackground(tone)
        defer { levelMaker?.join() }  // before the table is freed
        var configuration = MixerConfiguration(rate: Double(rate), maxPeriodFrames: output.periodFrames, voices: o.sound.voices)
        o.sound.configure(&configuration)
        let instrument = Instrument(configuration: configuration, region: tone.region, live: true)
        let mixer = instrument.mixer

        var touchRecorder: TouchScriptRecorder?
        if let path = o.recordTouches {
            do { touchRecorder = try TouchScriptRecorder(path: path, rate: Double(rate), position: { mixer.position }) } catch {
                output.stop()
                throw AppError.input("cannot create touch script '\(path)': \(error)")
            }
        }
        var midiRecorder: MIDIRecorder?
        if let path = o.recordMIDI {
            do { midiRecorder = try MIDIRecorder(path: path, rate: Double(rate), toneNote: o.sound.toneNote, pitchMap: o.sound.pitchMap) } catch {
                touchRecorder?.close()
                output.stop()
                throw AppError.input("cannot create MIDI file '\(path)': \(error)")
            }
        }
        // Ports number their sources 0, 1, … in order; a script's events are queued ahead.
        let latencyLog = o.loadStats ? EventLatencyLog(skipped: Set(sources.indices.filter { sources[$0] is ScriptSource }.map(UInt32.init))) : nil
        var midiOut: MIDIOutPump?
        if let midiRings, o.audio.midiOut {
            midiOut = try MIDIOutPump(rings: midiRings, rate: Double(rate), toneNote: o.sound.toneNote, pitchMap: o.sound.pitchMap)
        }
        // Every source's touches, for the terminal pad to show (marked by source).
        let touchBoard = TouchBoard(pitchMap: o.sound.pitchMap)
        var observers: [ControlEventObserver] = (touchRecorder.map { [$0] } ?? []) + (midiRecorder.map { [$0] } ?? []) + (midiOut.map { [$0] } ?? [])
            + (latencyLog.map { [$0] } ?? [])
        observers.append(touchBoard)
        let ports = sources.map { _ in instrument.addPort(pitchMap: o.sound.pitchMap, rounding: o.sound.rounding, observers: observers) }
        for (source, port) in zip(sources, ports) {
            touchBoard.mark(source: port.source, as: Character(source.name.first.map { String($0).uppercased() } ?? "?"))
        }
        var ring: SPSCRing<Float>?
        var recorder: WAVRecorder?
        if let path = o.record {
            let r = SPSCRing<Float>(capacity: rate * 2 * 4)  // 4 s of stereo: the writer thread is never that late
            do { recorder = try WAVRecorder(path: path, rate: rate, channels: 2, format: RecordingFiles.format(path), ring: r) } catch {
                r.deallocate()
                output.stop()
                throw AppError.input("\(error)")
            }
            ring = r
            if output is PacedOutput { printErr("bendsynth: playing into '\(path)' only") }
        }

        // Play until q / Ctrl-C / hang-up (the terminal), SIGINT / SIGTERM / SIGHUP, or
        // until every source that does not end play by itself has ended (a script is done).
        let finished = DispatchSemaphore(value: 0)
        let remaining = Atomic<Int>(sources.filter { !$0.endsPlay }.count)
        let waitsForAll = !sources.contains { $0.endsPlay }
        // SIGHUP stops play like SIGTERM (StopSignals); with a terminal, its reader sees
        // the hang-up too (POLLHUP/EIO). Never SIG_IGN it here: that would discard it.
        StopSignals.wait { _ in finished.signal() }
        var context = InputContext(mixer: mixer, output: output, pitchMap: o.sound.pitchMap, rate: Double(rate), tuning: o.sound.tuning)
        context.touchBoard = touchBoard
        context.toneNote = Double(o.sound.toneNote)
        let midiIn = sources.compactMap { $0 as? JACKMIDIInSource }
        if !midiIn.isEmpty { context.lateEvents = { midiIn.reduce(0) { $0 + $1.lateEvents } } }
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
            recorder?.stop()
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
            printErr("bendsynth: \(output.failureDescription ?? "the output ended"); stopping")
            finished.signal()
        }
        do { try output.start(instrument.driver(record: ring)) } catch {
            throw abandon(AppError.runtime("cannot start the output: \(error)"))
        }
        files.started = true
        // `--round hold` moves resting touches between their sources' events.
        var ticker: RoundingTicker?
        if ports.contains(where: \.needsTicks) {
            do {
                ticker = try RoundingTicker(ports: ports)
                try ticker?.start()
            } catch {
                throw abandon(AppError.runtime("cannot start the rounding thread: \(error)"))
            }
        }
        do { try midiOut?.start(position: { mixer.position }, clock: instrument.clock) } catch {
            printErr("bendsynth: --midi-out: cannot start its thread: \(error)")
        }
        printErr("bendsynth: \(output.description); tone '\(tone.path)'; \(o.sound.voices) voices")
        if let note = output.realtimeNote { printErr("bendsynth: note: \(note)") }
        // Under systemd (Type=notify): READY once the first period has reached the device.
        ServiceNotifier.ready(status: "playing: \(output.description)", firstPeriodDone: { mixer.position > 0 },
                              frames: { mixer.position })
        touchRecorder?.flushEvery(0.25)  // written as the stream passes (also before Enter)
        var stopping = false
        if padWaitsForEnter {
            printErr("bendsynth: scan the code, then press Enter for the pad (the phone plays already)")
            stopping = EnterPrompt.waitForEnterOrStop(finished)
            if !stopping {
                do {
                    for (source, port) in zip(sources, ports) where source is TerminalSource { try startSource(source, port) }
                } catch {
                    printErr("bendsynth: \(error)")
                    stopping = true
                }
            }
        }
        if !stopping { finished.wait() }
        ServiceNotifier.stopping()

        // Stop cleanly: every source stops and its touches end, voices fade, the output
        // stops, files are finished, the terminal is restored.
        started.forEach { $0.stop() }
        ticker?.stop()
        instrument.fadeOut(rendering: { output.failureDescription == nil })
        midiOut?.finish(position: mixer.position, running: { output.failureDescription == nil })
        let failure = output.failureDescription
        output.stop()
        recorder?.stop()
        touchRecorder?.close()
        var midiFailure: String?
        do { try midiRecorder?.close() } catch { midiFailure = "cannot write MIDI file '\(o.recordMIDI ?? "")': \(error)" }
        let seconds = Double(mixer.position) / Double(rate)
        let dropped = instrument.dropped
        // Paced by the clock (no device): no xruns to speak of.
        printErr(String(format: "bendsynth: played %.1f s", seconds) + (output is PacedOutput ? "" : ", \(output.xruns) xrun" + (output.xruns == 1 ? "" : "s"))
                 + (dropped > 0 ? ", \(dropped) events dropped (queue full)" : ""))
        if let jack = output as? JACKOutput, jack.bufferSizeChanges > 0 {
            let times = jack.bufferSizeChanges == 1 ? "once" : "\(jack.bufferSizeChanges) times"
            printErr("bendsynth: the JACK server changed its period \(times) during the run: \(jack.periodFrames) frames at the start, \(jack.currentPeriodFrames) at the end"
                     + (jack.currentPeriodFrames > jack.periodFrames ? " (rendered in steps of \(jack.periodFrames))" : ""))
        }
        for case let m as JACKMIDIInSource in sources { printErr("bendsynth: \(m.summary)") }
        if let midiOut { printErr("bendsynth: \(midiOut.summary)") }
        if o.loadStats, let meter = output.loadMeter {
            printErr("bendsynth: \(meter.summary)")
            if let line = latencyLog?.summary(meter: meter, rate: rate, periodFrames: output.periodFrames) { printErr("bendsynth: \(line)") }
            if let t = meter.firstPeriodWallSeconds { printErr(String(format: "bendsynth: first period written at %.6f (wall clock, s)", t)) }
            if let counts = RenderThreadWatch.report() {
                printErr("bendsynth: render thread over the whole run: \(counts.allocations) heap allocations, \(counts.locks) mutex locks (render_watch.so)")
            }
        }
        if let recorder, let path = o.record {
            printErr("bendsynth: recorded '\(path)' (\(recorder.format)): \(recorder.framesWritten) frames" + (recorder.failure.map { " (\($0))" } ?? ""))
        }
        if let path = o.recordTouches, let touchRecorder {
            printErr(touchRecorder.linesWritten > 0 ? "bendsynth: touches written to '\(path)'" : "bendsynth: no touches played; '\(path)' not written")
        }
        if let path = o.recordMIDI, midiFailure == nil { printErr("bendsynth: MPE written to '\(path)'") }
        instrument.deallocate()
        ring?.deallocate()
        if let failure { throw AppError.runtime(failure) }
        if let midiFailure { throw AppError.runtime(midiFailure) }
        for case let terminal as TerminalSource in sources {
            if let e = terminal.failureDescription { throw AppError.runtime("terminal: \(e)") }
        }
    }
}

extension PlayCommand.Options {
    /// Files play may read that no option names: the default shared key (`--listen`
    /// without `--key-file`) and the web certificate and key made on first use (`--web`
    /// without `--web-cert`), made in this run when missing; the web page's files
    /// (`--web`). - Thread: setup.
    var defaultFilesRead: [(what: String, path: String)] {
        var files: [(what: String, path: String)] = []
        if listen != nil && keyFile == nil { files.append((what: "the shared key file", path: SharedKey.defaultPath)) }
        if web.listen != nil && web.certificate == nil {
            let folder = (SharedKey.defaultPath as NSString).deletingLastPathComponent
            files.append((what: "the web certificate", path: folder + "/" + WebCertificate.certificateName))
            files.append((what: "the web certificate's key", path: folder + "/" + WebCertificate.keyName))
        }
        if web.listen != nil, let assets = WebOptions.assetFolder {
            for name in WebAssets.files.keys.sorted() where access(assets + "/" + name, F_OK) == 0 {
                files.append((what: "the web page's file", path: assets + "/" + name))
            }
        }
        return files
    }
}
