import BendBench
import BendEngine
import Foundation

/// `bendsynth bench`: options → the benches (BendBench) → figures. By default the mixer
/// (`MixerBench`): ns per voice-frame, the real-time factor, and the voices one core
/// could mix in real time; `--peers`, `--osc` and `--web` measure latencies instead. Figures on
/// a shared machine move by 25 % or more between runs.
enum BenchCommand {
    static let specs: [OptionSpec] = [
        OptionSpec("voices", "n", value: "LIST", help: "comma-separated voice counts (default 16,64,256,1024)"),
        OptionSpec("period", value: "FRAMES", help: "period in frames (16…8192, default 256)"),
        OptionSpec("seconds", value: "S", help: "seconds of audio rendered per voice count (0.01…3600, default 4; --soak: 60)"),
        OptionSpec("rate", "r", value: "HZ", help: "rate in frames per second (default 48000)"),
        OptionSpec("interp", value: "MODE", help: "how voices read the tone: 'bandlimited' (alias-free band-limited tables, default), 'cubic' (4-point Hermite) or 'linear'"),
        OptionSpec("spread", help: "spread each period's moves over its frames (voice v at frame ⌊v·period/N⌋), as live input comes, instead of all at its first frame"),
        OptionSpec("json", help: "print the figures as JSON"),
        OptionSpec("peers", value: "LIST", help: "instead: loopback peer touch latency with these peer counts (e.g. 1,8)"),
        OptionSpec("osc", help: "instead: OSC datagram → frame latency (median, p99) at --period, 1000 datagrams on loopback"),
        OptionSpec("web", value: "DRIVER.py", help: "instead: touch dispatched in headless Chromium (by the pad driver, e.g. Tests/BendAppTests/web/pad_driver.py) → event in the engine's queue (median, p99), 600 touches on loopback by Chromium's touch emulation, then 600 by DevTools' Input.dispatchTouchEvent"),
        OptionSpec("soak", help: "instead: the soak — the instrument on the running JACK server (Benchmarks/soak.sh starts one) under 8 peers, an OSC flood and 8 web pads for --seconds (default 60): xruns, limits, memory, touches ended"),
        OptionSpec("help", "h", help: "show this help"),
    ]

    static let usage = """
    usage: bendsynth bench [--voices LIST] [--period FRAMES] [--seconds S] [--interp bandlimited|cubic|linear] [--spread] [--json]
           bendsynth bench --peers LIST | --osc [--period FRAMES] | --web DRIVER.py | --soak [--seconds S]

    Measures the mixer on this machine: ns per voice-frame, the real-time factor, and
    the voices one core could mix in real time. --peers, --osc and --web (a touch on
    the web pad in headless Chromium → the engine) measure latencies instead. Figures on a shared machine move by 25 % or more between runs.

    """

