/// How `VoiceBlock` reads the tone: one type per way, a type parameter of the mixing
/// loop (`Mixer.mixVoice`), so the loop is specialized (compiled on its own) for each
/// and holds only its own way's code.
protocol TableRead {
    /// The rows the voice reads: `tone`'s, or those of `levels`' level (or zone)
    /// `levelIndex`.
    static func rows(_ tone: ToneTable, _ levels: LevelTable?, _ levelIndex: Int) -> UnsafeRawPointer
    /// The tone at the 8 lanes' positions `base` + `offset` (fixed-point, tone frames),
    /// interpolated; `inc`: each lane's increment (read by the crossfades only).
    static func sample(_ block: VoiceBlock, base: Int64, offset: SIMD8<Int32>, inc: SIMD8<Int32>) -> SIMD8<Float>
}

/// Straight line between the two nearest frames (`ToneTable.linearPairs`).
enum LinearRead: TableRead {
    @_noLocks @inline(__always)
    static func rows(_ tone: ToneTable, _ levels: LevelTable?, _ levelIndex: Int) -> UnsafeRawPointer { UnsafeRawPointer(tone.cubicRows) }
    @_noLocks @inline(__always)
    static func sample(_ block: VoiceBlock, base: Int64, offset: SIMD8<Int32>, inc: SIMD8<Int32>) -> SIMD8<Float> {
        let (baseFrame, w, t) = block.toneFrames(base: base, offset: offset)
        let pairs = block.linearPairs + baseFrame
        let i0 = Int(w[0]), i1 = Int(w[1]), i2 = Int(w[2]), i3 = Int(w[3])
        let i4 = Int(w[4]), i5 = Int(w[5]), i6 = Int(w[6]), i7 = Int(w[7])
        let p = unsafeBitCast(SIMD4<Double>(pairs[i0], pairs[i1], pairs[i4], pairs[i5]), to: SIMD8<Float>.self)
        let q = unsafeBitCast(SIMD4<Double>(pairs[i2], pairs[i3], pairs[i6], pairs[i7]), to: SIMD8<Float>.self)
        return multiplyAdd(odds(p, q), t, evens(p, q))  // y0 + (y1 − y0)·t
    }
}

/// 4-point Hermite rows (`ToneTable.cubicRows`).
enum CubicRead: TableRead {
    @_noLocks @inline(__always)
    static func rows(_ tone: ToneTable, _ levels: LevelTable?, _ levelIndex: Int) -> UnsafeRawPointer { UnsafeRawPointer(tone.cubicRows) }
    @_noLocks @inline(__always)
    static func sample(_ block: VoiceBlock, base: Int64, offset: SIMD8<Int32>, inc: SIMD8<Int32>) -> SIMD8<Float> {
        let (baseFrame, w, t) = block.toneFrames(base: base, offset: offset)
        let o = w &<< 4  // byte offsets of the lanes' rows (≥ 0, so they widen for free)
        return block.polynomial(block.rows + 16 &* baseFrame, Int(o[0]), Int(o[1]), Int(o[2]), Int(o[3]),
                                Int(o[4]), Int(o[5]), Int(o[6]), Int(o[7]), t: t)
    }
}

/// One band-limited level's rows (`LevelTable`), 4× oversampled: the whole span lies
/// outside every crossfade zone.
enum LevelRead: TableRead {
    @_noLocks @inline(__always)
    static func rows(_ tone: ToneTable, _ levels: LevelTable?, _ levelIndex: Int) -> UnsafeRawPointer {
        UnsafeRawPointer(levels.unsafelyUnwrapped.rows + levelIndex &* levels.unsafelyUnwrapped.stride)
    }
    @_noLocks @inline(__always)
    static func sample(_ block: VoiceBlock, base: Int64, offset: SIMD8<Int32>, inc: SIMD8<Int32>) -> SIMD8<Float> {
        let (rowOffset, o, t) = block.tableFrames(base: base, offset: offset)
        return block.polynomial(block.rows + rowOffset, Int(o[0]), Int(o[1]), Int(o[2]), Int(o[3]),
                                Int(o[4]), Int(o[5]), Int(o[6]), Int(o[7]), t: t)
    }
}

