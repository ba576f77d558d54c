// SPDX-License-Identifier: GPL-3.0-or-later
/// The chorus send's effect: three copies of each side, each read from a delay of about
/// 12 ms that a triangle sweeps by ± `depth` milliseconds at `rate` Hz, the three a third
/// of a cycle apart (the right side's a sixth further on), so the sum thickens without a
/// single sweeping comb. A triangle, as in the Roland Juno's chorus: it needs no sine
/// (the engine has no libm), and its constant slope gives a constant small detune rather
/// than a wobble. Reads are linearly interpolated, each copy's read held for 8 frames.
///
/// Wet only (a send): the dry voices are already in the mix. Plain pointers allocated at
/// setup for the rate; `process` is `@_noLocks`.
public struct Chorus: @unchecked Sendable {
    /// Centre delay, seconds; the longest depth, seconds.
    static var centreSeconds: Double { @_noLocks @inline(__always) get { 0.012 } }
    public static var longestDepthSeconds: Double { @_noLocks @inline(__always) get { 0.008 } }
    public let rate: Double
    /// Frames of the ring (a power of two past the centre and the longest depth at the rate).
    let ringFrames: Int
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
        /// The current 8-frame block's reads (lanes as `phase`): whole frames behind the
        /// write, the fraction, the last frame's samples; frames left of the block.
        var whole = SIMD8<Int32>()
        var fraction = SIMD8<Float>()
        var previous = SIMD8<Float>()
        var blockLeft = 0
    }

    /// - Thread: setup.
    public init(rate: Double, settings: ChorusSettings) {
        self.rate = rate
        var frames = 1
        while Double(frames) < (Chorus.centreSeconds + Chorus.longestDepthSeconds) * rate + 4 { frames <<= 1 }
        ringFrames = frames
        ring = .allocate(capacity: 2 * frames)
        ring.initialize(repeating: 0, count: 2 * frames)
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
        let hz = settings.rateHz.isNaN ? 0.6 : min(max(settings.rateHz, 0.01), 10)
        let ms = settings.depthMilliseconds.isNaN ? 2.5 : min(max(settings.depthMilliseconds, 0), Chorus.longestDepthSeconds * 1000)
        state.pointee.step = Float(hz / rate)
        state.pointee.depthTarget = Float(ms / 1000 * rate)
    }

    /// Adds the chorus of `input` (interleaved stereo) into `out`; returns its largest sample.
    /// - Thread: render.
    @_noLocks
    public func process(_ input: UnsafePointer<Float>, into out: UnsafeMutablePointer<Float>, frames: Int) -> Float {
        var s = state.pointee
        let mask = ringFrames - 1
        // The depth glides to its target, one-pole per block, time constant 50 ms: a depth
        // change moves the reads slowly (no jump of the read point).
        let depthGlide = Float(min(1, 8 / (0.05 * rate)))
        var peak: Float = 0
        var n = 0
        while n < frames {
            ring[2 &* s.write] = input[2 &* n]
            ring[2 &* s.write &+ 1] = input[2 &* n &+ 1]
            if s.blockLeft == 0 {
                // The sweep over the next 8 frames: each copy's read (whole frames behind and
                // the fraction), held for the block (it moves under 0.01 frame a frame).
                s.phase += 8 * s.step
                s.phase = s.phase.replacing(with: s.phase - 1, where: s.phase .>= 1)
                s.depth += (s.depthTarget - s.depth) * depthGlide
                let centred: SIMD8<Float> = 2 * s.phase - 1
                let magnitude: SIMD8<Float> = centred.replacing(with: -centred, where: centred .< 0)
                let delay: SIMD8<Float> = s.centre + s.depth * (1 - 2 * magnitude)
                s.whole = SIMD8<Int32>(Int32(delay[0]), Int32(delay[1]), Int32(delay[2]), 0, Int32(delay[4]), Int32(delay[5]), Int32(delay[6]), 0)
                s.fraction = delay - SIMD8<Float>(Float(s.whole[0]), Float(s.whole[1]), Float(s.whole[2]), 0,
                                                  Float(s.whole[4]), Float(s.whole[5]), Float(s.whole[6]), 0)
                s.blockLeft = 8
            }
            let start = s.blockLeft == 8
            s.blockLeft &-= 1
            // Lanes 0–2: the left copies' reads, 4–6 the right's; the frame one further back
            // is last frame's read, except at a block's start.
            let w = Int32(truncatingIfNeeded: s.write), m = Int32(mask)
            let r = (SIMD8<Int32>(repeating: w) &- s.whole) & SIMD8<Int32>(repeating: m)
            let y0 = SIMD8<Float>(ring[2 &* Int(r[0])], ring[2 &* Int(r[1])], ring[2 &* Int(r[2])], 0,
                                  ring[2 &* Int(r[4]) &+ 1], ring[2 &* Int(r[5]) &+ 1], ring[2 &* Int(r[6]) &+ 1], 0)
            var y1 = s.previous
            if start {
                let q = (r &- 1) & SIMD8<Int32>(repeating: m)
                y1 = SIMD8<Float>(ring[2 &* Int(q[0])], ring[2 &* Int(q[1])], ring[2 &* Int(q[2])], 0,
                                  ring[2 &* Int(q[4]) &+ 1], ring[2 &* Int(q[5]) &+ 1], ring[2 &* Int(q[6]) &+ 1], 0)
            }
            s.previous = y0
            let y = y0 + (y1 - y0) * s.fraction
            // 1/√3: three uncorrelated copies at one copy's power.
            let l = (y[0] + y[1] + y[2]) * 0.577_350_3, rr = (y[4] + y[5] + y[6]) * 0.577_350_3
            out[2 &* n] += l
            out[2 &* n &+ 1] += rr
            peak = max(peak, max(abs(l), abs(rr)))
            s.write = (s.write &+ 1) & mask
            n &+= 1
        }
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
