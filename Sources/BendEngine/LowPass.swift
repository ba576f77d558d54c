// SPDX-License-Identifier: GPL-3.0-or-later
/// The per-voice low-pass filter: its settings, its coefficients (`LowPassGrid`) and one
/// voice's state (`LowPassState`).
///
/// The filter is the state-variable filter of A. Simper, "Linear Trapezoidal Integrated
/// SVF" (Cytomic technical paper, 2013): per sample, with g = tan(π·fc/rate), k = 1/Q,
/// a1 = 1/(1 + g(g + k)), a2 = g·a1, a3 = g·a2:
///   v3 = x − ic2, v1 = a1·ic1 + a2·v3, v2 = ic2 + a2·ic1 + a3·v3,
///   ic1 = 2·v1 − ic1, ic2 = 2·v2 − ic2, low = v2.
/// It is linear in its state s = (ic1, ic2): s' = A·s + B·x, y = C·s + D·x, so 8 samples
/// at once are y = T·x + P·s and s₈ = A⁸·s + Q·x (T the lower-triangular Toeplitz matrix
/// of the impulse response h₀ = D, h_j = C·A^(j−1)·B; P's rows C·Aⁿ; Q's columns
/// A^(7−m)·B). `LowPassGrid` holds those per cutoff, so a block costs 8 broadcasts and
/// 10 multiply-adds for y and two dot products for the state — no per-sample chain (the
/// kernel's lanes stay independent). The −3 dB point of the low-pass output is fc
/// exactly at Q = 1/√2 (the trapezoidal rule's frequency warping is undone by the tan).
public struct FilterSettings: Sendable, Equatable {
    /// The cutoff at timbre 0 and at timbre 1, Hz; between them the cutoff is
    /// exponential in the timbre: fc = low·(high/low)^timbre.
    public var lowHz: Double
    public var highHz: Double
    /// Resonance as the filter's Q (0.5…20): 1/√2 is flat (Butterworth), higher peaks
    /// at the cutoff.
    public var q: Double
    /// A voice's timbre before its touch says any (0…1).
    public var initialTimbre: Double
    /// A pad touch's y is its timbre, not its gain (`--y-map cutoff`; read by the control
    /// ports, BendControl's `ControlPort`).
    public var padYIsTimbre: Bool

    public init(lowHz: Double = 40, highHz: Double = 18_000, q: Double = 0.5.squareRoot(), initialTimbre: Double = 1,
                padYIsTimbre: Bool = false) {
        self.lowHz = lowHz
        self.highHz = highHz
        self.q = q
        self.initialTimbre = initialTimbre
        self.padYIsTimbre = padYIsTimbre
    }

    /// The cutoff for `timbre` (clamped to 0…1), Hz.
    public func cutoff(timbre: Double) -> Double {
        lowHz * SetupMath.exp(min(max(timbre, 0), 1) * SetupMath.log(highHz / lowHz))
    }
}

/// The filter's coefficients at `steps` cutoffs (timbre i/(steps − 1)): one record per
/// cutoff (`Record`). A voice's block reads the record nearest its timbre at the
/// block's middle: 1024 steps over the timbre's range put neighbouring cutoffs 10 cents
/// (0.6 %) apart for 40 Hz…18 kHz (8.8 octaves / 1023), far below a step a sweep could
/// be heard to take. Immutable after `init`.
struct LowPassGrid {
    /// The block form of one cutoff's filter: the columns of T, P's two columns, Q's two
    /// rows (lanes n or m), A⁸ and the per-sample coefficients (a1, a2, a3). P's second
    /// column and A⁸ are near 1 and the identity at low cutoffs (g ≪ 1), so they are
    /// held as their difference from them: in Float, A⁸ itself would lose the small part
    /// that is the filter (its poles would move, and a resonant low cutoff drift from
    /// the per-sample filter by −40 dB).
    struct Record {
        var t: (SIMD8<Float>, SIMD8<Float>, SIMD8<Float>, SIMD8<Float>, SIMD8<Float>, SIMD8<Float>, SIMD8<Float>, SIMD8<Float>)
        var p0: SIMD8<Float>
        /// P's second column − 1.
        var p1: SIMD8<Float>
        var q0: SIMD8<Float>
        var q1: SIMD8<Float>
        /// A⁸ − I row by row, then a1, a2, a3, and one Float of padding.
        var a8: SIMD8<Float>
    }

