// SPDX-License-Identifier: GPL-3.0-or-later
/// The reverb send's effect: a pre-delay, two allpass diffusers per side and two
/// feedback delay networks (FDN) of 8 lines each, one per side (Jot and Chaigne, "Digital
/// delay networks for designing artificial reverberators", AES 1991; the design of
/// Faust's `re.fdnrev0` and of Valhalla's and Surge's FDN rooms).
///
/// Why this design:
/// - **Exact decay.** Every line i of length dᵢ frames has its own loop gain
///   gᵢ = 10^(−3·dᵢ / (T₆₀·rate)), and the feedback matrix is orthogonal (a Hadamard
///   matrix / √8, applied as a fast Walsh–Hadamard transform: 3 butterfly stages, no
///   multiplies), so every path through the network loses 60 dB in T₆₀ seconds whatever
///   its route: the set decay is the measured decay (`ReverbTests` fits it).
/// - **Damping** is a one-pole low-pass in each loop with DC gain gᵢ and gain at
///   Nyquist gᵢ^(1/(1 − 0.9·damping)), so high frequencies die faster without changing the
///   decay's low end (Jot's absorbent filters, first order).
/// - **Density.** The Hadamard matrix sends each line into every line on every pass,
///   and two allpasses ahead of the network (about 3 and 5 ms, gain 0.6) smear each
///   input sample into many, so the echo density builds within the first 100 ms (no
///   flutter; `ReverbTests` measures Abel and Huang's normalized echo density).
/// - **No metallic ring.** The line lengths are primes spread over 19…55 ms (times the
///   size), and each line's read point wanders by up to 0.25 ms on its own slow triangle
///   (0.1…0.8 Hz, read through a first-order allpass interpolator: flat, so the wander
///   costs no decay, where a linear one's high-frequency loss cut T₆₀ by 12 %), which
///   smears the network's modes.
/// - **Width without smearing a pan.** The two sides are separate networks (different
///   primes, so their tails are uncorrelated): a voice panned hard left reverberates on the
///   left only at width 1. Width w mixes the two tails: left' = a·L + b·R, right' = a·R + b·L
///   with a = (1 + w)/2, b = (1 − w)/2; at w = 0 both sides are the same sum (mono), and a
///   hard-left voice's reverb on the right is b/a of its left (−9.54 dB at w = 0.5).
/// - **Level.** The tails are scaled by √(1 − ḡ²) (ḡ: the mean loop gain), so a held note's
///   reverb at send 1 has about the note's level whatever the decay (measured at the
///   default: within 1 dB): a longer room is longer, not louder.
///
/// Plain pointers allocated at setup for the largest size at the rate, and at least at
/// 192 kHz (about 2.3 MB);
/// `process` is `@_noLocks` and allocates nothing. The decay, damping, width and return
/// glide per sample (`coefficientGlide`); the size and pre-delay are set at setup.
public struct Reverb: @unchecked Sendable {
    /// Line lengths at size 0.5 (×1), milliseconds; the size scales them by 0.5…1.6.
    static let leftMilliseconds: [Double] = [19.7, 23.3, 27.1, 31.9, 36.1, 41.3, 46.9, 53.1]
    static let rightMilliseconds: [Double] = [20.9, 24.7, 28.3, 30.7, 37.9, 43.1, 44.9, 54.7]
    /// Allpass diffusers' lengths, milliseconds, and their gain.
    static let diffuserMilliseconds: [Double] = [3.1, 5.3, 3.4, 4.9]
    static var diffuserGain: Float { @_noLocks @inline(__always) get { 0.6 } }
    /// The longest pre-delay, seconds.
    public static var longestPreDelay: Double { @_noLocks @inline(__always) get { 0.25 } }
    /// Frames per line buffer: a power of two that holds the longest line (55 ms × 1.6 and
    /// the wander) at the rate, and at least 192 kHz's.
    let lineFrames: Int

