/// How `VoiceBlock` reads the tone; a constant at each call site, so the kernel is
/// compiled once for each.
enum TableRead {
    /// Straight line between the two nearest frames (`ToneTable.linearPairs`).
    case linear
    /// 4-point Hermite rows (`ToneTable.cubicRows`).
    case cubic
    /// One band-limited level's rows (`LevelTable`), 4× oversampled: the whole span
    /// lies outside every crossfade zone.
    case level
    /// Two adjacent band-limited levels per lane, blended by the lane's place in its
    /// crossfade zone: the span touches a zone.
    case blend
}

/// What every 8-frame block of one voice does once its lane offsets and levels are
/// known: read the tone at the 8 positions, interpolate, apply level and envelope, and
/// add into the mono mix. A value type of constants, built once per voice per span.
struct VoiceBlock {
    /// Cubic rows, or for `.level` the level's rows, for `.blend` level 0's rows.
    let rows: UnsafeRawPointer
    let linearPairs: UnsafePointer<Double>
    let read: TableRead
    let mix: UnsafeMutablePointer<Float>
    let rampStep: SIMD8<Float>
    let ramp0: SIMD8<Float>
    let loop: Int64
    /// The envelope is 1 over the whole span (ramp ≥ 1 and not falling): skipped.
    let sustained: Bool
    /// `.blend`: the crossfade zones the span may touch, `firstZone…lastZone` (every
    /// zone below `firstZone` lies wholly below the span's increments), the bytes from
    /// one level's rows to the next, the highest level pair's lower level, and the zones.
    let firstZone: Int
    let lastZone: Int
    let levelStride: Int
    let topPair: Int32
    let zoneStart: UnsafePointer<Int32>
    let zoneEnd: UnsafePointer<Int32>
    let zoneInverse: UnsafePointer<Float>

    @_noLocks @inline(__always)
    init(tone: ToneTable, read: TableRead, level: Int, lastZone: Int, sustained: Bool, mix: UnsafeMutablePointer<Float>,
         rampStep: Float, ramp0: Float, loop: Int64) {
        linearPairs = UnsafeRawPointer(tone.linearPairs).assumingMemoryBound(to: Double.self)
        self.read = read
        self.mix = mix
        self.rampStep = SIMD8(repeating: rampStep)
        self.ramp0 = SIMD8(repeating: ramp0)
        self.loop = loop
        self.sustained = sustained
        firstZone = level
        self.lastZone = lastZone
        switch read {
        case .linear, .cubic:
            rows = UnsafeRawPointer(tone.cubicRows)
            levelStride = 0; topPair = 0
            // Never read by these two: any valid pointer.
            zoneStart = UnsafeRawPointer(tone.cubicRows).assumingMemoryBound(to: Int32.self)
            zoneEnd = zoneStart
            zoneInverse = UnsafePointer(tone.cubicRows)
        case .level, .blend:
            let levels = tone.levels.unsafelyUnwrapped
            rows = UnsafeRawPointer(levels.rows + (read == .level ? level &* levels.stride : 0))
            levelStride = levels.stride
            topPair = Int32(levels.count - 2)
            zoneStart = UnsafePointer(levels.zoneStart)
            zoneEnd = UnsafePointer(levels.zoneEnd)
            zoneInverse = UnsafePointer(levels.zoneInverse)
        }
    }

