// SPDX-License-Identifier: GPL-3.0-or-later
/// The kernel (`MixerKernel.swift`): the per-voice inner loop of `Mixer`, 8 frames per
/// step in SIMD8 vectors.
///
/// Every per-frame value is a closed form of the frame number n within the span, so
/// lanes are independent (no per-sample branches, no loop-carried multiply chains):
/// - glide: g(n) = max(glideLeft − n, 0); increment(n) = incTarget − incStep·g(n);
///   gain(n) = gainTarget − gainStep·g(n)
/// - phase(n) = phase(0) + Σ_{i<n} increment(i) = phase(0) + n·incTarget − incStep·G(n),
///   G(n) = Σ_{i<n} max(glideLeft − i, 0) = m·glideLeft − m(m−1)/2 with m = min(n, glideLeft)
///   (exact integers; the read position is phase(n) mod the loop)
/// - envelope(n) = floor + span·smoothstep(clamp(ramp + rampStep·(n+1), 0, 1)) (`Envelope`)
/// - fade(n) = min(ratio(n)/silenceRatio, 1), ratio(n) = increment(n)·2^−fractionBits
/// - sample(n) = the cubic piece at phase(n) (4-point Hermite of the 4 tone frames around it, or a
///   band-limited level's row), times gain·envelope·fade.
///
/// Inside an 8-frame block each lane's phase is the block's base phase (Int64, wrapped at
/// `ToneTable.wrapFrames` back by `loopFrames`) plus a 32-bit lane offset (≤ 57 frames); the table's guard
/// frames cover reads past the loop end, so there is no wrap test per sample. Each lane
/// reads its frame's precomputed polynomial: a cubic row as two 64-bit pairs, a
/// band-limited level's 16-bit row as one 64-bit load (`VoiceBlock`), and the
/// three stretches of `mixVoice` (inside a glide, where it ends, after it) carry their
/// per-lane vectors from block to block with additions, so a block costs about 100
/// instructions (`make bench-icount` prints the figure per voice-frame).
///
/// `Mixer.mixVoice` mixes one span: `read` is how the tone is read (`TableRead`), a
/// constant at each call site, so the loop is compiled once for each; `out` where the
/// samples go (`VoiceOutput`). `levels`: the band-limited levels (`.level`,
/// `.crossfade`, `.blend`; nil for the others). `levelIndex`: the level read (`.level`),
/// the zone (`.crossfade`), or the first crossfade zone the span may touch (`.blend`, up
/// to `lastZone`). The span runs in up to three stretches of 8-frame blocks, so the
/// common blocks need no clamping: blocks wholly inside the glide (g = r − j > 0 in every
/// lane; the lane offsets, increments and g advance by constant vectors), at most one
/// block where the glide ends (the closed form with clamps), and blocks after the glide
/// (offsets, increment and gain constant). Every stretch computes the same integers and
/// Float expressions as the closed form, so the output does not depend on where a glide
/// ends.
///
/// `VoiceBlock.mix` adds one block: `frameNumber` is n + 1 in each lane (n0 + 1 … n0 +
/// 8), `base` the fixed-point phase at frame n0 (below the wrap), `offset` each lane's
/// phase offset from it (≥ 0, < 2^31), `level` each lane's gain × edge fade, `inc` each
/// lane's increment (read by the crossfades only), `frames` the block's frames that are
/// the voice's. It is kept under 64 SIL blocks for every `Read`: the optimizer's inliner
/// gives up on `@inline(__always)` for a larger callee in a caller of more than 64
/// blocks, as `mixVoice` is. The stdlib's generic SIMD operations (`&`, `&>>`,
/// `replacing`) are loops there, a few blocks each; `&+`, `&-`, `&*` and comparisons are
/// not.
///
/// `VoiceBlock` is what every 8-frame block of one voice does once its lane offsets and
/// levels are known: read the tone at the 8 positions, interpolate, apply level and envelope, and
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
    /// What `Mixer.mixVoice` multiplies the voice's gain by once per span: the
    /// band-limited levels' `LevelTable.scale` (1 without levels), times the envelope
    /// when it is constant over the span (`sustained`: floor + span, the sustain level).
    let levelScale: Float
    let linearPairs: UnsafePointer<Double>
    /// The bus the voice adds into, at its span's first frame: the mono bus, or the left
    /// bus for a stereo or panned voice (`VoiceOutput`), the right bus `busFrames` after it.
    let mix: UnsafeMutablePointer<Float>
    let busFrames: Int
    /// Bytes from the left channel's rows to the right's, for the rows read (`TableRead`).
    let rightBytes: Int
    let rampStep: SIMD8<Float>
    let ramp0: SIMD8<Float>
    /// The envelope's floor and span (`Envelope`), read when it is not `sustained`.
    /// (Scalars: held as vectors they cost the sustained loop registers it never uses.)
    let envFloor: Float
    let envSpan: Float
    /// The phase wraps at `wrapAt` (`ToneTable.wrapFrames`), back by `wrapBy`
    /// (`ToneTable.loopFrames`), both fixed-point; equal for a tone that loops whole.
    let wrapAt: Int64
    let wrapBy: Int64
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
         busFrames: Int, rampStep: Float, ramp0: Float, envFloor: Float, envSpan: Float, rightBytes: Int, wrapAt: Int64, wrapBy: Int64) {
        linearPairs = UnsafeRawPointer(tone.linearPairs).assumingMemoryBound(to: Double.self)
        self.rows = rows
        if let levels {
            upperRows = rows + levels.stride
            zoneStart = levels.zoneStart[firstZone]
            zoneWidth = levels.zoneEnd[firstZone] &- levels.zoneStart[firstZone]
            zoneInverse = levels.zoneInverse[firstZone]
            levelScale = levels.scale * (sustained ? envFloor + envSpan : 1)
        } else {
            upperRows = rows
            zoneStart = 0
            zoneWidth = 0
            zoneInverse = 0
            levelScale = sustained ? envFloor + envSpan : 1
        }
        self.mix = mix
        self.busFrames = busFrames
        self.rightBytes = rightBytes
        self.rampStep = SIMD8(repeating: rampStep)
        self.ramp0 = SIMD8(repeating: ramp0)
        self.envFloor = envFloor
        self.envSpan = envSpan
        self.wrapAt = wrapAt
        self.wrapBy = wrapBy
        self.sustained = sustained
        self.firstZone = firstZone
        self.lastZone = lastZone
        self.levels = levels
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
    /// row (8 bytes a table frame), each lane's byte offset from it and its fraction t
    /// in [0, 1).
    @_noLocks @inline(__always)
    func tableFrames(base: Int64, offset: SIMD8<Int32>) -> (Int, SIMD8<UInt32>, SIMD8<Float>) {
        let shift = Mixer.fractionBits - LevelTable.shift
        let fractionMask = Int32((1 << shift) - 1)
        let position = SIMD8<Int32>(repeating: Int32(truncatingIfNeeded: base) & fractionMask) &+ offset
        let t = SIMD8<Float>(position & fractionMask) * (1 / Float(1 << shift))
        return (Int(truncatingIfNeeded: base >> Int64(shift)) &* 8, SIMD8<UInt32>(truncatingIfNeeded: position &>> Int32(shift)) &<< 3, t)
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
        let lower = levelPolynomial(baseRows, b0, b1, b2, b3, b4, b5, b6, b7, t: t)
        let upper = levelPolynomial(baseRows + s, b0, b1, b2, b3, b4, b5, b6, b7, t: t)
        return multiplyAdd(upper - lower, weight, lower)
    }

    /// The 4 consecutive floats at byte offsets `o0…o7` from `base`, one column per float,
    /// lanes in order: each lane's floats read as two 64-bit pairs, lanes 0, 1, 4, 5 into
    /// one vector and 2, 3, 6, 7 into another, so one `shufps` per column puts the 8 lanes
    /// in order (16 loads, 4 inserts and 4 shuffles): a cubic row (a0, a1, a2, a3).
    @_noLocks @inline(__always)
    func columns(_ base: UnsafeRawPointer, _ o0: Int, _ o1: Int, _ o2: Int, _ o3: Int,
                 _ o4: Int, _ o5: Int, _ o6: Int, _ o7: Int) -> (SIMD8<Float>, SIMD8<Float>, SIMD8<Float>, SIMD8<Float>) {
        let p = words(base, o0, o1, o4, o5), q = words(base, o2, o3, o6, o7)
        let r = words(base + 8, o0, o1, o4, o5), u = words(base + 8, o2, o3, o6, o7)
        return (evens(p, q), odds(p, q), evens(r, u), odds(r, u))
    }

    /// The polynomial rows of the 8 lanes (byte offsets `o0…o7` from `rows`, 16-byte
    /// rows (a0, a1, a2, a3): the cubic rows) evaluated at `t`: ((a3·t + a2)·t + a1)·t + a0.
    @_noLocks @inline(__always)
    func polynomial(_ rows: UnsafeRawPointer, _ o0: Int, _ o1: Int, _ o2: Int, _ o3: Int,
                    _ o4: Int, _ o5: Int, _ o6: Int, _ o7: Int, t: SIMD8<Float>) -> SIMD8<Float> {
        let (y0, c1, c2, c3) = columns(rows, o0, o1, o2, o3, o4, o5, o6, o7)
        return multiplyAdd(multiplyAdd(multiplyAdd(c3, t, c2), t, c1), t, y0)
    }

    /// A band-limited level's rows of the 8 lanes (byte offsets `o0…o7` from `rows`,
    /// 8-byte rows of 4 Int16 (C0, C1, C2, C3), `LevelTable`) evaluated at `t`, in steps
    /// of `levelScale` (which the span's gain carries): each lane's row is one 64-bit load, lanes 0,
    /// 1, 4, 5 into one vector and 2, 3, 6, 7 into another, so one `shufps` gives each
    /// lane's (C0, C1) pair and one its (C2, C3) pair, in order (8 loads, 2 inserts and
    /// 2 shuffles where float rows take 16, 4 and 4); shifts sign-extend the halves of
    /// each pair.
    @_noLocks @inline(__always)
    func levelPolynomial(_ rows: UnsafeRawPointer, _ o0: Int, _ o1: Int, _ o2: Int, _ o3: Int,
                         _ o4: Int, _ o5: Int, _ o6: Int, _ o7: Int, t: SIMD8<Float>) -> SIMD8<Float> {
        let p = words(rows, o0, o1, o4, o5), q = words(rows, o2, o3, o6, o7)
        let low = unsafeBitCast(evens(p, q), to: SIMD8<Int32>.self)  // C0 | C1 << 16
        let high = unsafeBitCast(odds(p, q), to: SIMD8<Int32>.self)  // C2 | C3 << 16
        let c0 = SIMD8<Float>((low &<< 16) &>> 16), c1 = SIMD8<Float>(low &>> 16)
        let c2 = SIMD8<Float>((high &<< 16) &>> 16), c3 = SIMD8<Float>(high &>> 16)
        return multiplyAdd(multiplyAdd(multiplyAdd(c3, t, c2), t, c1), t, c0)
    }

    /// `base` advanced by one block's phase sum and wrapped once (at `wrapAt`, back by
    /// `wrapBy`).
    @_noLocks @inline(__always)
    func advance(_ base: Int64, by blockSum: Int64) -> Int64 {
        let next = base &+ blockSum
        return next &- (wrapBy & -Int64(truncatingIfNeeded: (next >= wrapAt ? 1 : 0) as Int8))
    }
}
