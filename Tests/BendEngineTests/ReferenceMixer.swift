// SPDX-License-Identifier: GPL-3.0-or-later
import BendEngine
import Foundation

/// A plain, frame-by-frame implementation of the mixer's documented algorithm (see
/// `Mixer`, `VoiceBank`, `MixerKernel.swift`, `SoundRegion`) in Double precision: no
/// SIMD, no blocks, no repeated loop, events applied at their exact frames. Polyphony
/// is unlimited (the comparison tests never steal). Integer parts (fixed-point phase and
/// increments) are the same integers as the mixer's, so the two differ only by float
/// rounding.
struct ReferenceMixer {
    /// A table as the documentation defines it: a prefix, then a period for ever, per
    /// channel; held(−1) is the period's last frame when there is no prefix, else 0.
    struct Table {
        var channels: [[Float]]
        var prefix: Int
        /// `Interpolation.bandLimited`: per channel, each level's rows (c0…c3 per table
        /// frame, the prefix's then one period's) as the engine holds them, 16-bit steps
        /// of one scale (`ToneLevels.quantized`).
        var levels: [[[Double]]] = []

        init(channels: [[Float]], prefix: Int, levels: ToneLevels?) {
            self.channels = channels
            self.prefix = prefix
            if let levels {
                let (scale, rows) = levels.quantized()
                let steps: [[[Int16]]] = [rows] + (levels.quantizedRight(scale: scale).map { [$0] } ?? [])
                self.levels = steps.map { $0.map { $0.map { Double($0) * Double(scale) } } }
            }
        }

        var length: Int { channels[0].count }

        /// Frame i (≥ −1) of channel c of the held signal.
        func frame(_ c: Int, _ i: Int) -> Double {
            let n = length, p = n - prefix
            if i < 0 { return prefix == 0 ? Double(channels[c][n - 1]) : 0 }
            return Double(channels[c][i < n ? i : prefix + (i - prefix) % p])
        }

        /// Row `i` (table frames) of level rows `rows`: the prefix's, then the period's.
        func row(_ rows: [Double], _ i: Int) -> Int {
            let k = ToneLevels.oversampling, a = k * prefix, p = k * (length - prefix)
            return 4 * (i < a ? i : a + (i - a) % p)
        }
    }

    /// A region as `SoundRegion` documents it.
    struct Region {
        var held: Table
        var release: Table?
        var mode: SoundRegion.LoopMode
        var direction: SoundRegion.Direction = .forward
        var loopStart = 0, loopEnd = 0, releaseOrigin = 0
        var heldEnd: Int?, releaseEnd: Int?
        var pan: Double = 0
        var releaseFades = true
    }

    struct Voice {
        var key: TouchKey
        var phase: Int64 = 0
        var incTarget: Int32
        var incStep: Int32 = 0
        var glideLeft: Int32 = 0
        var gainTarget: Double
        var gainStep: Double = 0
        var ramp: Double = 0
        var rampStep: Double
        var releasing = false
        /// The envelope: floor + span · smoothstep(ramp); the attack's frames left
        /// before the decay starts (0: none).
        var floor: Double = 0
        var span: Double = 1
        var attackLeft: Int32 = 0
        /// Released during a short attack: the release starts where the attack ends.
        var releaseAfterAttack = false
        /// Reads the region's release table; released before the loop's start (goes on
        /// to it once its phase reaches the loop); silent for good past `endPhase`.
        var released = false
        var switchPending = false
        var ended = false
        /// The low-pass filter: the timbre (glide as the pitch's), the state (ic1, ic2)
        /// per channel, whether no timbre came since the start.
        var timbreTarget = 1.0, timbreStep = 0.0
        var timbreLeft: Int32 = 0
        var timbreFresh = true
        var filterState: [(Double, Double)] = [(0, 0), (0, 0)]
    }

    let region: Region
    let configuration: MixerConfiguration
    var zoneStart: [Int32] = [], zoneEnd: [Int32] = []
    var voices: [Voice] = []
    var panTarget: Double = 0, panStep: Double = 0, panLeft: Int32 = 0
    let glide: Int32, panGlide: Int32
    let attackStep: Double, releaseStep: Double
    /// The envelope's decay (0: none), sustain level and attack length, as `Envelope`
    /// computes them.
    let decayStep: Double, sustain: Double, attackFrames: Int32
    static let bits = 24

    /// A mono tone that loops whole.
    init(tone: [Float], configuration: MixerConfiguration, levels toneLevels: ToneLevels? = nil) {
        self.init(region: Region(held: Table(channels: [tone], prefix: 0, levels: toneLevels), mode: .loopContinuous, loopEnd: tone.count),
                  configuration: configuration, levels: toneLevels)
    }

