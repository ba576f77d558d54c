// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendEngine
import BendInstrument
import BendLV2Host
import BendSystem
import Foundation

/// bendsynth.lv2's cost through liblilv beside the same instrument without LV2, in one
/// process and one run: what the plugin's shell (its atom sequences, control ports,
/// MIDI interpreter, worker and clock) adds to the engine.
///
/// Both play `voices` held notes (`LV2Harness.note`: 64 keys × 16 channels at 1024) at
/// `block`-frame blocks: the plugin through `LV2PluginHost` (lilv_instance_run), its
/// voices port at 1024; standalone, `InstrumentCore` — the instrument the plugin makes
/// at instantiate: the bundle's tone, band-limited, the limiter on — with the same notes'
/// pitches and gains pushed as engine events, each block through the render driver's
/// period step into planar buffers as the plugin's run does. The band-limited tables are
/// made on a thread at instantiate in both: the timing starts after they are installed
/// (standalone: `ToneTable.hasLevels`; the plugin cannot be asked, so it warms up for
/// three times as long as the standalone's took, and 0.5 s at least). One instance of
/// each plays throughout; their timed runs alternate. Time: the audio thread's CPU time
/// (`LV2Harness.threadNanos`) around each block's run or period.
public enum LV2CostBench {
    public struct Result {
        public var voices: Int
        public var block: Int
        /// Audio rendered per run, seconds; runs of each.
        public var seconds: Double
        public var runs: Int
        /// ns of CPU per voice-frame, the median of the runs.
        public var pluginNs: Double
        public var standaloneNs: Double
        /// Seconds the band-limited tables took (standalone).
        public var levelSeconds: Double
        /// Largest output sample of each (neither was silent).
        public var pluginPeak: Float
        public var standalonePeak: Float
        /// The plugin's output level over the standalone's, both with the limiter off at
        /// −40 dB (a linear sum of the same voices: 1 when the plugin sounds all of them).
        public var levelRatio: Double
        /// CPU µs of the plugin's block whose MIDI strikes every note.
        public var strikeMicros: Double
    }

    /// What a timed run gives: ns of CPU per voice-frame, the output's peak and mean
    /// square (left).
    struct Run {
        var ns: Double
        var peak: Float
        var meanSquare: Double
    }

    /// - Parameters:
    ///   - lv2Path: where lilv finds bendsynth.lv2 (and the LV2 specs).
    ///   - bundle: the bendsynth.lv2 folder (its tone, for the standalone instrument).
    public static func measure(lv2Path: String, bundle: String, voices: Int = 1024, block: Int = 64, rate: Double = 48_000,
                               seconds: Double, runs: Int = 3) throws -> Result {
        let saved = FloatEnvironment.flushDenormals()  // as on the render thread (the plugin sets nothing)
        defer { FloatEnvironment.restore(saved) }
        let folder = try LV2Harness.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let standalone = try Standalone(bundle: bundle, voices: voices, block: block, rate: rate)
        defer { standalone.deallocate() }
        let levelSeconds = try standalone.waitForLevels()
        let h = try LV2Harness.instantiate(LV2Harness.bendsynth, lv2Path: lv2Path, bundle: bundle, rate: rate, block: block, stateFolder: folder)
        LV2Harness.hold(voices, on: h)
        let strike = LV2Harness.time(h) { h.run(frames: block) }
        let warmEnd = MonotonicClock.nanos() + UInt64(max(0.5, 3 * levelSeconds) * 1e9)
        while MonotonicClock.nanos() < warmEnd { h.run(frames: block) }
        var plugin: [Run] = [], alone: [Run] = []
        for _ in 0..<runs {
            alone.append(standalone.run(seconds: seconds))
            plugin.append(run(h, voices: voices, block: block, rate: rate, seconds: seconds))
        }
        let sounding = standalone.core.meters.voices
        guard sounding == voices else { throw BenchError.setup("standalone: \(sounding) voices sounding, \(voices) expected") }
        // The check: every voice sounds in the plugin as in the standalone instrument,
        // compared where the mix is linear (the limiter off, −40 dB), the gains' glides over.
        h["limiter"] = 0
        h["gain"] = -40
        standalone.quiet()
        _ = run(h, voices: voices, block: block, rate: rate, seconds: 0.1)
        _ = standalone.run(seconds: 0.1)
        var quietPlugin = run(h, voices: voices, block: block, rate: rate, seconds: 0.5), quietAlone = standalone.run(seconds: 0.5)
        // A loaded machine may still be making the plugin's band-limited tables (its voices
        // read the cubic rows till then): warm it 2 s more and measure again, twice at most.
        for _ in 0..<2 where abs((quietPlugin.meanSquare / quietAlone.meanSquare).squareRoot() - 1) >= 0.05 {
            let end = MonotonicClock.nanos() + 2_000_000_000
            while MonotonicClock.nanos() < end { h.run(frames: block) }
            _ = standalone.run(seconds: 0.1)
            quietPlugin = run(h, voices: voices, block: block, rate: rate, seconds: 0.5)
            quietAlone = standalone.run(seconds: 0.5)
        }
        return Result(voices: voices, block: block, seconds: seconds, runs: runs, pluginNs: LV2Harness.median(plugin.map(\.ns)),
                      standaloneNs: LV2Harness.median(alone.map(\.ns)), levelSeconds: levelSeconds,
                      pluginPeak: plugin.map(\.peak).max() ?? 0, standalonePeak: alone.map(\.peak).max() ?? 0,
                      levelRatio: (quietPlugin.meanSquare / quietAlone.meanSquare).squareRoot(), strikeMicros: Double(strike) / 1000)
    }