    static func run(_ arguments: [String]) throws {
        let (options, operands) = try parse(arguments, specs: specs + ConfigFile.specs)
        guard operands.isEmpty else { throw AppError.usage("bench: unexpected argument '\(operands[0])'") }
        var counts = [16, 64, 256, 1024]
        var period = 256
        var seconds = 4.0
        var rate = 48_000
        var json = false
        var peerCounts: [Int]?
        var interpolation = Interpolation.bandLimited
        var osc = false
        var spread = false
        var webDriver: String?
        var soak = false, secondsGiven = false
        for (name, value) in options {
            switch name {
            case "help":
                print(CommandTable.help("bench"))
                return
            case "voices": counts = try countList(value, option: name, of: "counts", in: 1...65_536)
            case "period": period = try OptionValues.integer(value, option: name, in: 16...8192)
            case "seconds": seconds = try OptionValues.number(value, option: name, in: 0.01...3600); secondsGiven = true
            case "rate": rate = try OptionValues.integer(value, option: name, in: 8_000...192_000)
            case "interp": interpolation = try OptionValues.interpolation(value, option: name)
            case "json": json = true
            case "peers": peerCounts = try countList(value, option: name, of: "peer counts", in: 1...8)
            case "spread": spread = true
            case "osc": osc = true
            case "web": webDriver = value
            case "soak": soak = true
            default: break
            }
        }
        if soak {
            let candidates = assetCandidates("web")
            guard let assets = candidates.first(where: { FileManager.default.isReadableFile(atPath: $0 + "/index.html") }) else {
                throw AppError.runtime("bench --soak: the web page (Assets/web) is not found (looked in: \(candidates.joined(separator: ", ")))")
            }
            return try bench { try SoakBench.run(seconds: secondsGiven ? seconds : 60, assets: assets, log: { printErr("bendsynth: \($0)") }) }
        }
        if let peerCounts { return try bench { try PeerBench.run(peerCounts, seconds: min(seconds, 10), json: json) } }
        if let webDriver {
            let candidates = assetCandidates("web")
            guard let assets = candidates.first(where: { FileManager.default.isReadableFile(atPath: $0 + "/index.html") }) else {
                throw AppError.runtime("bench --web: the web page (Assets/web) is not found (looked in: \(candidates.joined(separator: ", ")))")
            }
            // The touch emulation first (the figure the goal is about), then DevTools'
            // dispatchTouchEvent, whose frame wait a real touch does not have.
            var flags = ""
            for input in WebBench.Input.allCases {
                let r = try bench { try WebBench.measure(driver: webDriver, assets: assets, count: 600, input: input) }
                flags = r.flags
                let how = input == .emulated
                    ? "Chromium's touch emulation (DevTools' device mode: the browser makes the touch and routes it as a touchscreen's)"
                    : "DevTools' Input.dispatchTouchEvent (waits for the page's next frame before routing the touch; a real touch does not)"
                print(String(format: "web touch dispatched in Chromium → event in the engine's queue: median %.2f ms, p99 %.2f ms, max %.2f ms over %d touches made by %@ (headless %@, loopback WebSocket, CLOCK_MONOTONIC at both ends; %@ for the instrument, the driver and Chromium)",
                             r.total.median, r.total.p99, r.total.max, r.count, how, r.chromium, r.scheduling))
                print(String(format: "  dispatch → the page's pointerdown (Chromium): median %.2f ms, p99 %.2f ms, max %.2f ms", r.browser.median, r.browser.p99, r.browser.max))
                print(String(format: "    dispatch → the touch event made in the browser (DevTools pipe): median %.2f ms, p99 %.2f ms", r.devtools.median, r.devtools.p99))
                print(String(format: "    the touch event → pointerdown (%@): median %.2f ms, p99 %.2f ms",
                             input == .emulated ? "Chromium routes the touch" : "DevTools waits for the page's next frame, then Chromium routes the touch",
                             r.routing.median, r.routing.p99))
                print(String(format: "  pointerdown → queue (page, WebSocket, server, decoder): median %.2f ms, p99 %.2f ms, max %.2f ms (page times: wall clocks, 0.1 ms)",
                             r.instrument.median, r.instrument.p99, r.instrument.max))
                if let stolen = r.stolen {
                    print(String(format: "  CPU stolen by the host during the run: %.2f s (both virtual CPUs; /proc/stat's steal)", stolen))
                }
                if input == .emulated {
                    let viewport = r.viewport.split(separator: " ")
                    print("  viewport: \(viewport.first.map(String.init) ?? "?") CSS px at \(viewport.dropFirst().first.map(String.init) ?? "?") device pixels per px (a phone's, by DevTools' Emulation.setDeviceMetricsOverride)")
                }
            }
            print("  Chromium flags: \(flags)")
            return
        }
        if osc {
            let r = try bench { try OSCBench.measure(period: period, rate: rate, count: 1_000, log: { printErr("bendsynth: \($0)") }) }
            print(String(format: "OSC datagram → frame it takes effect, %d-frame periods (%.2f ms): median %.2f ms, p99 %.2f ms, max %.2f ms over %d datagrams (loopback UDP, paced render, offline from StreamClock stamps)",
                         r.periodFrames, Double(r.periodFrames) * 1000 / Double(rate), r.median, r.p99, r.max, r.count))
            return
        }
        var results: [MixerBench.Result] = []
        for n in counts {
            let r = try bench { try MixerBench.measure(voices: n, period: period, seconds: seconds, rate: Double(rate), interpolation: interpolation, spread: spread) }
            results.append(r)
            if !json {
                print(String(format: "%5d voices, %4d-frame periods, %@%@: %7.2f ns per voice-frame, %8.1f× real time, ≈%.0f voices per core in real time",
                             r.voices, r.periodFrames, r.interpolation, spread ? ", moves spread" : "", r.nsPerVoiceFrame, r.realTimeFactor, r.voicesPerCoreRealTime))
            }
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(results), as: UTF8.self))
        }
        if let bad = results.first(where: { $0.peak < 1e-4 || $0.activeVoices != $0.voices }) {
            throw AppError.runtime("bench: \(bad.voices) voices rendered peak \(bad.peak) with \(bad.activeVoices) voices sounding; expected sound from all of them")
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