    /// `levels`: any of the region's tables' levels (for their zones).
    init(region: Region, configuration: MixerConfiguration, levels toneLevels: ToneLevels?) {
        self.region = region
        self.configuration = configuration
        if let toneLevels {
            zoneStart = toneLevels.crossfadeStart.map { Int32(($0 * Double(1 << 24)).rounded()) }
            zoneEnd = toneLevels.aliasFreeRatio.dropLast().map { Int32(($0 * Double(1 << 24)).rounded(.down)) }
        }
        glide = Int32(max(1, (configuration.smoothingSeconds * configuration.rate).rounded()))
        panGlide = Int32(max(1, (configuration.panSmoothingSeconds * configuration.rate).rounded()))
        let rate = configuration.rate
        attackStep = Double(Float(1 / max(1, configuration.attackSeconds * rate)))
        releaseStep = -Double(Float(1 / max(1, configuration.releaseSeconds * rate)))
        sustain = Double(Float(min(max(configuration.sustainLevel, 0), 1)))
        decayStep = sustain < 1 && configuration.decaySeconds > 0 ? Double(Float(1 / max(1, configuration.decaySeconds * rate))) : 0
        attackFrames = Int32(max(1, configuration.attackSeconds * rate).rounded(.up))
    }

    /// The mixer's fixed-point increment: ratio clamped to 0…8, rounded to 2^−24.
    static func increment(_ ratio: Float) -> Int32 {
        let r = ratio.isNaN ? 0 : min(max(ratio, 0), 8)
        return Int32(r * Float(1 << bits) + 0.5)
    }

    /// The documented edge fade of the gain target: gain · min(ratio / 0.05, 1).
    static func edgeFaded(_ gain: Float, _ ratio: Float) -> Float {
        gain * min(max(ratio, 0) * (1 / 0.05), 1)
    }

    mutating func apply(_ e: EngineEvent) {
        switch e.kind {
        case .down:
            let gain = Self.edgeFaded(e.gain, e.value)
            if let i = voices.firstIndex(where: { $0.key == e.key && !$0.releasing }) {
                retarget(i, e.value, gain)
            } else {
                voices.append(Voice(key: e.key, incTarget: Self.increment(e.value), gainTarget: Double(gain), rampStep: attackStep,
                                    span: decayStep > 0 ? 1 : sustain, attackLeft: decayStep > 0 ? attackFrames : 0,
                                    timbreTarget: Double(Float(configuration.filter?.initialTimbre ?? 1))))
            }
        case .move:
            if let i = voices.firstIndex(where: { $0.key == e.key && !$0.releasing }) { retarget(i, e.value, Self.edgeFaded(e.gain, e.value)) }
        case .up:
            if let i = voices.firstIndex(where: { $0.key == e.key && !$0.releasing }) {
                var v = voices[i]
                v.releasing = true
                if region.mode == .loopSustain { switchToRelease(&v) }
                // A region that loops on fades always; others as `releaseFades` says (`SoundRegion`).
                let fades = region.mode == .loopContinuous || (region.releaseFades && region.mode != .oneShot)
                if fades && v.floor == 0 && v.rampStep > 0 && v.ramp < 1
                    && Float(v.rampStep) >= Float(1 / max(1, Mixer.shortAttackSeconds * configuration.rate)) * (1 - 1e-6) {
                    // Released during a short attack: the attack ends first, then the release.
                    if v.attackLeft <= 0 { v.attackLeft = max(Int32((1 - Float(v.ramp)) / Float(v.rampStep) + 0.5), 1) }
                    v.releaseAfterAttack = true
                } else if fades {
                    if v.floor != 0 {  // from the decay or sustain: the fall starts at the level now
                        v.span = v.floor + v.span * v.ramp * v.ramp * (3 - 2 * v.ramp)
                        v.floor = 0
                        v.ramp = 1
                    }
                    v.attackLeft = 0
                    v.rampStep = min(v.rampStep, releaseStep)
                }
                voices[i] = v
            }
        case .send, .sendDefault:
            break  // the dry mix: a voice's sends do not change it (SendEffectsTests measures them)
        case .pan:
            if voices.isEmpty {
                panTarget = Double(min(max(e.value, -1), 1)); panStep = 0; panLeft = 0
                return
            }
            let now = panTarget - panStep * Double(panLeft)
            panTarget = Double(min(max(e.value, -1), 1))
            panStep = (panTarget - now) / Double(panGlide)
            panLeft = panGlide
        case .timbre:
            guard configuration.filter != nil, let i = voices.firstIndex(where: { $0.key == e.key && !$0.releasing }) else { return }
            let t = Double(min(max(e.value, 0), 1))
            if voices[i].timbreFresh {
                voices[i].timbreTarget = t; voices[i].timbreStep = 0; voices[i].timbreLeft = 0; voices[i].timbreFresh = false
            } else {
                let now = voices[i].timbreTarget - voices[i].timbreStep * Double(voices[i].timbreLeft)
                voices[i].timbreTarget = t; voices[i].timbreStep = (t - now) / Double(glide); voices[i].timbreLeft = glide
            }
        case .releaseSource, .releaseAll:
            fatalError("not used by the comparison")
        }
    }

