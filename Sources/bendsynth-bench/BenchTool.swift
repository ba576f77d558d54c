// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem
import BendApp
import BendInstrument
import BendBench
import BendDBus
import BendEngine
import Foundation

/// `bendsynth-bench`: options → the benches (BendBench) → figures, printed on standard
/// output. Its own executable (built by `make bench`), so the shipped `bendsynth` links
/// no bench. By default the mixer (`MixerBench`): ns per voice-frame, the real-time
/// factor, and the voices one core could mix in real time; `--evdev`, `--peers`, `--osc`,
/// `--web` and `--soak` measure latencies or the soak instead, `--lv2` the LV2 plugin. Figures on a shared
/// machine move by 25 % or more between runs. Options and messages are the app's
/// (`OptionParser`, `AppError`): exit 2 for bad usage or input, 1 for a runtime failure.
enum BenchTool {
    static let specs: [OptionSpec] = [
        OptionSpec("voices", "n", value: "LIST", help: "comma-separated voice counts (default 16,64,256,1024)"),
        OptionSpec("period", value: "FRAMES", help: "period in frames (16…8192, default 256)"),
        OptionSpec("seconds", value: "S", help: "seconds of audio rendered per voice count (0.01…3600, default 4; --soak: 60)"),
        OptionSpec("rate", "r", value: "HZ", help: "rate in frames per second (default 48000)"),
        OptionSpec("interp", value: "MODE", help: "how voices read the tone: 'bandlimited' (alias-free band-limited tables, default), 'cubic' (4-point Hermite) or 'linear'"),
        OptionSpec("spread", help: "spread each period's moves over its frames (voice v at frame ⌊v·period/N⌋), as live input comes, instead of all at its first frame"),
        OptionSpec("json", help: "print the figures as JSON"),
        OptionSpec("evdev", value: "RECORDING", help: "instead: an evemu recording replayed in real time through a pipe and the live read loop (EvdevPollLoop) at --period: event read → the period that renders it (64 voices, the default tone; a .desc takes its .events file as an operand)"),
        OptionSpec("peers", value: "LIST", help: "instead: loopback peer touch latency with these peer counts (e.g. 1,8)"),
        OptionSpec("clock", help: "instead: the MIDI clock tempo estimator (MIDIClockEstimator) under 0, 1, 2 and 5 ms of jitter beside a 24-clock moving average: tempo error at 120 BPM, settling after a 120 → 90 step"),
        OptionSpec("osc", help: "instead: OSC datagram → frame latency (median, p99) at --period, 1000 datagrams on loopback"),
        OptionSpec("web", value: "DRIVER.py", help: "instead: touch dispatched in headless Chromium (by the pad driver, e.g. Tests/BendAppTests/web/pad_driver.py) → event in the engine's queue (median, p99), 600 touches on loopback by Chromium's touch emulation, then 600 by DevTools' Input.dispatchTouchEvent"),
        OptionSpec("sound-case", value: "CASE", help: "with --sounds: only this case, once (plain, loops, crossfade or filter): for callgrind"),
        OptionSpec("effects", help: "with the voices: every send effect on (reverb 0.3, delay 0.2, chorus 0.2 sends): their cost is the difference from a run without"),
        OptionSpec("sounds", help: "instead: your own sounds' cost beside the plain tone in one run — a sustain loop, a zone crossfade on every touch, the low-pass filter — at the first --voices count (touches), --period, --interp, --seconds per run (ns per touch-frame, median of 3 runs, the cases in turn)"),
        OptionSpec("lv2", value: "FOLDER", help: "instead: bendsynth.lv2 (FOLDER/bendsynth.lv2, e.g. .build/lv2) through liblilv at 1024 held notes (--voices N: the first of N) beside the same instrument without LV2, then beside Debian's samplv1 and synthv1 playing the same held notes: CPU per block, voices in real time (--period, default 64; --seconds per run, default 1)"),
        OptionSpec("soak", help: "instead: the soak — the instrument on the running JACK server (Benchmarks/soak.sh starts one) under 8 peers, an OSC flood and 8 web pads for --seconds (default 60): xruns, limits, memory, touches ended"),
        OptionSpec("help", "h", help: "show this help"),
    ]

