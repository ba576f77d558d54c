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
    /// `cubic`: 4-point Hermite (`hermite4`), else linear between the two nearest frames;
    /// a constant at each call site, so the loop is compiled once for each.
    @_noLocks @inline(__always)
    func mixVoice(_ v: Int, into mix: UnsafeMutablePointer<Float>, count: Int, cubic: Bool) {
        let table = UnsafeRawPointer(tone.storage)
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

            // The 4 taps of each lane: one unaligned 16-byte load, then transposed.
            let q0 = table.loadUnaligned(fromByteOffset: Int(whole[0]) &* 4, as: SIMD4<Float>.self)
            let q1 = table.loadUnaligned(fromByteOffset: Int(whole[1]) &* 4, as: SIMD4<Float>.self)
            let q2 = table.loadUnaligned(fromByteOffset: Int(whole[2]) &* 4, as: SIMD4<Float>.self)
            let q3 = table.loadUnaligned(fromByteOffset: Int(whole[3]) &* 4, as: SIMD4<Float>.self)
            let q4 = table.loadUnaligned(fromByteOffset: Int(whole[4]) &* 4, as: SIMD4<Float>.self)
            let q5 = table.loadUnaligned(fromByteOffset: Int(whole[5]) &* 4, as: SIMD4<Float>.self)
            let q6 = table.loadUnaligned(fromByteOffset: Int(whole[6]) &* 4, as: SIMD4<Float>.self)
            let q7 = table.loadUnaligned(fromByteOffset: Int(whole[7]) &* 4, as: SIMD4<Float>.self)
            let ym1 = SIMD8<Float>(q0[0], q1[0], q2[0], q3[0], q4[0], q5[0], q6[0], q7[0])
            let y0 = SIMD8<Float>(q0[1], q1[1], q2[1], q3[1], q4[1], q5[1], q6[1], q7[1])
            let y1 = SIMD8<Float>(q0[2], q1[2], q2[2], q3[2], q4[2], q5[2], q6[2], q7[2])
            let y2 = SIMD8<Float>(q0[3], q1[3], q2[3], q3[3], q4[3], q5[3], q6[3], q7[3])
            let y: SIMD8<Float>
            if cubic {  // hermite4, lane-wise
                let c1 = 0.5 * (y1 - ym1)
                let c2 = ym1 - 2.5 * y0 + 2 * y1 - 0.5 * y2
                let c3 = 0.5 * (y2 - ym1) + 1.5 * (y0 - y1)
                y = ((c3 * t + c2) * t + c1) * t + y0
            } else {
                y = y0 + (y1 - y0) * t
            }

            let gain = SIMD8<Float>(repeating: gainTarget) - gainStep * SIMD8<Float>(g)
            let fade = lanewiseMin(SIMD8<Float>(inc) * fadeScale, SIMD8<Float>(repeating: 1))
            let rampLinear = ramp0 + rampStep * (SIMD8<Float>(repeating: Float(n0 + 1)) + lanesF)
            let ramp = lanewiseMin(lanewiseMax(rampLinear, SIMD8<Float>()), SIMD8<Float>(repeating: 1))
            let envelope = ramp * ramp * (3 - 2 * ramp)

            let slot = UnsafeMutableRawPointer(mix + Int(n0))
            let sum = slot.loadUnaligned(as: SIMD8<Float>.self) + y * (gain * envelope * fade)
            slot.storeBytes(of: sum, as: SIMD8<Float>.self)

            // Next block's base: the same sum over all 8 lanes, wrapped once.
            let m8 = min(max(r, 0), 8)
            let blockSum = Int64(8 &* incTarget) &- Int64(m8 &* r &- ((m8 &* (m8 &- 1)) >> 1)) &* Int64(incStep)
            base &+= blockSum
            base &-= loop & -Int64(truncatingIfNeeded: (base >= loop ? 1 : 0) as Int8)
            n0 &+= 8
        }

        // The exact state after `count` frames, in closed form.
        let mc = Int64(min(end, max(glideLeft, 0)))
        let glideTotal = mc &* Int64(glideLeft) &- ((mc &* (mc &- 1)) >> 1)
        let advanced = phase0 &+ Int64(end) &* Int64(incTarget) &- glideTotal &* Int64(incStep)
        voices.phase[v] = advanced % loop
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