    public let rate: Double
    /// The lines' samples, side by side: line i of the left network at `i·lineFrames`,
    /// of the right at `(8 + i)·lineFrames`. Owner: render.
    let buffer: UnsafeMutablePointer<Float>
    /// The pre-delay ring (stereo interleaved, `preFrames` frames) and the diffusers' rings.
    let pre: UnsafeMutablePointer<Float>
    let preFrames: Int
    let diffusers: UnsafeMutablePointer<Float>
    let state: UnsafeMutablePointer<State>

    struct State {
        /// Write position, frames (wraps at `lineFrames`).
        var write = 0
        var preWrite = 0
        /// Pre-delay, frames. Owner: setup.
        var preDelay = 0
        /// Diffuser write positions and lengths, frames.
        var diffuserWrite = SIMD4<Int32>()
        var diffuserLength = SIMD4<Int32>()
        /// Each line's length, frames (its read is that far behind the write, plus the wander).
        var lengthL = SIMD8<Float>(), lengthR = SIMD8<Float>()
        /// Loop filters: y = c·x + b·y₋₁ per line (c = g·(1 − b)); current and target.
        var cL = SIMD8<Float>(), bL = SIMD8<Float>(), cR = SIMD8<Float>(), bR = SIMD8<Float>()
        var cLTarget = SIMD8<Float>(), bLTarget = SIMD8<Float>(), cRTarget = SIMD8<Float>(), bRTarget = SIMD8<Float>()
        var filterL = SIMD8<Float>(), filterR = SIMD8<Float>()
        /// Each line's allpass interpolator's last output.
        var allpassL = SIMD8<Float>(), allpassR = SIMD8<Float>()
        /// The wander of the current 8-frame block (`wander`): each line's read, whole frames
        /// behind the write, and its allpass coefficient; frames left of the block.
        var wholeL = SIMD8<Int32>(), wholeR = SIMD8<Int32>(), aL = SIMD8<Float>(), aR = SIMD8<Float>()
        var blockLeft = 0
        /// Each line's last read (the next frame's sample one further back).
        var previousL = SIMD8<Float>(), previousR = SIMD8<Float>()
        /// Output gains a (own side) and b (other side) times the level scale and return;
        /// current and target (linear).
        var own: Float = 0, cross: Float = 0, ownTarget: Float = 0, crossTarget: Float = 0
        /// Wander: each line's triangle phase (0..<1) and its step per frame; depth, frames.
        var phaseL = SIMD8<Float>(), phaseR = SIMD8<Float>(), stepL = SIMD8<Float>(), stepR = SIMD8<Float>()
        var depth: Float = 0
        /// Frames left of the coefficients' glide.
        var settling = 0
        /// The settings the targets were made from.
        var settings = ReverbSettings()
    }

    /// Frames over which the decay, damping, width and return settle after a change
    /// (a one-pole glide, time constant `coefficientGlide`/5).
    static var coefficientGlide: Double { @_noLocks @inline(__always) get { 0.05 } }