    /// A voice released in the sustain loop goes on in the release table at the sound
    /// frame its held phase stands for (`SoundRegion`'s rules, computed here again).
    func switchToRelease(_ v: inout Voice) {
        let one: Int64 = 1 << Int64(Self.bits)
        let s = Int64(region.loopStart) * one, e = Int64(region.loopEnd) * one, p = v.phase
        guard p >= s else { v.switchPending = true; return }
        let position: Int64
        switch region.direction {
        case .forward: position = s + (p - s) % (e - s)
        case .backward: position = p < e - one ? p : e - one - (p - (e - one)) % (e - s)
        case .alternating:
            let half = e - s - one, u = (p - s) % (2 * half)
            position = u < half ? s + u : e - one - (u - half)
        }
        v.phase = position - Int64(region.releaseOrigin) * one
        v.released = true
        v.switchPending = false
    }

    mutating func retarget(_ i: Int, _ ratio: Float, _ gain: Float) {
        var v = voices[i]
        let incNow = v.incTarget - v.incStep * v.glideLeft
        let gainNow = v.gainTarget - v.gainStep * Double(v.glideLeft)
        v.incTarget = Self.increment(ratio)
        v.incStep = (v.incTarget - incNow) / glide
        v.gainTarget = Double(gain)
        v.gainStep = (v.gainTarget - gainNow) / Double(glide)
        v.glideLeft = glide
        voices[i] = v
    }

    /// One stereo frame; advances every voice and the pan by one frame.
    mutating func frame() -> (Double, Double) {
        let unit = 1 / Double(1 << Self.bits)
        var mono = 0.0, left = 0.0, right = 0.0
        let panned = region.pan != 0
        let theta0 = (min(max(region.pan, -1), 1) + 1) * Double.pi / 4
        let (panL, panR) = panned ? (2.0.squareRoot() * cos(theta0), 2.0.squareRoot() * sin(theta0)) : (1.0, 1.0)
        for i in voices.indices {
            var v = voices[i]
            if v.switchPending { switchToRelease(&v) }
            let table = v.released ? region.release! : region.held
            let g = max(v.glideLeft, 0)
            let inc = v.incTarget - v.incStep * g
            let gain = v.gainTarget - v.gainStep * Double(g)
            v.ramp = min(max(v.ramp + v.rampStep, 0), 1)
            let envelope = v.floor + v.span * v.ramp * v.ramp * (3 - 2 * v.ramp)
            if v.attackLeft > 0 {  // the attack's last frame: the decay starts on the next
                v.attackLeft -= 1
                if v.attackLeft == 0 && v.releaseAfterAttack {
                    v.releaseAfterAttack = false
                    v.ramp = 1
                    v.rampStep = releaseStep
                } else if v.attackLeft == 0 { v.floor = 1; v.span = sustain - 1; v.ramp = 0; v.rampStep = decayStep }
            }
            let fade = min(Double(inc) * unit / 0.05, 1)
            let level = gain * envelope * fade
            var ys = (0..<table.channels.count).map { sample(table, channel: $0, phase: v.phase, inc: inc) * level }
            if let settings = configuration.filter {
                // The cutoff of the grid step nearest the timbre (`LowPassGrid`), Simper's
                // trapezoidal SVF per sample in Double.
                let t = v.timbreTarget - v.timbreStep * Double(max(v.timbreLeft, 0))
                let step = Double(Int(Float(min(max(t, 0), 1)) * 1023 + 0.5)) / 1023
                let fc = min(settings.lowHz * pow(settings.highHz / settings.lowHz, step), 0.49 * configuration.rate)
                let g = Foundation.tan(Double.pi * fc / configuration.rate), k = 1 / min(max(settings.q, 0.5), 20)
                let a1 = 1 / (1 + g * (g + k)), a2 = g * a1, a3 = g * a2
                for c in ys.indices {
                    var (ic1, ic2) = v.filterState[c]
                    let v3 = ys[c] - ic2, v1 = a1 * ic1 + a2 * v3, v2 = ic2 + a2 * ic1 + a3 * v3
                    ic1 = 2 * v1 - ic1; ic2 = 2 * v2 - ic2
                    v.filterState[c] = (ic1, ic2)
                    ys[c] = v2
                }
                v.timbreLeft = max(v.timbreLeft - 1, 0)
            }
            v.timbreFresh = false
            if table.channels.count == 2 {
                left += ys[0] * panL
                right += ys[1] * panR
            } else if panned {
                left += ys[0] * panL
                right += ys[0] * panR
            } else {
                mono += ys[0]
            }
            v.phase += Int64(inc)
            v.glideLeft = max(v.glideLeft - 1, 0)
            // Past the silent end of its table the voice ends.
            let end = v.released ? region.releaseEnd : region.heldEnd
            if let end, v.phase >= Int64(end) << Int64(Self.bits) { v.ended = true; v.ramp = 0; v.rampStep = -1; v.floor = 0 }
            voices[i] = v
        }
        // A voice ends with its envelope (or its sound), once its filter has rung out
        // (its state below −120 dB).
        voices.removeAll { v in
            let ringing = v.filterState.reduce(0.0) { $0 + $1.0 * $1.0 + $1.1 * $1.1 } > 1e-12
            return (v.rampStep < 0 && v.ramp <= 0 || v.ended) && !ringing
        }
        let pan = panTarget - panStep * Double(max(panLeft, 0))
        panLeft = max(panLeft - 1, 0)
        let theta = (min(max(pan, -1), 1) + 1) * Double.pi / 4
        return ((mono + left) * cos(theta), (mono + right) * sin(theta))
    }

