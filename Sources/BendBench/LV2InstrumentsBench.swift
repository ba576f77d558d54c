// SPDX-License-Identifier: GPL-3.0-or-later
import BendLV2Host
import BendSystem
import Foundation

/// bendsynth.lv2 against Debian's samplv1 and synthv1 (LV2 instruments by rncbc) in the
/// same lilv harness (`LV2PluginHost`), each playing the same held notes
/// (`LV2Harness.note`) at 48 kHz in `block`-frame blocks: the audio thread's CPU time
/// per block (`LV2Harness.threadNanos` around lilv_instance_run), and how many voices
/// each sustains in real time.
///
/// Method: one instance of each plugin plays every cell in turn: a count of held notes
/// (1, 8, 32, 64, then 256 and 1024 for bendsynth) is struck at a block's first frame,
/// `warm` seconds of blocks are run (the attacks end; bendsynth's band-limited tables are
/// made the first time), `seconds` of blocks are timed, the notes are let go and blocks
/// run until their releases have ended (0.1 s of silence); the mean of the timed blocks is kept, the median
/// of `runs` runs reported. A count is sustained in real time when its mean CPU per block
/// is under the block's duration (1.33 ms for 64 frames at 48 kHz). samplv1 and synthv1
/// sound at most 64 voices (MAX_VOICES in their source); bendsynth up to its voices
/// port's 1024. The extrapolated count — 1 + (block − cost at 1 note) / cost per added
/// voice, that cost from 1 note to the most each plays — says what one core would carry
/// at the measured cost per voice.
/// (One instance each, not one per cell, never freed: samplv1's own thread crashes when
/// an instance is freed soon after it played.)
public enum LV2InstrumentsBench {
    public struct Plugin {
        public var name: String
        public var uri: String
        /// What it plays (its sound in this bench).
        public var plays: String
        /// Voices it sounds at most.
        public var polyphony: Int
        /// Mean CPU µs per block, by held-note count (`counts`); nil where not measured.
        public var micros: [Int: Double] = [:]
        /// Largest output sample at 64 held notes (it was not silent).
        public var peak: Float = 0
    }

    public static let counts = [1, 8, 32, 64, 256, 1024]

    public static func measure(lv2Path: String, bundle: String, block: Int = 64, rate: Double = 48_000, seconds: Double,
                               warm: Double = 0.5, runs: Int = 3) throws -> [Plugin] {
        let saved = FloatEnvironment.flushDenormals()
        defer { FloatEnvironment.restore(saved) }
        let folder = try LV2Harness.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var plugins = [
            Plugin(name: "bendsynth.lv2", uri: LV2Harness.bendsynth,
                   plays: "its default tone (A4, 1 s loop), band-limited, limiter on", polyphony: 1024),
            Plugin(name: "samplv1 0.9.29", uri: LV2Harness.samplv1,
                   plays: "the same tone as its sample (patch:Set of P101_SAMPLE_FILE), root key 69, looped; its other settings at their defaults",
                   polyphony: 64),
            Plugin(name: "synthv1 0.9.29", uri: LV2Harness.synthv1,
                   plays: "its default patch (two DCOs per voice, filter, envelopes; effects dry)", polyphony: 64),
        ]
        for i in plugins.indices {
            let h = try LV2Harness.instantiate(plugins[i].uri, lv2Path: lv2Path, bundle: bundle, rate: rate, block: block, stateFolder: folder)
            // Never freed (the process ends soon after): samplv1's and synthv1's own
            // thread may still hold work for an instance freed soon after it played
            // (one such run crashed in samplv1.so's QThread).
            LV2Harness.keepAlive(h)
            for count in counts where count <= plugins[i].polyphony {
                var means: [Double] = []
                for _ in 0..<runs {
                    let (mean, peak) = cell(h, notes: count, block: block, rate: rate, seconds: seconds, warm: warm)
                    means.append(mean)
                    if count == 64 { plugins[i].peak = max(plugins[i].peak, peak) }
                }
                plugins[i].micros[count] = LV2Harness.median(means) / 1000
            }
            if plugins[i].peak < 1e-4 {
                throw BenchError.setup("\(plugins[i].name) was silent with 64 held notes (peak \(plugins[i].peak))")
            }
        }
        return plugins
    }

    /// `notes` notes held: the mean CPU ns of the timed blocks, and the output's peak
    /// over them; then the notes are let go and their releases run out.
    static func cell(_ h: LV2PluginHost, notes: Int, block: Int, rate: Double, seconds: Double, warm: Double) -> (Double, Float) {
        defer {
            LV2Harness.release(notes, on: h)
            LV2Harness.runUntilSilent(h, block: block, rate: rate)
        }
        LV2Harness.hold(notes, on: h)
        for _ in 0..<max(1, Int(warm * rate) / block) { h.run(frames: block) }
        let blocks = max(1, Int(seconds * rate) / block)
        var peak: Float = 0
        let busy = LV2Harness.time(h) {
            for _ in 0..<blocks {
                h.run(frames: block)
                for i in 0..<block { peak = max(peak, abs(h.audioOutputs[0][i])) }
            }
        }
        return (Double(busy) / Double(blocks), peak)
    }

    /// The most held notes of `counts` whose mean block is under the block's duration
    /// (µs), and the extrapolated count one core would carry at its cost per voice.
    public static func realTime(_ p: Plugin, blockMicros: Double) -> (measured: Int, extrapolated: Double) {
        let measured = counts.filter { ($0 <= p.polyphony || $0 == counts.first) && (p.micros[$0] ?? .infinity) < blockMicros }.max() ?? 0
        let top = counts.filter { $0 <= p.polyphony }.max() ?? 1
        guard let one = p.micros[1], let most = p.micros[top], top > 1, most > one else { return (measured, 0) }
        let perVoice = (most - one) / Double(top - 1)
        return (measured, 1 + (blockMicros - one) / perVoice)
    }
}
