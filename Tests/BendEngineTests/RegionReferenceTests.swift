// SPDX-License-Identifier: GPL-3.0-or-later
import XCTest
import BendEngine
import BendTestSupport

/// Sound regions (`SoundRegion`: a prefix and a period, a release table, stereo, pan,
/// the loop modes) against the reference mixer: random sounds, loops and voice sets,
/// the largest difference of any output sample below −100 dBFS.
extension MixerReferenceTests {
    /// A region of sound `x` (1 or 2 channels) laid out as `SoundRegion` documents it
    /// (without the loader's junction), with its reference twin; `levels` makes
    /// band-limited test levels for its tables.
    static func testRegion(_ x: [[Float]], loop: (Int, Int), direction: SoundRegion.Direction, mode: SoundRegion.LoopMode,
                           pan: Float, levels: Bool, releaseFades: Bool = true) -> (SoundRegion, ReferenceMixer.Region, ToneLevels?) {
        let n = x[0].count, (s, e) = loop
        let silence = [Float](repeating: 0, count: 1025)
        var held = x, prefix = 0, heldEnd: Int?
        switch mode {
        case .noLoop, .oneShot:
            held = x.map { $0 + silence }
            prefix = n + 1024
            heldEnd = n + 1024
        case .loopContinuous, .loopSustain:
            switch direction {
            case .forward:
                held = x.map { Array($0[0..<e]) }
                prefix = s
            case .backward:
                held = x.map { Array($0[0..<(e - 1)]) + Array($0[s..<e].reversed()) }
                prefix = e - 1
            case .alternating:
                held = x.map { Array($0[0..<(e - 1)]) + Array($0[(s + 1)..<e].reversed()) }
                prefix = s
            }
        }
        func tableLevels(_ signal: [[Float]], prefix: Int) -> ToneLevels? {
            guard levels else { return nil }
            var l = regionLevels(signal[0], prefix: prefix)
            if signal.count == 2 { l.right = regionLevels(signal[1], prefix: prefix).rows }
            return l
        }
        let heldLevels = tableLevels(held, prefix: prefix)
        let heldTable = ToneTable(channels: held, prefixFrames: prefix, rate: 48_000, levels: heldLevels)
        var refRegion = ReferenceMixer.Region(held: .init(channels: held, prefix: prefix, levels: heldLevels), mode: mode, direction: direction,
                                              loopStart: s, loopEnd: e, heldEnd: heldEnd, pan: Double(pan), releaseFades: releaseFades)
        guard mode == .loopSustain else {
            return (SoundRegion(held: heldTable, mode: mode, direction: direction, loopStart: mode == .noLoop || mode == .oneShot ? 0 : s,
                                loopEnd: mode == .noLoop || mode == .oneShot ? n : e, heldEnd: heldEnd, pan: pan, releaseFades: releaseFades),
                    refRegion, heldLevels)
        }
        let origin = max(s - 4, 0)
        let release = x.map { Array($0[origin...]) + silence }
        let releasePrefix = n - origin + 1024
        let releaseLevels = tableLevels(release, prefix: releasePrefix)
        refRegion.release = .init(channels: release, prefix: releasePrefix, levels: releaseLevels)
        refRegion.releaseOrigin = origin
        refRegion.releaseEnd = releasePrefix
        let region = SoundRegion(held: heldTable, release: ToneTable(channels: release, prefixFrames: releasePrefix, rate: 48_000, levels: releaseLevels),
                                 mode: mode, direction: direction, loopStart: s, loopEnd: e, releaseOrigin: origin, releaseEnd: releasePrefix,
                                 pan: pan, releaseFades: releaseFades)
        return (region, refRegion, heldLevels)
    }

    /// Band-limited test levels of a table's signal (prefix, then a period): each level
    /// distinct (scaled by 1 − 0.07k, with level-dependent c2 and c3 terms), every row
    /// made from the held signal around its own frame only, so a release table's rows
    /// are its held table's at the same sound frame, and silence has rows of 0.
    static func regionLevels(_ signal: [Float], prefix: Int) -> ToneLevels {
        let n = signal.count, over = ToneLevels.oversampling
        func held(_ i: Int) -> Float { signal[i < n ? i : prefix + (i - prefix) % (n - prefix)] }
        var rows: [[Float]] = [], aliasFree: [Double] = [], starts: [Double] = []
        for k in 0...12 {
            rows.append((0..<(over * n)).flatMap { i -> [Float] in
                let a = held(i / over), b = held(i / over + 1), t = Float(i % over) / Float(over)
                let scale = 1 - 0.07 * Float(k)
                return [(a + (b - a) * t) * scale, (b - a) / Float(over) * scale, 0.03 * Float(k % 4) * (b - a), -0.02 * Float(k % 5) * a]
            })
            aliasFree.append(pow(2, Double(k) / 4))
            if k > 0 { starts.append(aliasFree[k - 1] * 0.97) }
        }
        return ToneLevels(rows: rows, aliasFreeRatio: aliasFree, crossfadeStart: starts)
    }

    /// A random sound of `frames` frames per channel: smooth noise (a random walk,
    /// low-passed), so the cubic reads are far from the rounding floor.
    static func randomSound(channels: Int, frames: Int, using rng: inout SplitMix) -> [[Float]] {
        (0..<channels).map { _ in
            var y: Float = 0, v: Float = 0
            return (0..<frames).map { _ in
                v = 0.9 * v + Float.random(in: -0.05...0.05, using: &rng)
                y = 0.98 * y + v
                return max(-1, min(1, y))
            }
        }
    }