    /// `seconds` of the plugin's blocks, timed.
    static func run(_ h: LV2PluginHost, voices: Int, block: Int, rate: Double, seconds: Double) -> Run {
        let blocks = max(1, Int(seconds * rate) / block)
        var peak: Float = 0, sum = 0.0
        let busy = LV2Harness.time(h) {
            for _ in 0..<blocks {
                h.run(frames: block)
                for i in 0..<block {
                    let x = h.audioOutputs[0][i]
                    peak = max(peak, abs(x))
                    sum += Double(x * x)
                }
            }
        }
        return Run(ns: Double(busy) / Double(blocks * block * voices), peak: peak, meanSquare: sum / Double(blocks * block))
    }

    /// The same instrument without LV2 — the instrument core and its host face, as the
    /// plugin makes them — holding the same notes (the same MIDI, through the core's host
    /// MIDI port), rendered as the plugin's run renders.
    final class Standalone {
        let core: InstrumentCore
        let host: HostRender
        let voices: Int, block: Int, rate: Double
        let left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>

        init(bundle: String, voices: Int, block: Int, rate: Double) throws {
            var sound = SoundSettings()
            sound.voices = 1024  // as the plugin makes it (its voices port limits them)
            do {
                core = try InstrumentCore.load(sound: sound, rate: rate, periodFrames: block, output: OutputLine("the bench"), assets: [bundle],
                                               log: { _ in }, show: { _ in })
            } catch {
                throw BenchError.setup("the standalone instrument: \(error)")
            }
            host = core.hostRender
            (self.voices, self.block, self.rate) = (voices, block, rate)
            left = .allocate(capacity: block)
            right = .allocate(capacity: block)
            for k in 0..<voices {
                let (channel, key) = LV2Harness.note(k)
                let bytes: [UInt8] = [0x90 | channel, key, LV2Harness.velocity]
                _ = bytes.withUnsafeBytes { host.midi($0, atFrame: 0) }
            }
        }

        func deallocate() {
            core.deallocate()
            left.deallocate(); right.deallocate()
        }

        func period() { host.render(frames: block, left: left, right: right) }

        /// Renders until the band-limited tables are installed, then 0.2 s more; their
        /// seconds.
        func waitForLevels() throws -> Double {
            let t0 = MonotonicClock.nanos()
            while !core.tone.table.hasLevels {
                period()
                if MonotonicClock.nanos() - t0 > 120_000_000_000 { throw BenchError.setup("the band-limited tables took over 120 s") }
            }
            let seconds = Double(MonotonicClock.nanos() - t0) * 1e-9
            for _ in 0..<max(1, Int(0.2 * rate) / block) { period() }
            return seconds
        }

        /// The limiter off and the gain at −40 dB, as the plugin's ports set them.
        func quiet() {
            host.setLimiting(false)
            host.setMasterGain(0.01)
        }

        /// `seconds` of periods, timed.
        func run(seconds: Double) -> Run {
            let blocks = max(1, Int(seconds * rate) / block)
            var busy: UInt64 = 0
            var peak: Float = 0, sum = 0.0
            for _ in 0..<blocks {
                let started = LV2Harness.threadNanos()
                period()
                busy += LV2Harness.threadNanos() - started
                for i in 0..<block {
                    peak = max(peak, abs(left[i]))
                    sum += Double(left[i] * left[i])
                }
            }
            return Run(ns: Double(busy) / Double(blocks * block * voices), peak: peak, meanSquare: sum / Double(blocks * block))
        }
    }

    /// Memory a mixer takes at `voices` voices, bytes: the growth of the process's
    /// resident memory (/proc/self/statm) when 32 of them are made (every array is
    /// initialised, so its pages are touched), over 32. Made on a fresh heap (before
    /// anything is freed) it is what they take.
    public static func mixerBytes(voices: Int, block: Int = 64, rate: Double = 48_000) throws -> Int {
        let tone = ToneTable(samples: [Float](repeating: 0, count: 4800), rate: rate)
        defer { tone.deallocate() }
        let before = try residentBytes()
        let mixers = (0..<32).map { _ in Mixer(configuration: MixerConfiguration(rate: rate, maxPeriodFrames: block, voices: voices), tone: tone) }
        let after = try residentBytes()
        mixers.forEach { $0.deallocate() }
        return (after - before) / mixers.count
    }

    /// The process's resident memory, bytes (/proc/self/statm's second field, in pages).
    static func residentBytes() throws -> Int {
        let statm = try String(contentsOfFile: "/proc/self/statm", encoding: .utf8).split(separator: " ")
        guard statm.count > 1, let pages = Int(statm[1]) else { throw BenchError.setup("/proc/self/statm: no resident page count") }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}