    static var steps: Int { @_noLocks @inline(__always) get { 1024 } }
    let records: UnsafeMutablePointer<Record>

    /// - Thread: setup.
    init(_ settings: FilterSettings, rate: Double) {
        records = .allocate(capacity: LowPassGrid.steps)
        let nyquistSafe = 0.49 * rate
        for i in 0..<LowPassGrid.steps {
            let fc = min(settings.cutoff(timbre: Double(i) / Double(LowPassGrid.steps - 1)), nyquistSafe)
            (records + i).initialize(to: LowPassGrid.record(cutoff: fc, q: min(max(settings.q, 0.5), 20), rate: rate))
        }
    }

    func deallocate() { records.deallocate() }

    /// The record of the cutoff nearest timbre `t` (clamped to 0…1).
    @_noLocks @inline(__always)
    func record(timbre t: Float) -> UnsafePointer<Record> {
        let i = Int(min(max(t, 0), 1) * Float(LowPassGrid.steps - 1) + 0.5)
        return UnsafePointer(records + i)
    }

    /// The block form of the filter at `cutoff` Hz, quality `q`, at `rate` (Double, then
    /// rounded to Float).
    static func record(cutoff: Double, q: Double, rate: Double) -> Record {
        let g = SetupMath.tan(Double.pi * cutoff / rate), k = 1 / q
        let a1 = 1 / (1 + g * (g + k)), a2 = g * a1, a3 = g * a2
        let a = [[2 * a1 - 1, -2 * a2], [2 * a2, 1 - 2 * a3]], b = [2 * a2, 2 * a3], c = [a2, 1 - a3], d = a3
        func times(_ m: [[Double]], _ v: [Double]) -> [Double] { [m[0][0] * v[0] + m[0][1] * v[1], m[1][0] * v[0] + m[1][1] * v[1]] }
        func rowTimes(_ r: [Double], _ m: [[Double]]) -> [Double] { [r[0] * m[0][0] + r[1] * m[1][0], r[0] * m[0][1] + r[1] * m[1][1]] }
        // C·Aⁿ (n = 0…8) and Aⁿ·B (n = 0…7).
        var rows = [c], cols = [b]
        for _ in 0..<8 { rows.append(rowTimes(rows.last!, a)) }
        for _ in 0..<7 { cols.append(times(a, cols.last!)) }
        let h = [d] + (0..<7).map { j in rows[j][0] * b[0] + rows[j][1] * b[1] }  // h_(j+1) = C·A^j·B
        func column(_ m: Int) -> SIMD8<Float> {
            var v = SIMD8<Float>()
            for n in m..<8 { v[n] = Float(h[n - m]) }
            return v
        }
        // A⁸ − I, accumulated as a difference: (I + E)·A = I + (E·A + A − I).
        var e = [[0.0, 0.0], [0.0, 0.0]]
        let am = [[a[0][0] - 1, a[0][1]], [a[1][0], a[1][1] - 1]]  // A − I
        for _ in 0..<8 {
            let ea = [rowTimes(e[0], a), rowTimes(e[1], a)]
            e = [[ea[0][0] + am[0][0], ea[0][1] + am[0][1]], [ea[1][0] + am[1][0], ea[1][1] + am[1][1]]]
        }
        // C·Aⁿ's second entry − 1, accumulated the same way: c1 − 1 = −a3, then
        // (d0, 1 + d1)·A = (d0·A00 + A10 + d1·A10, d0·A01 + (A11 − 1) + d1·A11) + (·, 1).
        var dev = [a2, -a3]
        var p1dev = [Double](repeating: 0, count: 8)
        for n in 0..<8 {
            p1dev[n] = dev[1]
            dev = [dev[0] * a[0][0] + a[1][0] + dev[1] * a[1][0], dev[0] * a[0][1] + (a[1][1] - 1) + dev[1] * a[1][1]]
        }
        var p0 = SIMD8<Float>(), p1 = SIMD8<Float>(), q0 = SIMD8<Float>(), q1 = SIMD8<Float>()
        for n in 0..<8 {
            p0[n] = Float(rows[n][0]); p1[n] = Float(p1dev[n])
            q0[n] = Float(cols[7 - n][0]); q1[n] = Float(cols[7 - n][1])
        }
        return Record(t: (column(0), column(1), column(2), column(3), column(4), column(5), column(6), column(7)),
                      p0: p0, p1: p1, q0: q0, q1: q1,
                      a8: SIMD8(Float(e[0][0]), Float(e[0][1]), Float(e[1][0]), Float(e[1][1]), Float(a1), Float(a2), Float(a3), 0))
    }
}

