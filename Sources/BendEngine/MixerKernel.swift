/// The per-voice inner loop and the pan stage of `Mixer`, 8 frames per step in SIMD8
/// vectors.
///
/// Every per-frame value is a closed form of the frame number n within the segment, so
/// lanes are independent (no per-sample branches, no loop-carried multiply chains):
/// - glide: g(n) = max(glideLeft − n, 0); increment(n) = incTarget − incStep·g(n);
///   gain(n) = gainTarget − gainStep·g(n)
/// - phase(n) = phase(0) + Σ_{i<n} increment(i) = phase(0) + n·incTarget − incStep·G(n),
///   G(n) = Σ_{i<n} max(glideLeft − i, 0) = m·glideLeft − m(m−1)/2 with m = min(n, glideLeft)
///   (exact integers; the read position is phase(n) mod the loop)
/// - envelope(n) = smoothstep(clamp(ramp + rampStep·(n+1), 0, 1))
/// - fade(n) = min(ratio(n)/silenceRatio, 1), ratio(n) = increment(n)·2^−fractionBits
/// - sample(n) = hermite4 of the 4 tone frames around phase(n), times gain·envelope·fade.
///
/// Inside an 8-frame block each lane's phase is the block's base phase (Int64, wrapped at
/// `ToneTable.loopFrames`) plus a 32-bit lane offset (≤ 57 frames); the table's guard
/// frames cover reads past the loop end, so there is no wrap test per sample.
extension Mixer {
    /// Adds voice `v` into `mix[0..<count]` (and, harmlessly, up to the next multiple of
    /// 8) and advances its state by `count` frames.
    /// - Thread: render.
    /// `mixVoice` with 4-point Hermite interpolation, compiled on its own.
    @_noLocks @inline(never)
    func mixVoiceCubic(_ v: Int, into mix: UnsafeMutablePointer<Float>, count: Int) {
        mixVoice(v, into: mix, count: count, cubic: true)
    }

    /// `mixVoice` with linear interpolation, compiled on its own.
    @_noLocks @inline(never)
    func mixVoiceLinear(_ v: Int, into mix: UnsafeMutablePointer<Float>, count: Int) {
        mixVoice(v, into: mix, count: count, cubic: false)
    }

    /// `cubic`: 4-point Hermite (`hermite4`), else linear between the two nearest frames;
    /// a constant at each call site, so the loop is compiled once for each.
    @_noLocks @inline(__always)
    func mixVoice(_ v: Int, into mix: UnsafeMutablePointer<Float>, count: Int, cubic: Bool) {
        let coefficients = tone.coefficients
        let stride = tone.coefficientStride
        let bits = Mixer.fractionBits
        let loop = Int64(tone.loopFrames) << Int64(bits)
        let incTarget = voices.incTarget[v]
        let incStep = voices.incStep[v]
        let glideLeft = voices.glideLeft[v]
        let gainTarget = voices.gainTarget[v]
        let gainStep = voices.gainStep[v]
        let ramp0 = voices.ramp[v]
        let rampStep = voices.rampStep[v]
        let phase0 = voices.phase[v]

        let lanes = SIMD8<Int32>(0, 1, 2, 3, 4, 5, 6, 7)
        let lanesF = SIMD8<Float>(0, 1, 2, 3, 4, 5, 6, 7)
        let laneInc = lanes &* incTarget  // j·incTarget
        let fractionMask = SIMD8<Int32>(repeating: Int32((1 << bits) - 1))
        let unit = 1 / Float(1 << bits)
        let fadeScale = unit / Mixer.silenceRatio
        var base = phase0
        var frameNumber = lanesF + 1  // n + 1 of each lane, exact in Float below 2^24
        var n0: Int32 = 0
        let end = Int32(count)
        while n0 < end {
            let r = glideLeft &- n0  // glide frames left at the block's first frame (may be < 0)
            let rLanes = SIMD8<Int32>(repeating: r)
            // Lane offsets: Σ_{i<j} increment(n0+i) = j·incTarget − incStep·Σ_{i<j} max(r−i, 0).
            let m = lanewiseMin(lanes, SIMD8(repeating: max(r, 0)))
            let glideSum = m &* rLanes &- ((m &* (m &- 1)) &>> 1)
            let offset = laneInc &- glideSum &* incStep
            let g = lanewiseMax(rLanes &- lanes, SIMD8<Int32>())
            let inc = SIMD8<Int32>(repeating: incTarget) &- g &* incStep

            let position = SIMD8<Int32>(repeating: Int32(truncatingIfNeeded: base) & ((1 << bits) - 1)) &+ offset
            let whole = SIMD8<Int32>(repeating: Int32(truncatingIfNeeded: base >> Int64(bits))) &+ (position &>> Int32(bits))
            let t = SIMD8<Float>(position & fractionMask) * unit

            // 8 scalar loads per coefficient array (structure of arrays: no transpose).
            // (Indices are ≥ 0: as UInt32 they widen for free.)
            let w = SIMD8<UInt32>(truncatingIfNeeded: whole)
            let i0 = Int(w[0]), i1 = Int(w[1]), i2 = Int(w[2]), i3 = Int(w[3])
            let i4 = Int(w[4]), i5 = Int(w[5]), i6 = Int(w[6]), i7 = Int(w[7])
            @inline(__always) func column(_ k: Int) -> SIMD8<Float> {
                let c = coefficients + k &* stride
                return SIMD8<Float>(c[i0], c[i1], c[i2], c[i3], c[i4], c[i5], c[i6], c[i7])
            }
            let y: SIMD8<Float>
            if cubic {  // hermite4, lane-wise: ((c3·t + c2)·t + c1)·t + y0
                y = multiplyAdd(multiplyAdd(multiplyAdd(column(3), t, column(2)), t, column(1)), t, column(0))
            } else {    // y0 + (y1 − y0)·t
                y = multiplyAdd(column(4), t, column(0))
            }

            let gain = SIMD8<Float>(repeating: gainTarget) - gainStep * SIMD8<Float>(g)
            let fade = lanewiseMin(SIMD8<Float>(inc) * fadeScale, SIMD8<Float>(repeating: 1))
            let rampLinear = multiplyAdd(SIMD8<Float>(repeating: rampStep), frameNumber, SIMD8<Float>(repeating: ramp0))
            frameNumber += 8
            let ramp = lanewiseMin(lanewiseMax(rampLinear, SIMD8<Float>()), SIMD8<Float>(repeating: 1))
            let envelope = ramp * ramp * (3 - 2 * ramp)

            let slot = UnsafeMutableRawPointer(mix + Int(n0))
            let sum = multiplyAdd(y, gain * envelope * fade, slot.loadUnaligned(as: SIMD8<Float>.self))
            slot.storeBytes(of: sum, as: SIMD8<Float>.self)

            // Next block's base: the same sum over all 8 lanes, wrapped once.
            let m8 = min(max(r, 0), 8)
            let blockSum = Int64(8 &* incTarget) &- Int64(m8 &* r &- ((m8 &* (m8 &- 1)) >> 1)) &* Int64(incStep)
            base &+= blockSum
            base &-= loop & -Int64(truncatingIfNeeded: (base >= loop ? 1 : 0) as Int8)
            n0 &+= 8
        }

        // The exact state after `count` frames: the block loop's base when `count` is a
        // whole number of blocks, else the closed form (one division).
        if end & 7 == 0 {
            voices.phase[v] = base
        } else {
            let mc = Int64(min(end, max(glideLeft, 0)))
            let glideTotal = mc &* Int64(glideLeft) &- ((mc &* (mc &- 1)) >> 1)
            let advanced = phase0 &+ Int64(end) &* Int64(incTarget) &- glideTotal &* Int64(incStep)
            voices.phase[v] = advanced % loop
        }
        voices.glideLeft[v] = max(glideLeft &- end, 0)
        voices.ramp[v] = min(max(ramp0 + rampStep * Float(end), 0), 1)
    }

