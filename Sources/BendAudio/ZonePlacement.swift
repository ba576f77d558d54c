// SPDX-License-Identifier: GPL-3.0-or-later
import BendEngine
import BendSFZ
import Foundation

/// Where each region of an instrument plays among the others (`RegionPlacement`): its
/// keys and velocities as voice ratios and touch gains, its tuning and level, its
/// envelope, its round robin turn, its neighbours along the keys, and the phase its cycle
/// starts at, lined up with its neighbours', so that a voice bending from one zone into
/// the next crosses at the same point of the waveform (`ZoneCrossfade.swift`).
enum ZonePlacement {
    /// A region to place: what its SFZ text says, the key its sample sounds at, its tables.
    struct Region {
        var sfz: SFZRegion
        var keycenter: Double
        var layout: RegionMaker.Layout
    }

    /// Points per cycle of a region's cycle shape.
    static let shapePoints = 256
    /// Cycles averaged into a shape (fewer when the loop holds fewer).
    static let shapeCycles = 8

    static func place(_ regions: [Region], reference: Double, rate: Double, envelope defaults: InstrumentLoader.EnvelopeDefaults) -> [RegionPlacement] {
        let stretch = pow(2, InstrumentLoader.hysteresisCents / 1200)
        var placements = regions.map { r -> RegionPlacement in
            let s = r.sfz
            func ratio(_ key: Double) -> Float { Float(pow(2, (key - reference) / 12)) }
            let low: Float = s.lokey <= 0 ? 0 : ratio(Double(s.lokey) - 0.5)
            let high: Float = s.hikey >= 127 ? .infinity : ratio(Double(s.hikey) + 0.5)
            let envelope: Envelope? = s.attack == nil && s.decay == nil && s.sustain == nil && s.release == nil ? nil
                : Envelope(rate: rate, attackSeconds: s.attack ?? defaults.attack, decaySeconds: s.decay ?? defaults.decay,
                           sustain: s.sustain.map { $0 / 100 } ?? defaults.sustain, releaseSeconds: s.release ?? defaults.release)
            return RegionPlacement(
                ratioLow: low, ratioHigh: high,
                gainLow: s.lovel <= 1 ? 0 : Float((Double(s.lovel) - 0.5) / 127), gainHigh: s.hivel >= 127 ? .infinity : Float((Double(s.hivel) + 0.5) / 127),
                stayLow: low / Float(stretch), stayHigh: high * Float(stretch),
                pitchScale: Float(pow(2, (reference - r.keycenter + Double(s.transpose)) / 12 + s.tune / 1200)),
                gain: Float(pow(10, s.volume / 20)), envelope: envelope,
                sequenceLength: UInt32(s.sequenceLength), sequencePosition: UInt32(s.sequencePosition - 1),
                below: -1, above: -1, correlationBelow: 0, correlationAbove: 0, cycleFrames: 0, cycleAnchor: 0)
        }
        // Neighbours (for the crossfade's correlation and the cycles' alignment): the nearest
        // keys below and above among the regions whose velocities overlap — of the same
        // layer (velocities and round robin turn) when there is one that near.
        for (i, a) in regions.enumerated() {
            var below: Int?, above: Int?
            func better(_ j: Int, than k: Int?, _ key: (SFZRegion) -> Int, nearer: (Int, Int) -> Bool) -> Bool {
                guard let k else { return true }
                let (bj, bk) = (key(regions[j].sfz), key(regions[k].sfz))
                return nearer(bj, bk) || (bj == bk && sameLayer(a.sfz, regions[j].sfz) && !sameLayer(a.sfz, regions[k].sfz))
            }
            for (j, b) in regions.enumerated() where j != i && b.sfz.lovel <= a.sfz.hivel && a.sfz.lovel <= b.sfz.hivel {
                if b.sfz.hikey < a.sfz.lokey && better(j, than: below, { $0.hikey }, nearer: >) { below = j }
                if b.sfz.lokey > a.sfz.hikey && better(j, than: above, { $0.lokey }, nearer: <) { above = j }
            }
            placements[i].below = Int32(below ?? -1)
            placements[i].above = Int32(above ?? -1)
        }
        // Cycles: each region's shape, lined up along each layer from its lowest zone up.
        var shapes: [[Double]?] = regions.map { shape($0, rate: rate) }
        var anchors: [Double?] = shapes.indices.map { shapes[$0] == nil ? nil : basePosition(regions[$0]) }
        let order = regions.indices.sorted { regions[$0].sfz.lokey < regions[$1].sfz.lokey }
        for b in order {
            let a = Int(placements[b].below)
            guard a >= 0, let shapeA = shapes[a], let shapeB = shapes[b], anchors[a] != nil, let base = anchors[b] else { continue }
            let (lag, correlation) = bestLag(shapeA, shapeB)
            let period = cycleFrames(regions[b], rate: rate)
            anchors[b] = base + Double(lag) / Double(shapePoints) * period
            shapes[b] = (0..<shapePoints).map { shapeB[($0 + lag) % shapePoints] }
            placements[b].correlationBelow = Float(correlation)
            placements[a].correlationAbove = Float(correlation)
        }
        for i in regions.indices {
            if let anchor = anchors[i] {
                placements[i].cycleFrames = cycleFrames(regions[i], rate: rate)
                placements[i].cycleAnchor = anchor
            }
        }
        if ProcessInfo.processInfo.environment["BEND_DEBUG_ZONES"] != nil {
            for (i, p) in placements.enumerated() { print("zone \(i) below \(p.below) above \(p.above) P \(p.cycleFrames) anchor \(p.cycleAnchor) rho \(p.correlationBelow) \(p.correlationAbove) scale \(p.pitchScale)") }
        }
        return placements
    }