/// One voice's filter through a span: the grid, the timbre's glide (as at the span's
/// first frame: its target, change per frame, frames left) and each channel's state.
/// Copied from `VoiceBank` at the span's start, written back at its end (`Mixer`).
struct LowPassFilter {
    let grid: LowPassGrid
    let timbreTarget: Float
    let timbreStep: Float
    let timbreLeft: Int32
    var left: LowPassState
    var right: LowPassState

    @_noLocks @inline(__always)
    init(grid: LowPassGrid, timbreTarget: Float, timbreStep: Float, timbreLeft: Int32, left: LowPassState, right: LowPassState) {
        self.grid = grid
        self.timbreTarget = timbreTarget
        self.timbreStep = timbreStep
        self.timbreLeft = timbreLeft
        self.left = left
        self.right = right
    }

    /// The block at frame `n0` of the span (`frames` of its 8 lanes the voice's) through
    /// the filter at the timbre of the block's middle: `processStereo`, or `processMono`
    /// (its output on both sides). `stereo` is each caller's constant, so only one of them
    /// is compiled in.
    @_noLocks @inline(__always)
    mutating func block(at n0: Int32, left x: SIMD8<Float>, right xr: SIMD8<Float>, stereo: Bool, frames: Int32) -> (SIMD8<Float>, SIMD8<Float>) {
        if stereo { return processStereo(at: n0, left: x, right: xr, frames: frames) }
        let m = processMono(at: n0, x, frames: frames)
        return (m, m)
    }

    /// The coefficients at the timbre of the block at `n0`'s middle.
    @_noLocks @inline(__always)
    func record(at n0: Int32) -> UnsafePointer<LowPassGrid.Record> {
        grid.record(timbre: timbreTarget - timbreStep * Float(max(timbreLeft &- n0 &- 4, 0)))
    }

    // Both out of line: inlined, they made `VoiceBlock.mix` too large to be inlined into
    // the mixing loop for a filtered voice (every block a call with all its arguments in
    // memory: 2.6× a plain voice's instructions, 2.2× with the call here); and apart, the
    // mono one keeps no stereo state in registers or on the stack (51.3 → 46.2
    // instructions per voice-frame, `make bench-icount`).

    /// A mono voice's block: the left channel's filter.
    @_noLocks @inline(never)
    mutating func processMono(at n0: Int32, _ x: SIMD8<Float>, frames: Int32) -> SIMD8<Float> {
        let record = record(at: n0)
        return frames < 8 ? left.partial(x, record, count: frames) : left.block(x, record)
    }

    /// A stereo voice's block: both channels' filters.
    @_noLocks @inline(never)
    mutating func processStereo(at n0: Int32, left x: SIMD8<Float>, right xr: SIMD8<Float>, frames: Int32) -> (SIMD8<Float>, SIMD8<Float>) {
        let record = record(at: n0)
        if frames < 8 { return (left.partial(x, record, count: frames), right.partial(xr, record, count: frames)) }
        return (left.block(x, record), right.block(xr, record))
    }
}

/// How a special voice's samples reach the buses (`Mixer.mixSpecialVoice`).
enum VoiceLayout {
    /// A mono voice at the centre: the mono bus.
    case mono
    /// A stereo voice: the left and right buses.
    case stereo
    /// A mono voice with a pan of its own: the left and right buses.
    case panned
}

/// One channel's filter state (ic1, ic2) through 8-sample blocks (`LowPassGrid`).
struct LowPassState {
    var s0: Float
    var s1: Float

    @_noLocks @inline(__always)
    init(_ s0: Float, _ s1: Float) { self.s0 = s0; self.s1 = s1 }