    /// Equal-power pan of the mono mix `mix[0..<count]` into interleaved stereo `out`,
    /// the pan gliding per frame; advances the pan glide by `count` frames.
    /// - Thread: render.
    @_noLocks
    func panToStereo(_ mix: UnsafeMutablePointer<Float>, into out: UnsafeMutablePointer<Float>, count: Int) {
        let s = state.pointee
        let lanes = SIMD8<Int32>(0, 1, 2, 3, 4, 5, 6, 7)
        let quarterPi = SIMD8<Float>(repeating: Float.pi / 4)
        var n0: Int32 = 0
        let end = Int32(count)
        while n0 < end {
            let g = lanewiseMax(SIMD8<Int32>(repeating: s.panLeft &- n0) &- lanes, SIMD8<Int32>())
            let pan = SIMD8<Float>(repeating: s.panTarget) - s.panStep * SIMD8<Float>(g)
            let clamped = lanewiseMin(lanewiseMax(pan, SIMD8<Float>(repeating: -1)), SIMD8<Float>(repeating: 1))
            let theta = (clamped + 1) * quarterPi
            let left = EqualPowerPan.cosine(theta)
            let right = EqualPowerPan.cosine(2 * quarterPi - theta)
            let x = UnsafeRawPointer(mix + Int(n0)).loadUnaligned(as: SIMD8<Float>.self)
            let l = x * left
            let r = x * right
            let o = out + 2 * Int(n0)
            if end - n0 >= 8 {
                UnsafeMutableRawPointer(o).storeBytes(
                    of: SIMD16<Float>(l[0], r[0], l[1], r[1], l[2], r[2], l[3], r[3],
                                      l[4], r[4], l[5], r[5], l[6], r[6], l[7], r[7]), as: SIMD16<Float>.self)
            } else {
                var j = 0
                while j < Int(end - n0) {
                    o[2 * j] = l[j]
                    o[2 * j + 1] = r[j]
                    j += 1
                }
            }
            n0 &+= 8
        }
        state.pointee.panLeft = max(s.panLeft &- end, 0)
    }
}

// The stdlib's `pointwiseMin`/`pointwiseMax` on float vectors compile to an out-of-line
// scalar loop (NaN rules); a compare and select is one `minps`/`blendvps`.
@_noLocks @inline(__always)
func lanewiseMin(_ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> { a.replacing(with: b, where: b .< a) }
@_noLocks @inline(__always)
func lanewiseMax(_ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> { a.replacing(with: b, where: b .> a) }
@_noLocks @inline(__always)
func lanewiseMin(_ a: SIMD8<Int32>, _ b: SIMD8<Int32>) -> SIMD8<Int32> { a.replacing(with: b, where: b .< a) }
@_noLocks @inline(__always)
func lanewiseMax(_ a: SIMD8<Int32>, _ b: SIMD8<Int32>) -> SIMD8<Int32> { a.replacing(with: b, where: b .> a) }

/// a·b + c. Fused (one rounding, `vfmadd`) when the build targets FMA (`-D BEND_FMA`, set
/// by the Makefile with `-target-cpu haswell`); on baseline x86-64 a fused multiply-add
/// would be a libm call per lane, so it stays a multiply and an add there.
@_noLocks @inline(__always)
func multiplyAdd(_ a: SIMD8<Float>, _ b: SIMD8<Float>, _ c: SIMD8<Float>) -> SIMD8<Float> {
    #if BEND_FMA
    return c.addingProduct(a, b)
    #else
    return a * b + c
    #endif
}