    static let usage = """
    usage: bendsynth-bench [--voices LIST] [--period FRAMES] [--seconds S] [--interp bandlimited|cubic|linear] [--spread] [--json]
           bendsynth-bench --evdev RECORDING [--period FRAMES] | --peers LIST | --osc [--period FRAMES] | --clock | --web DRIVER.py | --soak [--seconds S]
           bendsynth-bench --sounds [--voices N] [--period FRAMES] [--interp MODE] [--seconds S]
           bendsynth-bench --lv2 FOLDER [--period FRAMES] [--seconds S]

    Measures the mixer on this machine: ns per voice-frame, the real-time factor, and
    the voices one core could mix in real time. --evdev, --peers, --osc and --web (a
    touch on the web pad in headless Chromium → the engine) measure latencies instead,
    --soak the instrument under load, --lv2 the LV2 plugin through liblilv. Figures on a shared machine move by 25 % or more
    between runs. 'make bench' runs them all and writes docs/FIGURES.md.

    """

    static var help: String { usage + OptionParser.help(specs) }

    /// Runs with the process arguments and exits: 0, 2 for bad usage or input, 1 for a
    /// runtime failure.
    static func main() -> Never {
        RTKitClient.installAsRealtimeFallback()  // as bendsynth does: the benches' real-time threads
        do {
            try run(Array(CommandLine.arguments.dropFirst()))
            exit(0)
        } catch {
            let e = AppError(error)
            printErr("bendsynth-bench: \(e)")
            if case .usage = e {
                printErr(usage.split(separator: "\n").prefix(2).joined(separator: "\n"))
                printErr("Try 'bendsynth-bench --help' for the options.")
            }
            exit(e.exitCode)
        }
    }