/// Two adjacent band-limited levels, the same two for every lane (`VoiceBlock.rows` and
/// `upperRows`: zone `levelIndex`'s), blended by each lane's place in the one crossfade
/// zone between them: the span touches that zone and no other (the common case).
enum CrossfadeRead: TableRead {
    @_noLocks @inline(__always)
    static func rows(_ tone: ToneTable, _ levels: LevelTable?, _ levelIndex: Int) -> UnsafeRawPointer {
        LevelRead.rows(tone, levels, levelIndex)
    }
    @_noLocks @inline(__always)
    static func sample(_ block: VoiceBlock, base: Int64, offset: SIMD8<Int32>, inc: SIMD8<Int32>) -> SIMD8<Float> {
        let (rowOffset, o, t) = block.tableFrames(base: base, offset: offset)
        // Both levels at the same byte offsets; the upper one weighted by the lane's
        // place in the zone, clamp((inc − start) / width, 0, 1).
        let o0 = Int(o[0]), o1 = Int(o[1]), o2 = Int(o[2]), o3 = Int(o[3])
        let o4 = Int(o[4]), o5 = Int(o[5]), o6 = Int(o[6]), o7 = Int(o[7])
        let lower = block.polynomial(block.rows + rowOffset, o0, o1, o2, o3, o4, o5, o6, o7, t: t)
        let upper = block.polynomial(block.upperRows + rowOffset, o0, o1, o2, o3, o4, o5, o6, o7, t: t)
        // clamp(x, 0, width) with the stdlib's concrete (loop-free) integer operations, so
        // that `VoiceBlock.mix` stays small enough to inline: a true comparison is −1,
        // x·(1 + below) zeroes x < 0, and + (width − x)·(−above) sets x > width to width.
        let x = inc &- SIMD8<Int32>(repeating: block.zoneStart)
        let one = SIMD8<Int32>(repeating: 1), width = SIMD8<Int32>(repeating: block.zoneWidth)
        let positive = x &* (one &+ (x .< SIMD8<Int32>())._storage)
        let inZone = positive &+ (width &- positive) &* (SIMD8<Int32>() &- (positive .> width)._storage)
        let weight = SIMD8<Float>(inZone) * block.zoneInverse
        return multiplyAdd(upper - lower, weight, lower)
    }
}

/// Two adjacent band-limited levels per lane, chosen per lane, blended by the lane's
/// place in its crossfade zone: the span touches more than one zone (`VoiceBlock.blend`).
enum BlendRead: TableRead {
    @_noLocks @inline(__always)
    static func rows(_ tone: ToneTable, _ levels: LevelTable?, _ levelIndex: Int) -> UnsafeRawPointer {
        UnsafeRawPointer(levels.unsafelyUnwrapped.rows)
    }
    @_noLocks @inline(__always)
    static func sample(_ block: VoiceBlock, base: Int64, offset: SIMD8<Int32>, inc: SIMD8<Int32>) -> SIMD8<Float> {
        let (rowOffset, o, t) = block.tableFrames(base: base, offset: offset)
        return block.blend(block.rows + rowOffset, o, t: t, inc: inc)
    }
}

/// What every 8-frame block of one voice does once its lane offsets and levels are
/// known: read the tone at the 8 positions, interpolate, apply level and envelope, and
/// add into the mono mix. A value type of constants, built once per voice per span.
struct VoiceBlock {
    /// Cubic rows, or for `.level` the level's rows, for `.crossfade` the lower level's,
    /// for `.blend` level 0's rows.
    let rows: UnsafeRawPointer
    /// `CrossfadeRead`: the upper level's rows (`rows` + the level stride), the zone's
    /// start and width (fixed-point increments) and 1 / its width (per increment unit).
    let upperRows: UnsafeRawPointer
    let zoneStart: Int32
    let zoneWidth: Int32
    let zoneInverse: Float
    let linearPairs: UnsafePointer<Double>
    let mix: UnsafeMutablePointer<Float>
    let rampStep: SIMD8<Float>
    let ramp0: SIMD8<Float>
    let loop: Int64
    /// The envelope is 1 over the whole span (ramp ≥ 1 and not falling): skipped.
    let sustained: Bool
    /// `.crossfade`: the zone is `firstZone`. `.blend`: the crossfade zones the span may touch, `firstZone…lastZone` (every
    /// zone below `firstZone` lies wholly below the span's increments), the levels
    /// (`LevelTable`: rows, zones).
    let firstZone: Int
    let lastZone: Int
    let levels: LevelTable?