    /// Channel `channel` of `table` at `phase`, interpolated as the configuration says.
    func sample(_ table: Table, channel c: Int, phase: Int64, inc: Int32) -> Double {
        let unit = 1 / Double(1 << Self.bits)
        let index = Int(phase >> Int64(Self.bits))
        let t = Double(phase & ((1 << Int64(Self.bits)) - 1)) * unit
        let ym1 = table.frame(c, index - 1), y0 = table.frame(c, index), y1 = table.frame(c, index + 1), y2 = table.frame(c, index + 2)
        switch configuration.interpolation {
        case .linear: return y0 + (y1 - y0) * t
        case .cubic:
            let c1 = 0.5 * (y1 - ym1)
            let c2 = ym1 - 2.5 * y0 + 2 * y1 - 0.5 * y2
            let c3 = 0.5 * (y2 - ym1) + 1.5 * (y0 - y1)
            return ((c3 * t + c2) * t + c1) * t + y0
        case .bandLimited: return bandLimited(table.levels[c], table, phase: phase, inc: inc)
        }
    }

    /// The band-limited read at `phase` (tone frames, 24 fractional bits) for increment
    /// `inc`: the level place W = Σ_z clamp((inc − start_z)/(end_z − start_z), 0, 1),
    /// levels k = min(#{z: inc ≥ end_z}, L − 2) and k + 1 blended by W − k, each read at
    /// `ToneLevels.oversampling` × the phase: that row's cubic at its fraction t.
    func bandLimited(_ levels: [[Double]], _ table: Table, phase: Int64, inc: Int32) -> Double {
        var place = 0.0, k = 0
        for z in zoneStart.indices {
            place += min(max(Double(inc - zoneStart[z]) / Double(zoneEnd[z] - zoneStart[z]), 0), 1)
            if inc >= zoneEnd[z] { k += 1 }
        }
        k = min(k, levels.count - 2)
        let weight = min(max(place - Double(k), 0), 1)
        // Table frames: `ToneLevels.oversampling` per tone frame (a power of 2).
        let shift = Int64(Self.bits - ToneLevels.oversampling.trailingZeroBitCount)
        let index = Int(phase >> shift)
        let t = Double(phase & ((1 << shift) - 1)) / Double(1 << shift)
        func read(_ level: [Double]) -> Double {
            let row = table.row(level, index)
            return ((level[row + 3] * t + level[row + 2]) * t + level[row + 1]) * t + level[row]
        }
        let lower = read(levels[k])
        return weight == 0 ? lower : lower + weight * (read(levels[k + 1]) - lower)
    }

    /// Renders `frames` frames, applying each event at its frame. Interleaved stereo.
    mutating func render(frames: Int, events: [EngineEvent]) -> [Double] {
        var out = [Double](repeating: 0, count: 2 * frames)
        var next = 0
        let sorted = events.enumerated().sorted { ($0.element.frame, $0.offset) < ($1.element.frame, $1.offset) }.map(\.element)
        for n in 0..<frames {
            while next < sorted.count && sorted[next].frame <= UInt64(n) { apply(sorted[next]); next += 1 }
            let (l, r) = frame()
            out[2 * n] = l
            out[2 * n + 1] = r
        }
        return out
    }
}