    /// Adds frames n0 ..< n0+8 of the voice into the mix.
    /// - Parameters:
    ///   - frameNumber: n + 1 in each lane (n0 + 1 … n0 + 8).
    ///   - base: the fixed-point phase at frame n0, 0 ≤ base < loop.
    ///   - offset: each lane's phase offset from `base` (≥ 0, < 2^31).
    ///   - level: each lane's gain × edge fade.
    ///   - inc: each lane's increment (read by `.blend` only).
    @_noLocks @inline(__always)
    func mix(at n0: Int32, frameNumber: SIMD8<Float>, base: Int64, offset: SIMD8<Int32>, level: SIMD8<Float>, inc: SIMD8<Int32>) {
        let bits = Mixer.fractionBits
        let y: SIMD8<Float>
        switch read {
        case .cubic, .linear:
            let fractionMask = Int32((1 << bits) - 1)
            let position = SIMD8<Int32>(repeating: Int32(truncatingIfNeeded: base) & fractionMask) &+ offset
            let t = SIMD8<Float>(position & fractionMask) * (1 / Float(1 << bits))
            let baseFrame = Int(truncatingIfNeeded: base >> Int64(bits))
            // Lane j reads pairs of floats at its frame: (y0, c1) and (c2, c3) of its cubic
            // row, or (y0, slope) for linear. Lanes 0, 1, 4, 5 fill one vector of 4 pairs
            // and lanes 2, 3, 6, 7 another, so one `shufps` per column puts the 8 lanes in
            // order: 8 64-bit loads per column pair, no scalar inserts.
            let w = SIMD8<UInt32>(truncatingIfNeeded: position &>> Int32(bits))
            if read == .cubic {
                let o = w &<< 4  // byte offsets of the lanes' rows (≥ 0, so they widen for free)
                y = polynomial(rows + 16 &* baseFrame, Int(o[0]), Int(o[1]), Int(o[2]), Int(o[3]),
                               Int(o[4]), Int(o[5]), Int(o[6]), Int(o[7]), t: t)  // 4-point Hermite
            } else {
                let pairs = linearPairs + baseFrame
                let i0 = Int(w[0]), i1 = Int(w[1]), i2 = Int(w[2]), i3 = Int(w[3])
                let i4 = Int(w[4]), i5 = Int(w[5]), i6 = Int(w[6]), i7 = Int(w[7])
                let p = unsafeBitCast(SIMD4<Double>(pairs[i0], pairs[i1], pairs[i4], pairs[i5]), to: SIMD8<Float>.self)
                let q = unsafeBitCast(SIMD4<Double>(pairs[i2], pairs[i3], pairs[i6], pairs[i7]), to: SIMD8<Float>.self)
                y = multiplyAdd(odds(p, q), t, evens(p, q))  // y0 + (y1 − y0)·t
            }
        case .level, .blend:
            // The same phase, read in table frames (4 per tone frame): the fraction has
            // `LevelTable.shift` bits fewer.
            let shift = bits - LevelTable.shift
            let fractionMask = Int32((1 << shift) - 1)
            let position = SIMD8<Int32>(repeating: Int32(truncatingIfNeeded: base) & fractionMask) &+ offset
            let t = SIMD8<Float>(position & fractionMask) * (1 / Float(1 << shift))
            let baseRows = rows + 16 &* Int(truncatingIfNeeded: base >> Int64(shift))
            let o = SIMD8<UInt32>(truncatingIfNeeded: position &>> Int32(shift)) &<< 4
            if read == .level {
                y = polynomial(baseRows, Int(o[0]), Int(o[1]), Int(o[2]), Int(o[3]), Int(o[4]), Int(o[5]), Int(o[6]), Int(o[7]), t: t)
            } else {
                // Each lane's place among the levels: W = Σ_z clamp((inc − zoneStart_z) /
                // (zoneEnd_z − zoneStart_z), 0, 1); the lane reads level k = (zones it
                // has passed) and k + 1, blended by W − k.
                var place = SIMD8<Float>(repeating: Float(firstZone))
                var k = SIMD8<Int32>(repeating: Int32(firstZone))
                var z = firstZone
                while z <= lastZone {
                    let d = SIMD8<Float>(inc &- SIMD8<Int32>(repeating: zoneStart[z])) * zoneInverse[z]
                    place += lanewiseMin(lanewiseMax(d, SIMD8<Float>()), SIMD8<Float>(repeating: 1))
                    k &+= SIMD8<Int32>(repeating: 0).replacing(with: 1, where: inc .>= SIMD8<Int32>(repeating: zoneEnd[z]))
                    z &+= 1
                }
                k = lanewiseMin(k, SIMD8<Int32>(repeating: topPair))
                let weight = lanewiseMin(lanewiseMax(place - SIMD8<Float>(k), SIMD8<Float>()), SIMD8<Float>(repeating: 1))
                let s = levelStride
                let b0 = Int(o[0]) &+ Int(k[0]) &* s, b1 = Int(o[1]) &+ Int(k[1]) &* s
                let b2 = Int(o[2]) &+ Int(k[2]) &* s, b3 = Int(o[3]) &+ Int(k[3]) &* s
                let b4 = Int(o[4]) &+ Int(k[4]) &* s, b5 = Int(o[5]) &+ Int(k[5]) &* s
                let b6 = Int(o[6]) &+ Int(k[6]) &* s, b7 = Int(o[7]) &+ Int(k[7]) &* s
                let lower = polynomial(baseRows, b0, b1, b2, b3, b4, b5, b6, b7, t: t)
                let upper = polynomial(baseRows + s, b0, b1, b2, b3, b4, b5, b6, b7, t: t)
                y = multiplyAdd(upper - lower, weight, lower)
            }
        }
        // envelope(n) = smoothstep(clamp(ramp0 + rampStep·(n + 1), 0, 1)); exactly 1 for
        // a sustained voice (ramp0 ≥ 1, rampStep ≥ 0), which skips it.
        if sustained {
            let slot = UnsafeMutableRawPointer(mix + Int(n0))
            slot.storeBytes(of: multiplyAdd(y, level, slot.loadUnaligned(as: SIMD8<Float>.self)), as: SIMD8<Float>.self)
            return
        }
        let rampLinear = multiplyAdd(rampStep, frameNumber, ramp0)
        let ramp = lanewiseMin(lanewiseMax(rampLinear, SIMD8<Float>()), SIMD8<Float>(repeating: 1))
        let envelope = ramp * ramp * (3 - 2 * ramp)
        let slot = UnsafeMutableRawPointer(mix + Int(n0))
        let sum = multiplyAdd(y, level * envelope, slot.loadUnaligned(as: SIMD8<Float>.self))
        slot.storeBytes(of: sum, as: SIMD8<Float>.self)
    }

