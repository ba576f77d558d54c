// SPDX-License-Identifier: GPL-3.0-or-later
import BendApp
import BendBench
import Foundation

/// `bendsynth-bench --lv2 FOLDER`: bendsynth.lv2 (the bundle in FOLDER) through liblilv —
/// its cost beside the same instrument without LV2, then beside samplv1 and synthv1 —
/// printed as Markdown (docs/FIGURES.md's LV2 section).
enum LV2Mode {
    static func run(folder given: String, voices: Int, seconds: Double, block: Int, rate: Int) throws {
        // lilv takes absolute paths only (a relative one is an invalid URI to it).
        let folder = given.hasPrefix("/") ? given : FileManager.default.currentDirectoryPath + "/" + given
        let bundle = (folder as NSString).appendingPathComponent("bendsynth.lv2")
        guard FileManager.default.fileExists(atPath: bundle + "/manifest.ttl") else {
            throw AppError.input("--lv2 '\(given)': no bendsynth.lv2 bundle in it (expected FOLDER/bendsynth.lv2/manifest.ttl; `make lv2` builds .build/lv2)")
        }
        let lv2Path = folder + ":/usr/lib/lv2"
        let blockMicros = Double(block) * 1e6 / Double(rate)

        // First, while the heap is fresh: its growth is the mixers' (see mixerBytes).
        let small = try BenchTool.bench { try LV2CostBench.mixerBytes(voices: 64, block: block) }
        let large = try BenchTool.bench { try LV2CostBench.mixerBytes(voices: 1024, block: block) }
        let c = try BenchTool.bench { try LV2CostBench.measure(lv2Path: lv2Path, bundle: bundle, voices: voices, block: block, rate: Double(rate), seconds: seconds) }
        let mixer = try BenchTool.bench { try MixerBench.measure(voices: c.voices, period: block, seconds: seconds, rate: Double(rate), interpolation: .bandLimited) }
        guard c.pluginPeak > 1e-4, c.standalonePeak > 1e-4 else {
            throw AppError.runtime("silent output (plugin peak \(c.pluginPeak), standalone \(c.standalonePeak)); expected sound from both")
        }
        guard abs(c.levelRatio - 1) < 0.05 else {
            throw AppError.runtime(String(format: "the plugin's output level is %.3f× the standalone instrument's; expected the same voices sounding (1×)", c.levelRatio))
        }
        print(String(format: "bendsynth.lv2 through liblilv beside the same instrument without LV2: %d held notes (64 keys × 16 channels, pitch ratios 0.17…6.3), its default tone band-limited, the limiter on, %d Hz, %d-frame blocks; the audio thread's CPU time, median of %d runs of %.1f s each (timed after the band-limited tables, %.2f s, are made)",
                     c.voices, rate, c.block, c.runs, c.seconds, c.levelSeconds))
        print()
        print("| | ns per voice-frame | µs per block | of the block's \(String(format: "%.0f", blockMicros)) µs |")
        print("|---|---:|---:|---:|")
        for (name, ns) in [("bendsynth.lv2 through lilv (`lilv_instance_run`)", c.pluginNs),
                           ("the same instrument standalone (`InstrumentCore`, the render driver's period step)", c.standaloneNs)] {
            let micros = ns * Double(c.voices * c.block) / 1000
            print(String(format: "| %@ | %.2f | %.1f | %.1f %% |", name, ns, micros, 100 * micros / blockMicros))
        }
        print(String(format: "| plugin ÷ standalone | %.3f× | | |", c.pluginNs / c.standaloneNs))
        print(String(format: "| the mixer bench at %d voices (wall clock; every voice's pitch and gain moved each period) | %.2f | %.1f | |",
                     mixer.voices, mixer.nsPerVoiceFrame, mixer.nsPerVoiceFrame * Double(mixer.voices * block) / 1000))
        print()
        print(String(format: "Every voice sounds in both: with the limiter off at −40 dB, the plugin's output level is %.4f× the standalone's.", c.levelRatio))
        print(String(format: "The block whose MIDI strikes the %d notes (%d note-ons in one atom sequence): %.0f µs of CPU.", c.voices, c.voices, c.strikeMicros))
        print(String(format: "The mixer's memory (resident, 32 made): %.0f KB at 64 voices, %.0f KB at 1024 (%.0f bytes a voice): the plugin allocates 1024 and its voices port limits them.",
                     Double(small) / 1024, Double(large) / 1024, Double(large - small) / 960))
        print()

        let plugins = try BenchTool.bench { try LV2InstrumentsBench.measure(lv2Path: lv2Path, bundle: bundle, block: block, rate: Double(rate), seconds: seconds) }
        let counts = LV2InstrumentsBench.counts
        print(String(format: "Three LV2 instruments in the same lilv harness, the same held notes (64 different keys first, 38…101 nearest A4 first; then the same keys on more channels), %d Hz, %d-frame blocks: the audio thread's mean CPU µs per block, median of 3 runs of %.1f s (after 0.5 s of blocks)",
                     rate, block, seconds))
        print()
        print("| plugin | plays | " + counts.map { "\($0) held" }.joined(separator: " | ") + " | most sustained in real time | extrapolated voices per core |")
        print("|---|---|" + counts.map { _ in "---:" }.joined(separator: "|") + "|---:|---:|")
        for p in plugins {
            let cells = counts.map { n in p.micros[n].map { String(format: "%.1f", $0) } ?? "— (plays \(p.polyphony))" }
            let rt = LV2InstrumentsBench.realTime(p, blockMicros: blockMicros)
            let most = rt.measured >= p.polyphony ? "\(rt.measured) (all it plays)" : "\(rt.measured)"
            print("| \(p.name) | \(p.plays) | " + cells.joined(separator: " | ") + " | \(most) | " + String(format: "≈%.0f", rt.extrapolated) + " |")
        }
    }
}
