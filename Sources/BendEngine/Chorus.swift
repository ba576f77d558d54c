// SPDX-License-Identifier: GPL-3.0-or-later
/// The chorus send's effect: three copies of each side, each read from a delay of about
/// 12 ms that a triangle sweeps by ± `depth` milliseconds at `rate` Hz, the three a third
/// of a cycle apart (the right side's a sixth further on), so the sum thickens without a
/// single sweeping comb. A triangle, as in the Roland Juno's chorus: it needs no sine
/// (the engine has no libm), and its constant slope gives a constant small detune rather
/// than a wobble. Reads are linearly interpolated.
///
/// Wet only (a send): the dry voices are already in the mix. Plain pointers allocated at
/// setup for 192 kHz; `process` is `@_noLocks`.
public struct Chorus: @unchecked Sendable {
    /// Centre delay, seconds; the longest depth, seconds.
    static var centreSeconds: Double { @_noLocks @inline(__always) get { 0.012 } }
    public static var longestDepthSeconds: Double { @_noLocks @inline(__always) get { 0.008 } }
    static var ringFrames: Int { @_noLocks @inline(__always) get { 8192 } }
    public let rate: Double
    let ring: UnsafeMutablePointer<Float>
    let state: UnsafeMutablePointer<State>

    struct State {
        var write = 0
        /// Triangle phases 0..<1, lanes 0–2 left, 4–6 right (3 and 7 unused); step per frame.
        var phase = SIMD8<Float>(0, 1.0 / 3, 2.0 / 3, 0, 1.0 / 6, 0.5, 5.0 / 6, 0)
        var step: Float = 0
        /// Centre and depth, frames; depth glides to its target.
        var centre: Float = 0
        var depth: Float = 0
        var depthTarget: Float = 0
        var settings = ChorusSettings()
    }

    /// - Thread: setup.
    public init(rate: Double, settings: ChorusSettings) {
        self.rate = rate
        ring = .allocate(capacity: 2 * Chorus.ringFrames)
        ring.initialize(repeating: 0, count: 2 * Chorus.ringFrames)
        state = .allocate(capacity: 1)
        state.initialize(to: State())
        state.pointee.centre = Float(Chorus.centreSeconds * rate)
        set(settings)
        state.pointee.depth = state.pointee.depthTarget
    }

    public func deallocate() { ring.deallocate(); state.deallocate() }

    /// New rate and depth (the depth glides over the next period).
    /// - Thread: render (between periods), or setup.
    @_noLocks
    public func set(_ settings: ChorusSettings) {
        state.pointee.settings = settings
        state.pointee.step = Float(min(max(settings.rateHz, 0.01), 10) / rate)
        state.pointee.depthTarget = Float(min(max(settings.depthMilliseconds, 0), Chorus.longestDepthSeconds * 1000) / 1000 * rate)
    }

    /// Adds the chorus of `input` (interleaved stereo) into `out`; returns its largest sample.
    /// - Thread: render.
    @_noLocks
    public func process(_ input: UnsafePointer<Float>, into out: UnsafeMutablePointer<Float>, frames: Int) -> Float {
        var s = state.pointee
        let mask = Chorus.ringFrames - 1
        let depthStep = (s.depthTarget - s.depth) / Float(frames)
        var peak: Float = 0
        var n = 0
        while n < frames {
            ring[2 &* s.write] = input[2 &* n]
            ring[2 &* s.write &+ 1] = input[2 &* n &+ 1]
            s.phase += s.step
            s.phase = s.phase.replacing(with: s.phase - 1, where: s.phase .>= 1)
            s.depth += depthStep
            // Triangle −1…1; delay = centre + depth·tri ≥ 12 − 8 ms > 0.
            let centred: SIMD8<Float> = 2 * s.phase - 1
            let magnitude: SIMD8<Float> = centred.replacing(with: -centred, where: centred .< 0)
            let tri: SIMD8<Float> = 1 - 2 * magnitude
            let delay: SIMD8<Float> = s.centre + s.depth * tri
            var l: Float = 0, r: Float = 0
            var k = 0
            while k < 3 {
                let da: Float = delay[k], db: Float = delay[k + 4]
                let wa = Int(da), wb = Int(db)
                let fa: Float = da - Float(wa), fb: Float = db - Float(wb)
                let a = (s.write &- wa) & mask, b = (s.write &- wb) & mask
                let a0 = ring[2 &* a], a1 = ring[2 &* ((a &- 1) & mask)]
                let b0 = ring[2 &* b &+ 1], b1 = ring[2 &* ((b &- 1) & mask) &+ 1]
                l += a0 + (a1 - a0) * fa
                r += b0 + (b1 - b0) * fb
                k += 1
            }
            l *= 0.577_350_3  // 1/√3: three uncorrelated copies at one copy's power
            r *= 0.577_350_3
            out[2 &* n] += l
            out[2 &* n &+ 1] += r
            peak = max(peak, max(abs(l), abs(r)))
            s.write = (s.write &+ 1) & mask
            n &+= 1
        }
        s.depth = s.depthTarget
        state.pointee = s
        return peak
    }
}

/// The chorus's controls.
public struct ChorusSettings: Sendable, Equatable {
    /// Sweep rate, Hz (0.01…10).
    public var rateHz = 0.6
    /// Sweep depth, milliseconds either side of the centre (0…8).
    public var depthMilliseconds = 2.5

    @_noLocks public init() {}

    /// Some control differs from `other`'s.
    @_noLocks
    public func differs(from other: ChorusSettings) -> Bool { rateHz != other.rateHz || depthMilliseconds != other.depthMilliseconds }
}