    func testRegionsMatchReference() {
        var rng = SplitMix(seed: 0x5E61_0027)
        let modes: [SoundRegion.LoopMode] = [.loopSustain, .loopContinuous, .noLoop, .oneShot]
        let directions: [SoundRegion.Direction] = [.forward, .backward, .alternating]
        for trial in 0..<24 {
            let interpolation: Interpolation = [.cubic, .linear, .bandLimited][trial % 3]
            let channels = trial % 4 < 2 ? 1 : 2
            let n = Int.random(in: 600...5000, using: &rng)
            let s = Int.random(in: 0...(n / 2), using: &rng), e = Int.random(in: (s + 40)...n, using: &rng)
            let mode = modes[(trial / 3) % 4], direction = directions[(trial + trial / 3) % 3]
            let pan: Float = trial % 5 == 0 ? 0 : Float.random(in: -1...1, using: &rng)
            let fades = trial % 7 != 3
            let sound = Self.randomSound(channels: channels, frames: n, using: &rng)
            let (region, refRegion, levels) = Self.testRegion(sound, loop: (s, e), direction: direction, mode: mode, pan: pan,
                                                              levels: interpolation == .bandLimited, releaseFades: fades)
            let voices = Int.random(in: 1...16, using: &rng)
            let period = [64, 256, 100, 61][trial % 4]
            let events = randomEvents(voices: voices, frames: 24_000, using: &rng)
            let h = RenderHarness(voices: voices, period: period, region: region) { $0.interpolation = interpolation }
            defer { h.free() }
            let fast = h.render(frames: 24_000, events: events)
            var configuration = MixerConfiguration(rate: 48_000, maxPeriodFrames: period, voices: voices)
            configuration.interpolation = interpolation
            var reference = ReferenceMixer(region: refRegion, configuration: configuration, levels: levels)
            let slow = reference.render(frames: 24_000, events: events)
            var worst = 0.0, worstAt = 0, peak = 0.0
            for i in 0..<fast.count {
                let d = abs(Double(fast[i]) - slow[i])
                if d > worst { worst = d; worstAt = i }
                peak = max(peak, abs(slow[i]))
            }
            let name = "trial \(trial) (\(interpolation), \(channels) ch, \(mode), \(direction), loop \(s)..<\(e) of \(n), pan \(pan), fades \(fades))"
            print(String(format: "%@: peak %.3f, largest difference %.1f dBFS", name, peak, Measure.dB(worst)))
            XCTAssertGreaterThan(peak, 0.001, "\(name): the voices sounded")
            XCTAssertLessThan(Measure.dB(worst), -100, "\(name): largest difference \(worst) at frame \(worstAt / 2)")
        }
    }

    /// Voices through the low-pass filter against the reference (per-sample filter in
    /// Double): each touch's timbre set with its down (random, so every voice has a cutoff
    /// of its own, constant: the engine's per-block coefficients then equal the
    /// reference's per-sample ones), mono, stereo and panned regions, Q 0.7 and 4.
    func testFilteredVoicesMatchReference() {
        var rng = SplitMix(seed: 0xF117_0027)
        for trial in 0..<6 {
            let channels = trial % 3 == 1 ? 2 : 1
            let pan: Float = trial % 3 == 2 ? 0.4 : 0
            let sound = Self.randomSound(channels: channels, frames: 3000, using: &rng)
            let (region, refRegion, _) = Self.testRegion(sound, loop: (1000, 2500), direction: .forward, mode: .loopContinuous, pan: pan, levels: false)
            let voices = Int.random(in: 2...12, using: &rng), period = [64, 100, 256][trial % 3]
            var events = randomEvents(voices: voices, frames: 24_000, using: &rng)
            for e in events where e.kind == .down {
                events.append(EngineEvent(frame: e.frame, kind: .timbre, key: e.key, value: Float.random(in: 0.2...1, using: &rng)))
            }
            events = events.enumerated().sorted { ($0.element.frame, $0.offset) < ($1.element.frame, $1.offset) }.map(\.element)
            var configuration = MixerConfiguration(rate: 48_000, maxPeriodFrames: period, voices: voices)
            configuration.interpolation = .cubic
            configuration.filter = FilterSettings(q: trial < 3 ? 0.7 : 4)
            let h = RenderHarness(voices: voices, period: period, region: region) { $0 = configuration }
            defer { h.free() }
            let fast = h.render(frames: 24_000, events: events)
            var reference = ReferenceMixer(region: refRegion, configuration: configuration, levels: nil)
            let slow = reference.render(frames: 24_000, events: events)
            var worst = 0.0, peak = 0.0
            for i in 0..<fast.count { worst = max(worst, abs(Double(fast[i]) - slow[i])); peak = max(peak, abs(slow[i])) }
            print(String(format: "filter trial %d (%d ch, pan %.1f, period %d): peak %.3f, largest difference %.1f dBFS",
                         trial, channels, pan, period, peak, Measure.dB(worst)))
            XCTAssertGreaterThan(peak, 0.001)
            XCTAssertLessThan(Measure.dB(worst), -100, "trial \(trial)")
        }
    }
}