    static func sameLayer(_ a: SFZRegion, _ b: SFZRegion) -> Bool {
        a.lovel == b.lovel && a.hivel == b.hivel && a.sequenceLength == b.sequenceLength && a.sequencePosition == b.sequencePosition
    }

    /// The region's pitch period in its sound's frames at the output rate: the pitch it
    /// plays in tune at its keycenter (its `tune` taken as the sample's correction).
    static func cycleFrames(_ r: Region, rate: Double) -> Double {
        rate / (440 * pow(2, (r.keycenter - r.sfz.tune / 100 - 69) / 12))
    }

    /// Where its shape is taken: the loop's start, else a quarter into the sound.
    static func basePosition(_ r: Region) -> Double {
        r.layout.mode == .loopContinuous || r.layout.mode == .loopSustain ? Double(r.layout.loopStart) : Double(r.layout.sound[0].count / 4)
    }

    /// The region's cycle: `shapeCycles` cycles from `basePosition` (inside the loop when it
    /// loops) averaged into `shapePoints` points, its channels mixed; nil when the sound
    /// holds less than one cycle or its period is under 2 frames.
    static func shape(_ r: Region, rate: Double) -> [Double]? {
        let period = cycleFrames(r, rate: rate)
        let sound = r.layout.sound
        let n = sound[0].count
        let loops = r.layout.mode == .loopContinuous || r.layout.mode == .loopSustain
        let s = Double(r.layout.loopStart), e = Double(r.layout.loopEnd)
        let base = basePosition(r)
        guard period >= 2, period.isFinite, period < Double(n) else { return nil }
        let cycles = loops ? shapeCycles : min(shapeCycles, Int((Double(n) - base - 1) / period))
        guard cycles >= 1 else { return nil }
        func at(_ position: Double) -> Double {
            var p = position
            if loops && p >= e { p = s + (p - s).truncatingRemainder(dividingBy: e - s) }
            let i = min(Int(p), n - 2), t = p - Double(i)
            return sound.reduce(0.0) { $0 + Double($1[i]) * (1 - t) + Double($1[i + 1]) * t } / Double(sound.count)
        }
        return (0..<shapePoints).map { j in
            (0..<cycles).reduce(0.0) { $0 + at(base + (Double($1) + Double(j) / Double(shapePoints)) * period) } / Double(cycles)
        }
    }

    /// The lag (in points) that lines `b` up with `a` best — a[j] ≈ b[j + lag] — and the
    /// normalized correlation there (−1…1; 0 when either is silent).
    static func bestLag(_ a: [Double], _ b: [Double]) -> (Int, Double) {
        let n = a.count
        var best = 0, bestSum = -Double.infinity
        for lag in 0..<n {
            var sum = 0.0
            for j in 0..<n { sum += a[j] * b[(j + lag) % n] }
            if sum > bestSum { bestSum = sum; best = lag }
        }
        let energy = (a.reduce(0) { $0 + $1 * $1 } * b.reduce(0) { $0 + $1 * $1 }).squareRoot()
        return (best, energy > 0 ? bestSum / energy : 0)
    }
}
