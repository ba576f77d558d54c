// SPDX-License-Identifier: GPL-3.0-or-later
import BendLV2Host
import Foundation
import Glibc

/// What the LV2 benches share: the plugins they load, the held notes they play, and the
/// clock they time `run()` with.
public enum LV2Harness {
    public static let bendsynth = "urn:bendsynth:lv2"
    public static let samplv1 = "http://samplv1.sourceforge.net/lv2"
    public static let synthv1 = "http://synthv1.sourceforge.net/lv2"
    /// samplv1's sample file parameter (patch:writable, atom:Path in its samplv1.ttl).
    static let samplv1SampleFile = "http://samplv1.sourceforge.net/lv2#P101_SAMPLE_FILE"
    /// The bundle's tone: bendsynth's default, A4 (MIDI note 69), a whole-file loop.
    static let toneFile = "synth_tone_mono.caf"

    /// The 64 keys the held notes take, nearest A4 first: 69, 70, 68, 71, 67, … (38…101:
    /// pitch ratios 0.17…6.3 to the tone's A4).
    static let keys: [Int] = {
        var keys = [69]
        var d = 1
        while keys.count < 64 {
            keys.append(69 + d)
            if keys.count < 64 { keys.append(69 - d) }
            d += 1
        }
        return keys
    }()

    /// Held note k (0-based): key `keys[k % 64]` on MIDI channel k / 64 (0…15), so the
    /// first 64 are 64 different keys on one channel (as samplv1 and synthv1 tell notes
    /// apart by key) and 1024 fill 16 channels.
    static func note(_ k: Int) -> (channel: UInt8, key: UInt8) { (UInt8(k / 64), UInt8(keys[k % 64])) }

    /// Velocity of every held note (bendsynth: gain 100/127).
    static let velocity: UInt8 = 100

    /// Pitch ratio of held note k to bendsynth's tone (12-TET from A4, no bend).
    static func ratio(_ k: Int) -> Float { Float(pow(2, Double(keys[k % 64] - 69) / 12)) }

    /// CPU time of the calling thread, nanoseconds (CLOCK_THREAD_CPUTIME_ID): what a
    /// block costs the audio thread, whatever else the machine runs meanwhile.
    static func threadNanos() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// CPU ns of the plugin's run() (and its worker's responses) in `body`.
    static func time(_ h: LV2PluginHost, _ body: () -> Void) -> UInt64 {
        var busy: UInt64 = 0, started: UInt64 = 0
        h.aroundRun = { on in
            if on { started = threadNanos() } else { busy += threadNanos() - started }
        }
        body()
        h.aroundRun = nil
        return busy
    }

    /// The plugin `uri` on `lv2Path` at `rate`, blocks of `block` frames, ready to play:
    /// bendsynth with its voices port at 1024; samplv1 with bendsynth's tone loaded as its
    /// sample (patch:Set through its worker, root key 69, looped whole); synthv1 as it is.
    static func instantiate(_ uri: String, lv2Path: String, bundle: String, rate: Double, block: Int, stateFolder: String) throws -> LV2PluginHost {
        let h: LV2PluginHost
        do {
            h = try LV2PluginHost(uri: uri, lv2Path: lv2Path, rate: rate, maxBlock: block, minBlock: block, stateFolder: stateFolder)
        } catch {
            throw BenchError.setup("\(error) (make bench-deps installs samplv1-lv2 and synthv1-lv2)")
        }
        switch uri {
        case bendsynth:
            h["voices"] = 1024
        case samplv1:
            h["GEN1_SAMPLE"] = 69
            h["GEN1_LOOP"] = 1
            h.setPath(samplv1SampleFile, to: bundle + "/" + toneFile, at: 0)
            h.run(frames: block)  // the patch:Set; its worker loads the file after the block
        default:
            break
        }
        return h
    }

    /// Holds notes 0..<count at the next block's first frame.
    static func hold(_ count: Int, on h: LV2PluginHost) {
        for k in 0..<count {
            let (channel, key) = note(k)
            h.midi([0x90 | channel, key, velocity], at: 0)
        }
    }

    /// Instances kept until the process ends (`keepAlive`). - Thread: the bench's one.
    nonisolated(unsafe) private static var kept: [LV2PluginHost] = []

    /// Keeps `h` from being freed while the process lives.
    static func keepAlive(_ h: LV2PluginHost) { kept.append(h) }

    /// Lets notes 0..<count go at the next block's first frame.
    static func release(_ count: Int, on h: LV2PluginHost) {
        for k in 0..<count {
            let (channel, key) = note(k)
            h.midi([0x80 | channel, key, 64], at: 0)
        }
    }

    /// Runs blocks until the output has been silent (below −100 dBFS) for 0.1 s, or 20 s
    /// have passed: released notes have ended.
    static func runUntilSilent(_ h: LV2PluginHost, block: Int, rate: Double) {
        var silent = 0, ran = 0
        while silent < Int(0.1 * rate), ran < Int(20 * rate) {
            h.run(frames: block)
            ran += block
            let loud = h.audioOutputs.prefix(2).contains { out in (0..<block).contains { abs(out[$0]) > 1e-5 } }
            silent = loud ? 0 : silent + block
        }
    }

    /// A folder of its own for the plugins' state files, removed by `remove`.
    static func temporaryFolder() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bendsynth-bench-lv2-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Median of `values` (the middle one; the upper middle of an even count).
    static func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
}