    /// The filter's output for the 8 samples `x` with record `r`, the state advanced by 8.
    @_noLocks @inline(__always)
    mutating func block(_ x: SIMD8<Float>, _ r: UnsafePointer<LowPassGrid.Record>) -> SIMD8<Float> {
        let t = r.pointee.t
        var y = multiplyAdd(r.pointee.p0, SIMD8(repeating: s0), multiplyAdd(r.pointee.p1, SIMD8(repeating: s1), SIMD8(repeating: s1)))
        y = multiplyAdd(t.0, SIMD8(repeating: x[0]), y)
        y = multiplyAdd(t.1, SIMD8(repeating: x[1]), y)
        y = multiplyAdd(t.2, SIMD8(repeating: x[2]), y)
        y = multiplyAdd(t.3, SIMD8(repeating: x[3]), y)
        y = multiplyAdd(t.4, SIMD8(repeating: x[4]), y)
        y = multiplyAdd(t.5, SIMD8(repeating: x[5]), y)
        y = multiplyAdd(t.6, SIMD8(repeating: x[6]), y)
        y = multiplyAdd(t.7, SIMD8(repeating: x[7]), y)
        let a8 = r.pointee.a8
        let n0 = s0 + (LowPassState.sum(r.pointee.q0 * x) + a8[0] * s0 + a8[1] * s1)
        let n1 = s1 + (LowPassState.sum(r.pointee.q1 * x) + a8[2] * s0 + a8[3] * s1)
        s0 = n0
        s1 = n1
        return y
    }

    /// The filter's output for the first `count` (1…7) samples of `x`, sample by sample
    /// (the last block of a span that is not whole); the other lanes 0.
    @_noLocks @inline(never)
    mutating func partial(_ x: SIMD8<Float>, _ r: UnsafePointer<LowPassGrid.Record>, count: Int32) -> SIMD8<Float> {
        let a1 = r.pointee.a8[4], a2 = r.pointee.a8[5], a3 = r.pointee.a8[6]
        var y = SIMD8<Float>()
        var n = 0
        while n < Int(count) {
            let v3 = x[n] - s1
            let v1 = a1 * s0 + a2 * v3
            let v2 = s1 + a2 * s0 + a3 * v3
            s0 = 2 * v1 - s0
            s1 = 2 * v2 - s1
            y[n] = v2
            n += 1
        }
        return y
    }

    /// The sum of the 8 lanes.
    @_noLocks @inline(__always)
    static func sum(_ v: SIMD8<Float>) -> Float {
        let q = v.lowHalf + v.highHalf
        let p = q.lowHalf + q.highHalf
        return p[0] + p[1]
    }
}

/// Double math for setup (the engine has no libm): exp, log and tan, each to within
/// a few ulps over the ranges used (the filter's cutoffs and their tangents).
enum SetupMath {
    /// eˣ: 2^k · e^r with r = x − k·ln 2 in ±ln 2 / 2, Taylor to r²⁰.
    static func exp(_ x: Double) -> Double {
        let ln2 = 0.693_147_180_559_945_3
        let k = (x / ln2).rounded()
        let r = x - k * ln2
        var term = 1.0, sum = 1.0
        for n in 1...20 { term *= r / Double(n); sum += term }
        return sum * Double(sign: .plus, exponent: Int(k), significand: 1)
    }

    /// ln x for x > 0: x = m·2^e, m in [1, 2), ln m = 2·atanh((m − 1)/(m + 1)).
    static func log(_ x: Double) -> Double {
        let e = x.exponent, m = x.significand
        let z = (m - 1) / (m + 1), z2 = z * z
        var term = z, sum = 0.0
        for n in stride(from: 1, through: 61, by: 2) { sum += term / Double(n); term *= z2 }
        return 2 * sum + Double(e) * 0.693_147_180_559_945_3
    }

    /// tan x for x in [0, π/2): sin x / cos x, each by its Taylor series (to x³⁵).
    static func tan(_ x: Double) -> Double {
        var s = 0.0, c = 0.0, term = 1.0
        for n in 0...35 {
            if n > 0 { term *= x / Double(n) }
            switch n % 4 {
            case 0: c += term
            case 1: s += term
            case 2: c -= term
            default: s -= term
            }
        }
        return s / c
    }
}
