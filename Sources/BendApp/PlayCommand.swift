import BendAudio
import BendControl
import BendEngine
import BendInput
import BendSystem
import CALSA
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
        OptionSpec("record", value: "FILE.wav", help: "also write exactly what is played (float32 stereo WAV)"),
        OptionSpec("record-touches", value: "FILE.jsonl", help: "also write every touch and tilt as a touch script"),
    ] + SoundOptions.specs + [OptionSpec("help", "h", help: "show this help")]

    static let usage = """
    usage: bendsynth play [--device PCM] [--record FILE.wav] [options]

    Draws a pad in the terminal. Press and drag the mouse, or hold letter keys, to
    play; x bends the pitch, y sets the gain; ←/→ tilt the pan; q or Ctrl-C quits.
    When no ALSA device opens and --record is given, it plays into the file only.

    """

    struct Options {
        var sound = SoundOptions()
        var device = "default"
        var period = 256
        var periods = 3
        var record: String?
        var recordTouches: String?
    }

    static func run(_ arguments: [String]) throws {
        let (parsed, operands) = try parse(arguments, specs: specs)
        var o = Options()
        for (name, value) in parsed {
            if try o.sound.apply(name, value) { continue }
            switch name {
            case "help":
                print(usage + OptionParser.help(specs))
                return
            case "device": o.device = value ?? ""
            case "period": o.period = try OptionValues.integer(value, option: name, in: 16...8192)
            case "periods": o.periods = try OptionValues.integer(value, option: name, in: 2...16)
            case "record": o.record = value
            case "record-touches": o.recordTouches = value
            default: break
            }
        }
        guard operands.isEmpty else { throw AppError.usage("play: unexpected argument '\(operands[0])'") }
        guard isatty(STDIN_FILENO) == 1 else {
            throw AppError.usage("play: standard input is not a terminal; the pad is played from a terminal (run bendsynth in one)")
        }
        try play(o)
    }

    static func play(_ o: Options) throws {
        let output = try openOutput(o)
        let rate = output.rate
        let tone = try ToneSource.load(o.sound, rate: Double(rate))
        defer { tone.table.deallocate() }
        let mixer = Mixer(configuration: MixerConfiguration(rate: Double(rate), maxPeriodFrames: output.periodFrames, voices: o.sound.voices),
                          tone: tone.table)
        let clock = StreamClock(rate: Double(rate), periodFrames: output.periodFrames)

        var touchRecorder: TouchScriptRecorder?
        if let path = o.recordTouches {
            do { touchRecorder = try TouchScriptRecorder(path: path, rate: Double(rate)) } catch {
                throw AppError.input("cannot create touch script '\(path)': \(error.localizedDescription)")
            }
        }
        let port = ControlPort(mixer: mixer, pitchMap: o.sound.pitchMap, clock: clock, observers: touchRecorder.map { [$0] } ?? [])
        var ring: SampleRing?
        var recorder: WAVRecorder?
        if let path = o.record {
            let r = SampleRing(capacity: rate * 2 * 4)  // 4 s of stereo: the writer thread is never that late
            do { recorder = try WAVRecorder(path: path, rate: rate, channels: 2, ring: r) } catch {
                r.deallocate()
                throw AppError.input("\(error)")
            }
            ring = r
        }

        try output.start(mixer: mixer, clock: clock, record: ring)
        printErr("bendsynth: \(output.description); tone '\(tone.path)'; \(o.sound.voices) voices")
        if let note = output.realtimeNote { printErr("bendsynth: note: \(note)") }

        // Wait for q / Ctrl-C / hang-up (the reader) or SIGINT / SIGTERM (a signal source).
        let finished = DispatchSemaphore(value: 0)
        let finish = Mutex<TerminalInput.Finish?>(nil)
        signal(SIGHUP, SIG_IGN)  // a hang-up reaches the reader as POLLHUP/EIO instead
        var sources: [DispatchSourceSignal] = []
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler { finished.signal() }
            source.resume()
            sources.append(source)
        }
        let input = TerminalInput(pitchMap: o.sound.pitchMap, status: { s in
            s.peak = Double(mixer.peak)
            s.voices = mixer.activeVoices
            s.xruns = output.xruns
            s.device = output.failureDescription.map { "stopped: \($0)" } ?? output.description
        }, onEvent: { port.send($0) }, onFinish: { reason in
            finish.withLock { $0 = reason }
            finished.signal()
        })
        do { try input.start() } catch {
            output.stop()
            recorder?.stop()
            throw AppError.runtime("cannot use the terminal: \(error)")
        }
        finished.wait()

        // Stop cleanly: held touches end (the reader sends their ups), voices fade,
        // the output stops, files are finished, the terminal is restored.
        input.stop()
        sources.forEach { $0.cancel() }
        port.releaseAll()
        let fadeDeadline = MonotonicClock.nanos() + 200_000_000
        while mixer.activeVoices > 0 && MonotonicClock.nanos() < fadeDeadline && output.failureDescription == nil {
            usleep(2_000)  // a few periods: the release is 8 ms
        }
        let failure = output.failureDescription
        output.stop()
        recorder?.stop()
        touchRecorder?.close()
        let seconds = Double(mixer.position) / Double(rate)
        printErr(String(format: "bendsynth: played %.1f s, %d xruns", seconds, output.xruns)
                 + (port.dropped > 0 ? ", \(port.dropped) events dropped (queue full)" : ""))
        if let recorder, let path = o.record {
            printErr("bendsynth: recorded '\(path)': \(recorder.framesWritten) frames" + (recorder.failure.map { " (\($0))" } ?? ""))
        }
        if let path = o.recordTouches { printErr("bendsynth: touches written to '\(path)'") }
        mixer.deallocate()
        ring?.deallocate()
        clock.deallocate()
        if let failure { throw AppError.runtime(failure) }
        if case .failed(let e)? = finish.withLock({ $0 }) { throw AppError.runtime("terminal: \(e)") }
    }

    /// The ALSA PCM asked for; when it does not open: say so, list the PCMs that exist,
    /// and play into the recording alone if there is one.
    static func openOutput(_ o: Options) throws -> AudioOutput {
        calsa_silence_library_messages()
        do {
            return try ALSAOutput(device: o.device, rate: o.sound.rate, periodFrames: o.period, periods: o.periods)
        } catch {
            printErr("bendsynth: cannot open ALSA PCM '\(o.device)': \(error)")
            printErr(DevicesCommand.report())
            guard o.record != nil else {
                throw AppError.runtime("no sound output: pick a PCM that opens with --device, or add --record FILE.wav to play into a file")
            }
            printErr("bendsynth: playing into '\(o.record!)' only")
            return PacedOutput(rate: o.sound.rate, periodFrames: o.period)
        }
    }
}