    /// - Thread: setup.
    public init(rate: Double, settings: ReverbSettings) {
        self.rate = rate
        var size = 1
        while Double(size) < 0.089 * max(rate, 192_000) { size <<= 1 }
        lineFrames = size
        buffer = .allocate(capacity: 16 * size)
        buffer.initialize(repeating: 0, count: 16 * size)
        preFrames = Int(Reverb.longestPreDelay * max(rate, 192_000)) + 1
        pre = .allocate(capacity: 2 * preFrames)
        pre.initialize(repeating: 0, count: 2 * preFrames)
        diffusers = .allocate(capacity: 4 * 8192)
        diffusers.initialize(repeating: 0, count: 4 * 8192)
        state = .allocate(capacity: 1)
        var s = State()
        let scale = 0.5 + 1.1 * min(max(settings.size, 0), 1) / 1  // size 0…1 → ×0.5…1.6
        let frames = { (ms: Double) -> Float in Float(Reverb.prime(near: ms * scale * rate / 1000)) }
        for i in 0..<8 {
            s.lengthL[i] = frames(Reverb.leftMilliseconds[i])
            s.lengthR[i] = frames(Reverb.rightMilliseconds[i])
            // Wander rates 0.1…0.8 Hz, each line its own.
            s.stepL[i] = Float((0.1 + 0.1 * Double(i)) / rate)
            s.stepR[i] = Float((0.15 + 0.09 * Double(i)) / rate)
            s.phaseL[i] = Float(i) / 8
            s.phaseR[i] = Float(7 - i) / 8
        }
        for i in 0..<4 { s.diffuserLength[i] = Int32(min(8191, max(1, (Reverb.diffuserMilliseconds[i] * rate / 1000).rounded()))) }
        s.depth = Float(0.00025 * rate)
        s.preDelay = settings.preDelaySeconds.isNaN ? 0 : Int(min(max(settings.preDelaySeconds, 0), Reverb.longestPreDelay) * rate)
        state.initialize(to: s)
        set(settings)
        state.pointee.cL = state.pointee.cLTarget; state.pointee.bL = state.pointee.bLTarget
        state.pointee.cR = state.pointee.cRTarget; state.pointee.bR = state.pointee.bRTarget
        state.pointee.own = state.pointee.ownTarget; state.pointee.cross = state.pointee.crossTarget
        state.pointee.settling = 0
    }

    /// The nearest prime to `x` (≥ 2): line lengths without common factors.
    static func prime(near x: Double) -> Int {
        func isPrime(_ n: Int) -> Bool {
            if n < 2 { return false }
            var d = 2
            while d * d <= n { if n % d == 0 { return false }; d += 1 }
            return true
        }
        let n = max(2, Int(x.rounded()))
        var k = 0
        while true {
            if isPrime(n - k) { return n - k }
            if isPrime(n + k) { return n + k }
            k += 1
        }
    }

    public func deallocate() { buffer.deallocate(); pre.deallocate(); diffusers.deallocate(); state.deallocate() }

    /// The settings now (their targets).
    public var settings: ReverbSettings { @_noLocks get { state.pointee.settings } }

    /// New decay, damping, width and return (the size and pre-delay stay as set up): the
    /// network glides to them over `coefficientGlide`.
    /// - Thread: render (between periods), or setup.
    @_noLocks
    public func set(_ settings: ReverbSettings) {
        var s = state.pointee
        s.settings = settings
        s.settings.size = state.pointee.settings.size
        s.settings.preDelaySeconds = Double(s.preDelay) / rate
        let decay = settings.decaySeconds.isNaN ? 2.2 : min(max(settings.decaySeconds, 0.05), 60)
        let damping = settings.damping.isNaN ? 0.35 : min(max(settings.damping, 0), 1)
        let meanDepth = Double(s.depth) / 2
        var meanGain = 0.0
        for side in 0..<2 {
            var c = SIMD8<Float>(), b = SIMD8<Float>()
            for i in 0..<8 {
                let d = Double(side == 0 ? s.lengthL[i] : s.lengthR[i]) + meanDepth
                // log10 gᵢ = −3·dᵢ / (T₆₀·rate); at Nyquist the exponent is divided by (1 − 0.9·damping).
                let exponent = -3 * d / (decay * rate) * 2.302_585_092_994_046
                let g = Reverb.exp(exponent)
                let r = Reverb.exp(exponent / (1 - 0.9 * damping)) / g
                let pole = (1 - r) / (1 + r)
                c[i] = Float(g * (1 - pole))
                b[i] = Float(pole)
                meanGain += g / 16
            }
            if side == 0 { s.cLTarget = c; s.bLTarget = b } else { s.cRTarget = c; s.bRTarget = b }
        }
        let width = settings.width.isNaN ? 1 : min(max(settings.width, 0), 1)
        let back = settings.returnLevel.isNaN ? 1 : min(max(settings.returnLevel, 0), 4)
        let level = Float(((1 - meanGain * meanGain) > 0 ? Reverb.squareRoot(1 - meanGain * meanGain) : 0) * back)
        // Each side's tail is the sum of 8 lines. The tap gain is measured, not derived: with
        // it a held note at send 1 has a reverb of the note's own level at the default
        // settings (`SendEffectsTests`: within 1 dB; the damping and the diffusers make the
        // arithmetic's 1/√8·√8 differ by 12.7 dB).
        let tap: Float = 1.52
        s.ownTarget = Float((1 + width) / 2) * level * tap
        s.crossTarget = Float((1 - width) / 2) * level * tap
        s.settling = Int(Reverb.coefficientGlide * rate)
        state.pointee = s
    }