    /// The polynomial rows of the 8 lanes (byte offsets `o0…o7` from `rows`, 16-byte
    /// rows (a0, a1, a2, a3)) evaluated at `t`: ((a3·t + a2)·t + a1)·t + a0.
    @_noLocks @inline(__always)
    func polynomial(_ rows: UnsafeRawPointer, _ o0: Int, _ o1: Int, _ o2: Int, _ o3: Int,
                    _ o4: Int, _ o5: Int, _ o6: Int, _ o7: Int, t: SIMD8<Float>) -> SIMD8<Float> {
        @inline(__always) func pairs(_ at: Int, _ a: Int, _ b: Int, _ c: Int, _ d: Int) -> SIMD8<Float> {
            unsafeBitCast(SIMD4<Double>(rows.loadUnaligned(fromByteOffset: a &+ at, as: Double.self),
                                        rows.loadUnaligned(fromByteOffset: b &+ at, as: Double.self),
                                        rows.loadUnaligned(fromByteOffset: c &+ at, as: Double.self),
                                        rows.loadUnaligned(fromByteOffset: d &+ at, as: Double.self)),
                          to: SIMD8<Float>.self)
        }
        let p = pairs(0, o0, o1, o4, o5), q = pairs(0, o2, o3, o6, o7)
        let y0 = evens(p, q), c1 = odds(p, q)
        let r = pairs(8, o0, o1, o4, o5), u = pairs(8, o2, o3, o6, o7)
        let c2 = evens(r, u), c3 = odds(r, u)
        return multiplyAdd(multiplyAdd(multiplyAdd(c3, t, c2), t, c1), t, y0)
    }

    /// `base` advanced by one block's phase sum and wrapped once at the loop length.
    @_noLocks @inline(__always)
    func advance(_ base: Int64, by blockSum: Int64) -> Int64 {
        let next = base &+ blockSum
        return next &- (loop & -Int64(truncatingIfNeeded: (next >= loop ? 1 : 0) as Int8))
    }
}