    static func run(_ arguments: [String]) throws {
        let (options, operands) = try OptionParser.parse(arguments, specs: specs)
        var counts = [16, 64, 256, 1024]
        var period = 256
        var seconds = 4.0
        var rate = 48_000
        var json = false
        var peerCounts: [Int]?
        var interpolation = Interpolation.bandLimited
        var osc = false
        var clock = false
        var spread = false
        var webDriver: String?
        var recording: String?
        var soak = false, secondsGiven = false, sounds = false, effects = false
        var soundCase: SoundBench.Case?
        var periodGiven = false
        var lv2Folder: String?
        var countsGiven = false
        for (name, value) in options {
            switch name {
            case "help":
                print(help)
                return
            case "voices": counts = try countList(value, option: name, of: "counts", in: 1...65_536); countsGiven = true
            case "period": period = try OptionValue.integer(value, option: name, in: 16...8192); periodGiven = true
            case "seconds": seconds = try OptionValue.number(value, option: name, in: 0.01...3600); secondsGiven = true
            case "rate": rate = try OptionValue.integer(value, option: name, in: 8_000...192_000)
            case "interp": interpolation = try OptionValues.interpolation(value, option: name)
            case "json": json = true
            case "evdev": recording = value
            case "peers": peerCounts = try countList(value, option: name, of: "peer counts", in: 1...8)
            case "spread": spread = true
            case "osc": osc = true
            case "clock": clock = true
            case "web": webDriver = value
            case "soak": soak = true
            case "sounds": sounds = true
            case "effects": effects = true
            case "sound-case":
                guard let c = SoundBench.Case(rawValue: value ?? "") else {
                    throw AppError.usage("option '--sound-case': expected plain, loops, crossfade or filter, got '\(value ?? "")'")
                }
                soundCase = c
            case "lv2": lv2Folder = value
            default: break
            }
        }
        if let recording {
            return try EvdevLatencyMode.run(recording: [recording] + operands, period: period, rate: rate)
        }
        guard operands.isEmpty else { throw AppError.usage("unexpected argument '\(operands[0])'") }
        if let lv2Folder {
            return try LV2Mode.run(folder: lv2Folder, voices: countsGiven ? min(counts[0], 1024) : 1024, seconds: secondsGiven ? seconds : 1, block: periodGiven ? period : 64, rate: rate)
        }
        if soak {
            return try bench { try SoakBench.run(seconds: secondsGiven ? seconds : 60, assets: try webAssets("--soak"), log: { printErr("bendsynth-bench: \($0)") }) }
        }
        if sounds, let soundCase {
            let ns = try bench { try SoundBench.runOne(soundCase, touches: counts.first ?? 256, period: period, seconds: seconds, rate: Double(rate),
                                                       interpolation: interpolation) }
            print(String(format: "%@: %.2f ns per touch-frame", soundCase.rawValue, ns))
            return
        }
        if sounds {
            let touches = counts.first ?? 256
            print(try bench { try SoundBench.run(touches: touches, period: period, seconds: secondsGiven ? seconds : 2, rate: Double(rate),
                                                 interpolation: interpolation) }, terminator: "")
            return
        }
        if let peerCounts { return try bench { try PeerBench.run(peerCounts, seconds: min(seconds, 10), json: json) } }
        if let webDriver {
            // Said here, not by python3 (its "can't open file", or a traceback).
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: webDriver, isDirectory: &isFolder), !isFolder.boolValue else {
                throw AppError.input("--web '\(webDriver)': " + (isFolder.boolValue ? "is a folder" : "no such file")
                                     + "; expected the pad driver, a Python script (Tests/BendAppTests/web/pad_driver.py in a checkout)")
            }
            return try WebLatencyMode.run(driver: webDriver, assets: try webAssets("--web"))
        }
        if clock { print(ClockJitterBench.run(), terminator: ""); return }
        if osc {
            let r = try bench { try OSCBench.measure(period: period, rate: rate, count: 1_000, log: { printErr("bendsynth-bench: \($0)") }) }
            print(String(format: "OSC datagram → frame it takes effect, %d-frame periods (%.2f ms): median %.2f ms, p99 %.2f ms, max %.2f ms over %d datagrams (loopback UDP, paced render, offline from StreamClock stamps)",
                         r.periodFrames, Double(r.periodFrames) * 1000 / Double(rate), r.median, r.p99, r.max, r.count))
            return
        }
        var results: [MixerBench.Result] = []
        for n in counts {
            let r = try bench { try MixerBench.measure(voices: n, period: period, seconds: seconds, rate: Double(rate), interpolation: interpolation, spread: spread,
                                                     effects: effects) }
            results.append(r)
            if !json {
                print(String(format: "%5d voices, %4d-frame periods, %@%@%@: %7.2f ns per voice-frame, %8.1f× real time, ≈%.0f voices per core in real time",
                             r.voices, r.periodFrames, r.interpolation, spread ? ", moves spread" : "", effects ? ", send effects on" : "", r.nsPerVoiceFrame, r.realTimeFactor, r.voicesPerCoreRealTime))
            }
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(results), as: UTF8.self))
        }
        if let bad = results.first(where: { $0.peak < 1e-4 || $0.activeVoices != $0.voices }) {
            throw AppError.runtime("\(bad.voices) voices rendered peak \(bad.peak) with \(bad.activeVoices) voices sounding; expected sound from all of them")
        }
    }

    /// A comma-separated list of integers in `range` (`what` names them in the error).
    static func countList(_ value: String?, option: String, of what: String, in range: ClosedRange<Int>) throws -> [Int] {
        let parts = (value ?? "").split(separator: ",", omittingEmptySubsequences: false).map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !parts.isEmpty, parts.allSatisfy({ $0 != nil && range.contains($0!) }) else {
            throw AppError.usage("option '--\(option)': expected a comma-separated list of \(what) in \(range.lowerBound)…\(range.upperBound), got '\(value ?? "")'")
        }
        return parts.map { $0! }
    }

    /// The first of the app's asset folders (`Installation`) holding `name`.
    /// - Throws: `AppError.runtime` naming every folder looked in.
    static func asset(_ name: String, for option: String, probe: String = "") throws -> String {
        let candidates = Installation.assetDirectories().map { $0 + "/" + name }
        guard let found = candidates.first(where: { FileManager.default.isReadableFile(atPath: $0 + probe) }) else {
            throw AppError.runtime("\(option): \(name) is not found (looked in: \(candidates.joined(separator: ", ")))")
        }
        return found
    }

    /// The web page's folder (Assets/web), for the web pads of `--web` and `--soak`.
    static func webAssets(_ option: String) throws -> String { try asset("web", for: option, probe: "/index.html") }

    /// Runs a bench, its `BenchError` as the app's: bad input exits 2, the rest 1.
    static func bench<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let e as BenchError {
            switch e {
            case .input(let m): throw AppError.input(m)
            case .setup(let m): throw AppError.runtime(m)
            }
        }
    }
}