    /// √x (no libm; callable on the render thread): Newton from max(x, 1).
    @_noLocks
    static func squareRoot(_ x: Double) -> Double {
        guard x > 0 else { return 0 }
        var r = x > 1 ? x : 1
        var k = 0
        while k < 60 { r = 0.5 * (r + x / r); k += 1 }
        return r
    }

    /// eˣ for x ≤ 0 (no libm; callable on the render thread): e^(x/2ᵏ) by its series to
    /// the 12th power with x/2ᵏ in (−1/2, 0], squared k times (relative error below 10⁻¹²
    /// for the loop gains' exponents, −0.1…0).
    @_noLocks
    static func exp(_ x: Double) -> Double {
        var y = x, k = 0
        while y < -0.5 && k < 64 { y *= 0.5; k += 1 }
        var term = 1.0, sum = 1.0, n = 1.0
        while n <= 12 { term *= y / n; sum += term; n += 1 }
        while k > 0 { sum *= sum; k -= 1 }
        return sum
    }

    /// One side's wander over the next 8 frames: each line's read (whole frames behind the
    /// write, `length` + depth·triangle) and its allpass coefficient, held for the block.
    /// (The read moves by under 0.001 frame a frame: holding it 8 frames changes nothing
    /// audible, and costs the reads a conversion per block instead of per frame.)
    @_noLocks @inline(__always)
    static func wander(length: SIMD8<Float>, phase: inout SIMD8<Float>, step: SIMD8<Float>, depth: Float) -> (SIMD8<Int32>, SIMD8<Float>) {
        phase += 8 * step
        phase = phase.replacing(with: phase - 1, where: phase .>= 1)
        let centred = 2 * phase - 1
        let tri = 1 - centred.replacing(with: -centred, where: centred .< 0)
        let delay = length + depth * tri
        let whole = SIMD8<Int32>(Int32(delay[0]), Int32(delay[1]), Int32(delay[2]), Int32(delay[3]),
                                 Int32(delay[4]), Int32(delay[5]), Int32(delay[6]), Int32(delay[7]))  // truncates: > 0
        let fraction = delay - SIMD8<Float>(Float(whole[0]), Float(whole[1]), Float(whole[2]), Float(whole[3]),
                                            Float(whole[4]), Float(whole[5]), Float(whole[6]), Float(whole[7]))
        // First-order allpass interpolation (flat magnitude: the wander costs no decay, as a
        // linear interpolation's high-frequency loss would): y = a·y0 + y1 − a·y₋₁,
        // a = (1 − f)/(1 + f) (Dattorro, "Effect design", JAES 1997, part 1).
        return (whole, (1 - fraction) / (1 + fraction))
    }

    /// The 8 lines' samples at rows `r` (one per line, `lineFrames` apart from `base`).
    @_noLocks @inline(__always)
    func gather(_ base: UnsafeMutablePointer<Float>, _ r: SIMD8<Int32>) -> SIMD8<Float> {
        let l = lineFrames
        return SIMD8(base[Int(r[0])], base[l &+ Int(r[1])], base[2 &* l &+ Int(r[2])], base[3 &* l &+ Int(r[3])],
                     base[4 &* l &+ Int(r[4])], base[5 &* l &+ Int(r[5])], base[6 &* l &+ Int(r[6])], base[7 &* l &+ Int(r[7])])
    }

