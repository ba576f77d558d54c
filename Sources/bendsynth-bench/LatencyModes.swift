// SPDX-License-Identifier: GPL-3.0-or-later
import BendApp
import BendAudio
import BendBench
import BendEngine
import BendEvdev
import Foundation

/// `bendsynth-bench --web DRIVER.py`: the web pad's touch latency, printed.
enum WebLatencyMode {
    /// Chromium's touch emulation first (the figure the goal is about), then DevTools'
    /// dispatchTouchEvent, whose frame wait a real touch does not have.
    static func run(driver: String, assets: String) throws {
        var flags = ""
        for input in WebBench.Input.allCases {
            let r = try BenchTool.bench { try WebBench.measure(driver: driver, assets: assets, count: 600, input: input) }
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
    }
}

/// `bendsynth-bench --evdev RECORDING`: an evemu recording's read → render latency
/// (`EvdevLatencyBench`), with play's defaults: 64 voices, the linear pitch map, the
/// default tone (Assets/synth_tone_mono.caf) read through its band-limited tables.
enum EvdevLatencyMode {
    static let voices = 64

    /// - Parameter recording: an .evemu file, or a .desc and its .events file.
    /// - Throws: `AppError.usage` for a wrong number of files, `.input` for a malformed
    ///   recording (naming the file and line) or one of no touch device. (`printErr`
    ///   escapes the device's name.)
    static func run(recording paths: [String], period: Int, rate: Int) throws {
        guard paths.count <= 2 else {
            throw AppError.usage("--evdev: expected one recording or a .desc and an .events file, got \(paths.count) files")
        }
        let recording: EvemuRecording
        do { recording = try EvemuRecording.load(paths: paths) } catch let e as EvemuRecording.ParseError {
            throw AppError.input("--evdev: \(e)")
        }
        if case .skipped(let why) = EvdevDeviceKind.classify(recording.device) {
            throw AppError.input("--evdev: \(paths[0]): device \"\(recording.device.name)\" is no touch device or accelerometer: \(why)")
        }
        let path = try BenchTool.asset("synth_tone_mono.caf", for: "--evdev")
        let table: ToneTable
        do {
            let samples = try ToneLoader.load(path: path, outputRate: Double(rate)).samples
            table = ToneTable(samples: samples, rate: Double(rate), levels: try ToneLevelMaker.make(samples, path: path))
        } catch {
            throw AppError.runtime("--evdev: the default tone: \(error)")
        }
        defer { table.deallocate() }
        try BenchTool.bench {
            try EvdevLatencyBench.run(recording, name: paths[0], mapping: EvdevMapping(), tone: table, rate: rate,
                                      voices: voices, pitchMap: .linear, period: period)
        }
    }
}