    /// `rows`: the cubic rows, or the rows of the level read (`.level`), or of the
    /// zone's lower level (`.crossfade`), or level 0's (`.blend`); `levels`: the tone's
    /// band-limited levels for `.crossfade` and `.blend` (else unused). (How the tone is
    /// read is not kept here: it is each call's constant `read`, so the compiler builds
    /// one loop per mode.)
    @_noLocks @inline(__always)
    init(tone: ToneTable, rows: UnsafeRawPointer, levels: LevelTable?, firstZone: Int, lastZone: Int, sustained: Bool, mix: UnsafeMutablePointer<Float>,
         rampStep: Float, ramp0: Float, loop: Int64) {
        linearPairs = UnsafeRawPointer(tone.linearPairs).assumingMemoryBound(to: Double.self)
        self.rows = rows
        if let levels {
            upperRows = rows + levels.stride
            zoneStart = levels.zoneStart[firstZone]
            zoneWidth = levels.zoneEnd[firstZone] &- levels.zoneStart[firstZone]
            zoneInverse = levels.zoneInverse[firstZone]
        } else {
            upperRows = rows
            zoneStart = 0
            zoneWidth = 0
            zoneInverse = 0
        }
        self.mix = mix
        self.rampStep = SIMD8(repeating: rampStep)
        self.ramp0 = SIMD8(repeating: ramp0)
        self.loop = loop
        self.sustained = sustained
        self.firstZone = firstZone
        self.lastZone = lastZone
        self.levels = levels
    }