    /// One side's network for one frame: reads each line (`whole` frames behind, through
    /// the allpass of coefficient `a`), filters, mixes by the Hadamard transform and writes
    /// back with the input `x` injected; returns the sum of the lines' outputs (signed).
    @_noLocks @inline(__always)
    func network(base: UnsafeMutablePointer<Float>, write: Int, whole: SIMD8<Int32>, a: SIMD8<Float>, c: SIMD8<Float>, b: SIMD8<Float>,
                 filter: inout SIMD8<Float>, interpolated: inout SIMD8<Float>, previous: inout SIMD8<Float>, blockStart: Bool, x: Float) -> Float {
        let mask = SIMD8<Int32>(repeating: Int32(lineFrames - 1))
        let r = (SIMD8<Int32>(repeating: Int32(truncatingIfNeeded: write)) &- whole) & mask
        // The sample one frame further back is the one this frame read last frame (the
        // read holds its distance through the block): read again only at a block's start.
        let y0 = gather(base, r), y1 = blockStart ? gather(base, (r &- 1) & mask) : previous
        previous = y0
        let y = a * (y0 - interpolated) + y1
        interpolated = y
        filter = c * y + b * filter
        let mixed = Reverb.hadamard(filter)
        // Injection with alternating signs; the tiny offset keeps the loop out of denormals
        // on a thread without flush-to-zero.
        let next = mixed + SIMD8<Float>(1, -1, 1, -1, 1, -1, 1, -1) * (x * 0.353_553_39) + 1e-20
        let l = lineFrames
        base[write] = next[0]; base[l &+ write] = next[1]; base[2 &* l &+ write] = next[2]; base[3 &* l &+ write] = next[3]
        base[4 &* l &+ write] = next[4]; base[5 &* l &+ write] = next[5]; base[6 &* l &+ write] = next[6]; base[7 &* l &+ write] = next[7]
        let signed = y * SIMD8<Float>(1, 1, -1, -1, 1, -1, 1, -1)
        let q = signed.lowHalf + signed.highHalf
        let p = q.lowHalf + q.highHalf
        return p[0] + p[1]
    }

    /// The Hadamard matrix / √8 times `v`: three butterfly stages (even/odd halves).
    @_noLocks @inline(__always)
    static func hadamard(_ v: SIMD8<Float>) -> SIMD8<Float> {
        var w = v
        var k = 0
        while k < 3 {
            let e = w.evenHalf, o = w.oddHalf
            w = SIMD8(lowHalf: e + o, highHalf: e - o)
            k += 1
        }
        return w * 0.353_553_39
    }

    /// One allpass diffuser (index `k`) on `x`.
    @_noLocks @inline(__always)
    func diffuse(_ x: Float, _ k: Int, write: Int32, length: Int32) -> Float {
        let ring = diffusers + k &* 8192
        let delayed = ring[Int((write &- length) & 8191)]
        let g = Reverb.diffuserGain
        let y = delayed - g * x
        ring[Int(write & 8191)] = x + g * y
        return y
    }

