import BendEngine
import Foundation

/// A plain, frame-by-frame implementation of the mixer's documented algorithm (see
/// `Mixer`, `VoiceBank`, `MixerKernel.swift`) in Double precision: no SIMD, no blocks,
/// no repeated loop, events applied at their exact frames. Polyphony is unlimited (the
/// comparison tests never steal). Integer parts (fixed-point phase and increments) are
/// the same integers as the mixer's, so the two differ only by float rounding.
struct ReferenceMixer {
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
    }

    let tone: [Float]
    let configuration: MixerConfiguration
    var voices: [Voice] = []
    var panTarget: Double = 0, panStep: Double = 0, panLeft: Int32 = 0
    let glide: Int32, panGlide: Int32
    let attackStep: Double, releaseStep: Double
    static let bits = 24

    init(tone: [Float], configuration: MixerConfiguration) {
        self.tone = tone
        self.configuration = configuration
        glide = Int32(max(1, (configuration.smoothingSeconds * configuration.rate).rounded()))
        panGlide = Int32(max(1, (configuration.panSmoothingSeconds * configuration.rate).rounded()))
        attackStep = Double(Float(1 / max(1, configuration.attackSeconds * configuration.rate)))
        releaseStep = -Double(Float(1 / max(1, configuration.releaseSeconds * configuration.rate)))
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
                voices.append(Voice(key: e.key, incTarget: Self.increment(e.value), gainTarget: Double(gain), rampStep: attackStep))
            }
        case .move:
            if let i = voices.firstIndex(where: { $0.key == e.key && !$0.releasing }) { retarget(i, e.value, Self.edgeFaded(e.gain, e.value)) }
        case .up:
            if let i = voices.firstIndex(where: { $0.key == e.key && !$0.releasing }) {
                voices[i].releasing = true
                voices[i].rampStep = min(voices[i].rampStep, releaseStep)
            }
        case .pan:
            if voices.isEmpty {
                panTarget = Double(min(max(e.value, -1), 1)); panStep = 0; panLeft = 0
                return
            }
            let now = panTarget - panStep * Double(panLeft)
            panTarget = Double(min(max(e.value, -1), 1))
            panStep = (panTarget - now) / Double(panGlide)
            panLeft = panGlide
        case .releaseSource, .releaseAll:
            fatalError("not used by the comparison")
        }
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
        let length = tone.count
        let loop = Int64(length) << Int64(Self.bits)
        let unit = 1 / Double(1 << Self.bits)
        var mix = 0.0
        for i in voices.indices {
            var v = voices[i]
            let g = max(v.glideLeft, 0)
            let inc = v.incTarget - v.incStep * g
            let gain = v.gainTarget - v.gainStep * Double(g)
            v.ramp = min(max(v.ramp + v.rampStep, 0), 1)
            let envelope = v.ramp * v.ramp * (3 - 2 * v.ramp)
            let fade = min(Double(inc) * unit / 0.05, 1)
            let index = Int(v.phase >> Int64(Self.bits))
            let t = Double(v.phase & ((1 << Int64(Self.bits)) - 1)) * unit
            func tap(_ k: Int) -> Double { Double(tone[((index + k) % length + length) % length]) }
            let ym1 = tap(-1), y0 = tap(0), y1 = tap(1), y2 = tap(2)
            let c1 = 0.5 * (y1 - ym1)
            let c2 = ym1 - 2.5 * y0 + 2 * y1 - 0.5 * y2
            let c3 = 0.5 * (y2 - ym1) + 1.5 * (y0 - y1)
            let y: Double
            if case .linear = configuration.interpolation { y = y0 + (y1 - y0) * t } else { y = ((c3 * t + c2) * t + c1) * t + y0 }
            mix += y * gain * envelope * fade
            v.phase = (v.phase + Int64(inc)) % loop
            v.glideLeft = max(v.glideLeft - 1, 0)
            voices[i] = v
        }
        voices.removeAll { $0.rampStep < 0 && $0.ramp <= 0 }
        let pan = panTarget - panStep * Double(max(panLeft, 0))
        panLeft = max(panLeft - 1, 0)
        let theta = (min(max(pan, -1), 1) + 1) * Double.pi / 4
        return (mix * cos(theta), mix * sin(theta))
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