    /// Adds frames n0 ..< n0+8 of the voice into the mix.
    /// - Parameters:
    ///   - frameNumber: n + 1 in each lane (n0 + 1 … n0 + 8).
    ///   - base: the fixed-point phase at frame n0, 0 ≤ base < loop.
    ///   - offset: each lane's phase offset from `base` (≥ 0, < 2^31).
    ///   - level: each lane's gain × edge fade.
    ///   - inc: each lane's increment (read by the crossfades only).
    ///   - read: how the tone is read (`TableRead`).
    /// (Not marked `@_noLocks`, as `Mixer.mixVoice`: checked where it is inlined.
    /// Kept under 64 SIL blocks for every `Read`: the optimizer's inliner gives up on
    /// `@inline(__always)` for a larger callee in a caller of more than 64 blocks, as
    /// `mixVoice` is. The stdlib's generic SIMD operations (`&`, `&>>`, `replacing`) are
    /// loops there, a few blocks each; `&+`, `&-`, `&*` and comparisons are not.)
    @inline(__always)
    func mix<Read: TableRead>(at n0: Int32, frameNumber: SIMD8<Float>, base: Int64, offset: SIMD8<Int32>, level: SIMD8<Float>,
                              inc: SIMD8<Int32>, read: Read.Type) {
        let y = Read.sample(self, base: base, offset: offset, inc: inc)
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

    /// Lane positions in tone frames (linear, cubic): the first lane's frame, each
    /// lane's frame offset from it (≥ 0) and its fraction t in [0, 1).
    @_noLocks @inline(__always)
    func toneFrames(base: Int64, offset: SIMD8<Int32>) -> (Int, SIMD8<UInt32>, SIMD8<Float>) {
        let bits = Mixer.fractionBits
        let fractionMask = Int32((1 << bits) - 1)
        let position = SIMD8<Int32>(repeating: Int32(truncatingIfNeeded: base) & fractionMask) &+ offset
        let t = SIMD8<Float>(position & fractionMask) * (1 / Float(1 << bits))
        // Lane j reads pairs of floats at its frame: (y0, c1) and (c2, c3) of its cubic
        // row, or (y0, slope) for linear. Lanes 0, 1, 4, 5 fill one vector of 4 pairs
        // and lanes 2, 3, 6, 7 another, so one `shufps` per column puts the 8 lanes in
        // order: 8 64-bit loads per column pair, no scalar inserts.
        return (Int(truncatingIfNeeded: base >> Int64(bits)), SIMD8<UInt32>(truncatingIfNeeded: position &>> Int32(bits)), t)
    }

    /// Lane positions in the band-limited levels' table frames (4 per tone frame: the
    /// fraction has `LevelTable.shift` bits fewer): the byte offset of the first lane's
    /// row, each lane's byte offset from it and its fraction t in [0, 1).
    @_noLocks @inline(__always)
    func tableFrames(base: Int64, offset: SIMD8<Int32>) -> (Int, SIMD8<UInt32>, SIMD8<Float>) {
        let shift = Mixer.fractionBits - LevelTable.shift
        let fractionMask = Int32((1 << shift) - 1)
        let position = SIMD8<Int32>(repeating: Int32(truncatingIfNeeded: base) & fractionMask) &+ offset
        let t = SIMD8<Float>(position & fractionMask) * (1 / Float(1 << shift))
        return (Int(truncatingIfNeeded: base >> Int64(shift)) &* 16, SIMD8<UInt32>(truncatingIfNeeded: position &>> Int32(shift)) &<< 4, t)
    }

    /// `BlendRead`'s read: each lane's place among the levels, W = Σ_z clamp((inc −
    /// zoneStart_z) / (zoneEnd_z − zoneStart_z), 0, 1) over the zones the span may touch
    /// (those below `firstZone` count 1 each); the lane reads level k = (zones it has
    /// passed, at most the top pair's lower level) and k + 1 at byte offsets `o` from
    /// `baseRows` (level 0), blended by W − k. Out of line: only spans that touch a
    /// crossfade zone come here.
    @_noLocks @inline(never)
    func blend(_ baseRows: UnsafeRawPointer, _ o: SIMD8<UInt32>, t: SIMD8<Float>, inc: SIMD8<Int32>) -> SIMD8<Float> {
        let levels = self.levels.unsafelyUnwrapped
        var place = SIMD8<Float>(repeating: Float(firstZone))
        var k = SIMD8<Int32>(repeating: Int32(firstZone))
        var z = firstZone
        while z <= lastZone {
            let d = SIMD8<Float>(inc &- SIMD8<Int32>(repeating: levels.zoneStart[z])) * levels.zoneInverse[z]
            place += lanewiseMin(lanewiseMax(d, SIMD8<Float>()), SIMD8<Float>(repeating: 1))
            k &+= SIMD8<Int32>(repeating: 0).replacing(with: 1, where: inc .>= SIMD8<Int32>(repeating: levels.zoneEnd[z]))
            z &+= 1
        }
        k = lanewiseMin(k, SIMD8<Int32>(repeating: Int32(levels.count &- 2)))
        let weight = lanewiseMin(lanewiseMax(place - SIMD8<Float>(k), SIMD8<Float>()), SIMD8<Float>(repeating: 1))
        let s = levels.stride
        let b0 = Int(o[0]) &+ Int(k[0]) &* s, b1 = Int(o[1]) &+ Int(k[1]) &* s
        let b2 = Int(o[2]) &+ Int(k[2]) &* s, b3 = Int(o[3]) &+ Int(k[3]) &* s
        let b4 = Int(o[4]) &+ Int(k[4]) &* s, b5 = Int(o[5]) &+ Int(k[5]) &* s
        let b6 = Int(o[6]) &+ Int(k[6]) &* s, b7 = Int(o[7]) &+ Int(k[7]) &* s
        let lower = polynomial(baseRows, b0, b1, b2, b3, b4, b5, b6, b7, t: t)
        let upper = polynomial(baseRows + s, b0, b1, b2, b3, b4, b5, b6, b7, t: t)
        return multiplyAdd(upper - lower, weight, lower)
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

    /// `polynomial` with each lane's 16-byte row read whole: lanes j and j + 4 fill one
    /// vector (one 16-byte load and one 16-byte insert from memory), and a 4×4
    /// transpose inside each 128-bit half (`unpcklps`/`unpckhps`, then
    /// `unpcklpd`/`unpckhpd`) gives the 4 coefficients in lane order: 8 loads and 8
    /// in-lane shuffles, where the pairs of `polynomial` take 16 loads (half of them
    /// with a shuffle) and 4 to 8 shuffles.
    @_noLocks @inline(__always)
    func rowPolynomial(_ rows: UnsafeRawPointer, _ o0: Int, _ o1: Int, _ o2: Int, _ o3: Int,
                       _ o4: Int, _ o5: Int, _ o6: Int, _ o7: Int, t: SIMD8<Float>) -> SIMD8<Float> {
        @inline(__always) func two(_ a: Int, _ b: Int) -> SIMD8<Float> {
            SIMD8(lowHalf: rows.loadUnaligned(fromByteOffset: a, as: SIMD4<Float>.self),
                  highHalf: rows.loadUnaligned(fromByteOffset: b, as: SIMD4<Float>.self))
        }
        let a = two(o0, o4), b = two(o1, o5), c = two(o2, o6), d = two(o3, o7)
        let lowAB = unpackLow(a, b), highAB = unpackHigh(a, b), lowCD = unpackLow(c, d), highCD = unpackHigh(c, d)
        let a0 = pairsLow(lowAB, lowCD), a1 = pairsHigh(lowAB, lowCD)
        let a2 = pairsLow(highAB, highCD), a3 = pairsHigh(highAB, highCD)
        return multiplyAdd(multiplyAdd(multiplyAdd(a3, t, a2), t, a1), t, a0)
    }

    /// `base` advanced by one block's phase sum and wrapped once at the loop length.
    @_noLocks @inline(__always)
    func advance(_ base: Int64, by blockSum: Int64) -> Int64 {
        let next = base &+ blockSum
        return next &- (loop & -Int64(truncatingIfNeeded: (next >= loop ? 1 : 0) as Int8))
    }
}