    /// Adds the reverb of `input` (interleaved stereo, `frames` frames) into `out`.
    /// Returns the largest absolute sample it added (its tail's level).
    /// - Thread: render.
    @_noLocks
    public func process(_ input: UnsafePointer<Float>, into out: UnsafeMutablePointer<Float>, frames: Int) -> Float {
        var s = state.pointee
        var peak: Float = 0
        let glide = Float(5 / (Reverb.coefficientGlide * rate))
        let mask = lineFrames - 1
        var n = 0
        while n < frames {
            if s.settling > 0 {
                s.cL += (s.cLTarget - s.cL) * glide; s.bL += (s.bLTarget - s.bL) * glide
                s.cR += (s.cRTarget - s.cR) * glide; s.bR += (s.bRTarget - s.bR) * glide
                s.own += (s.ownTarget - s.own) * glide; s.cross += (s.crossTarget - s.cross) * glide
                s.settling -= 1
                if s.settling == 0 {
                    s.cL = s.cLTarget; s.bL = s.bLTarget; s.cR = s.cRTarget; s.bR = s.bRTarget
                    s.own = s.ownTarget; s.cross = s.crossTarget
                }
            }
            pre[2 &* s.preWrite] = input[2 &* n]
            pre[2 &* s.preWrite &+ 1] = input[2 &* n &+ 1]
            var r = s.preWrite &- s.preDelay
            if r < 0 { r &+= preFrames }
            var xl = pre[2 &* r], xr = pre[2 &* r &+ 1]
            s.preWrite &+= 1
            if s.preWrite == preFrames { s.preWrite = 0 }
            let dw = s.diffuserWrite, dl = s.diffuserLength
            xl = diffuse(diffuse(xl, 0, write: dw[0], length: dl[0]), 1, write: dw[1], length: dl[1])
            xr = diffuse(diffuse(xr, 2, write: dw[2], length: dl[2]), 3, write: dw[3], length: dl[3])
            s.diffuserWrite &+= 1
            if s.blockLeft == 0 {
                (s.wholeL, s.aL) = Reverb.wander(length: s.lengthL, phase: &s.phaseL, step: s.stepL, depth: s.depth)
                (s.wholeR, s.aR) = Reverb.wander(length: s.lengthR, phase: &s.phaseR, step: s.stepR, depth: s.depth)
                s.blockLeft = 8
            }
            let start = s.blockLeft == 8
            s.blockLeft &-= 1
            let l = network(base: buffer, write: s.write, whole: s.wholeL, a: s.aL, c: s.cL, b: s.bL,
                            filter: &s.filterL, interpolated: &s.allpassL, previous: &s.previousL, blockStart: start, x: xl)
            let rr = network(base: buffer + 8 &* lineFrames, write: s.write, whole: s.wholeR, a: s.aR, c: s.cR, b: s.bR,
                             filter: &s.filterR, interpolated: &s.allpassR, previous: &s.previousR, blockStart: start, x: xr)
            s.write = (s.write &+ 1) & mask
            let ol = s.own * l + s.cross * rr, or = s.own * rr + s.cross * l
            out[2 &* n] += ol
            out[2 &* n &+ 1] += or
            peak = max(peak, max(abs(ol), abs(or)))
            n &+= 1
        }
        state.pointee = s
        return peak
    }
}

/// The reverb's controls.
public struct ReverbSettings: Sendable, Equatable {
    /// Decay time T₆₀, seconds (0.2…20): the time the tail takes to fall 60 dB.
    public var decaySeconds: Double = 2.2
    /// High-frequency damping, 0 (none: highs decay as long as lows)…1 (highs decay 10×
    /// faster).
    public var damping: Double = 0.35
    /// Pre-delay before the reverb, seconds (0…0.25). Set at setup.
    public var preDelaySeconds: Double = 0.015
    /// Room size 0…1: the lines' lengths ×0.5…1.6 (denser and smaller at 0). Set at setup.
    public var size: Double = 0.5
    /// Stereo width 0 (mono: both sides the same)…1 (each side its own tail).
    public var width: Double = 1
    /// Return level, linear gain (0…2).
    public var returnLevel: Double = 1

    @_noLocks public init() {}

    /// Some control differs from `other`'s (field by field: the synthesized `==` is not
    /// checked-safe on the render thread).
    @_noLocks
    public func differs(from other: ReverbSettings) -> Bool {
        decaySeconds != other.decaySeconds || damping != other.damping || preDelaySeconds != other.preDelaySeconds
            || size != other.size || width != other.width || returnLevel != other.returnLevel
    }
}
