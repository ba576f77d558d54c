// SPDX-License-Identifier: GPL-3.0-or-later
import BendAudio
import BendEngine
import BendSystem
import Foundation

/// `bendsynth-bench --sounds`: what a user's own sounds cost beside the plain tone, in one
/// run, the cases taking turns: the bench tone looping whole (plain); the same tone with
/// a sustain loop of its own (an attack, then a loop: the region's own path); a zone
/// crossfade in progress on every touch (two zones, every touch crossed at the first
/// period and never finished: two voices per touch, counted per touch); the low-pass
/// filter on every voice. Moves as `MixerBench`'s (pitch and gain every period). The
/// figure is ns per touch-frame, the median of the runs, and its ratio to plain.
public enum SoundBench {
    public enum Case: String, CaseIterable, Sendable {
        case plain, loops, crossfade, filter

        var title: String {
            switch self {
            case .plain: "plain tone, looped whole"
            case .loops: "sustain loop (attack, loop)"
            case .crossfade: "zone crossfade on every touch (2 voices each)"
            case .filter: "low-pass filter on every voice"
            }
        }
    }

    /// The tone each case plays, as `MixerBench.tone`; the loop case loops its last 0.75 s.
    static func sound(_ c: Case, rate: Double, interpolation: Interpolation) throws -> Sound {
        let samples = MixerBench.tone(rate: rate)
        let n = samples.count
        func region(_ layout: RegionMaker.Layout, _ placement: RegionPlacement = .anywhere) throws -> SoundRegion {
            let levels = interpolation == .bandLimited ? try RegionMaker.levels(layout, path: "bench tone") : nil
            return RegionMaker.region(layout, rate: rate, levels: levels).placed(placement)
        }
        switch c {
        case .plain, .filter:
            return Sound(region: try region(RegionMaker.layout(channels: [samples], loop: nil)))
        case .loops:
            return Sound(region: try region(RegionMaker.layout(channels: [samples], loop: (n / 4, n, .forward), mode: .loopContinuous)))
        case .crossfade:
            let whole = RegionMaker.layout(channels: [samples], loop: nil)
            func zone(_ low: Float, _ high: Float, below: Int32, above: Int32) -> RegionPlacement {
                RegionPlacement(ratioLow: low, ratioHigh: high, gainLow: 0, gainHigh: .infinity, stayLow: low, stayHigh: high, pitchScale: 1,
                                gain: 1, envelope: nil, sequenceLength: 1, sequencePosition: 0, below: below, above: above,
                                correlationBelow: 0.5, correlationAbove: 0.5, cycleFrames: rate / 440, cycleAnchor: 0)
            }
            return Sound(regions: [try region(whole, zone(0, 1, below: -1, above: 1)), try region(whole, zone(1, .infinity, below: 0, above: -1))])
        }
    }

    /// ns per touch-frame of one run of case `c`.
    static func measure(_ c: Case, sound: Sound, touches: Int, period: Int, seconds: Double, rate: Double,
                        interpolation: Interpolation) throws -> Double {
        var config = MixerConfiguration(rate: rate, maxPeriodFrames: period, voices: c == .crossfade ? 2 * touches : touches)
        config.eventsPerSource = max(4096, touches * 2)
        config.interpolation = interpolation
        if c == .filter { config.filter = FilterSettings() }
        if c == .crossfade { config.zoneCrossfadeSeconds = 3600 }  // never ends: every touch crossfades throughout
        let instrument = Instrument(configuration: config, sound: sound, live: false)
        defer { instrument.deallocate() }
        let mixer = instrument.mixer
        let (source, ring) = mixer.addSource()
        let driver = instrument.driver()
        let out = UnsafeMutablePointer<Float>.allocate(capacity: 2 * period)
        defer { out.deallocate() }
        let gain = 0.5 / Float(touches).squareRoot()
        for v in 0..<touches {
            // The crossfade case starts every touch in the lower zone and crosses it at the first move.
            let ratio = c == .crossfade ? 0.5 + 0.4 * Float(v % 97) / 96 : MixerBench.startRatio(v)
            ring.push(EngineEvent(frame: 0, kind: .down, key: TouchKey(source: source, touch: UInt32(v)), value: ratio, gain: gain))
        }
        let periods = max(2, Int(seconds * rate) / period)
        var busy: UInt64 = 0
        for p in 0..<periods {
            let t0 = MonotonicClock.nanos()
            let frame = mixer.position
            var v = 0
            while v < touches {
                let ratio = c == .crossfade && p == 0 ? 1 + MixerBench.moveRatio(v, period: p) / 2 : MixerBench.moveRatio(v, period: p)
                ring.push(EngineEvent(frame: frame, kind: .move, key: TouchKey(source: source, touch: UInt32(v)), value: ratio,
                                      gain: MixerBench.moveGain(v, period: p, voices: touches)))
                v += 1
            }
            _ = driver.period(frames: period, into: .float(out))
            busy += MonotonicClock.nanos() - t0
        }
        let expected = c == .crossfade ? 2 * touches : touches
        guard mixer.activeVoices == expected, mixer.peak > 1e-4 else {
            throw BenchError.setup("\(c.rawValue): \(mixer.activeVoices) voices sounding, peak \(mixer.peak); expected \(expected) sounding")
        }
        return Double(busy) / (Double(periods * period) * Double(touches))
    }

    /// One case once, ns per touch-frame (for callgrind's instruction counts: `make bench-icount`).
    public static func runOne(_ c: Case, touches: Int, period: Int, seconds: Double, rate: Double, interpolation: Interpolation) throws -> Double {
        let saved = FloatEnvironment.flushDenormals()
        defer { FloatEnvironment.restore(saved) }
        let s = try sound(c, rate: rate, interpolation: interpolation)
        defer { s.deallocateWithTables() }
        return try measure(c, sound: s, touches: touches, period: period, seconds: seconds, rate: rate, interpolation: interpolation)
    }

    /// The table: each case `runs` times, in turns, its median ns per touch-frame and its
    /// ratio to plain's.
    public static func run(touches: Int, period: Int, seconds: Double, rate: Double, interpolation: Interpolation, runs: Int = 3) throws -> String {
        let saved = FloatEnvironment.flushDenormals()
        defer { FloatEnvironment.restore(saved) }
        let sounds = try Case.allCases.map { try sound($0, rate: rate, interpolation: interpolation) }
        defer { sounds.forEach { $0.deallocateWithTables() } }
        var times = [[Double]](repeating: [], count: Case.allCases.count)
        for _ in 0..<runs {
            for (i, c) in Case.allCases.enumerated() {
                times[i].append(try measure(c, sound: sounds[i], touches: touches, period: period, seconds: seconds, rate: rate,
                                            interpolation: interpolation))
            }
        }
        let medians = times.map { $0.sorted()[$0.count / 2] }
        var table = "\(touches) touches, \(period)-frame periods, \(Int(rate)) Hz, \(interpolation == .bandLimited ? "bandlimited" : "\(interpolation)"); "
            + "pitch and gain moving every period; median of \(runs) runs of \(seconds) s, the cases in turn\n\n"
        table += "| case | ns per touch-frame | × plain |\n|---|---:|---:|\n"
        for (i, c) in Case.allCases.enumerated() {
            table += String(format: "| %@ | %.2f | %.2f |\n", c.title, medians[i], medians[i] / medians[0])
        }
        return table
    }
}
