/// The per-voice inner loop of `Mixer`, 8 frames per step in SIMD8 vectors (the pan
/// stage's loop, `panToStereo`, is in `PanStage.swift`).
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
/// `ToneTable.loopFrames`) plus a 32-bit lane offset (≤ 57 frames); the table's guard
/// frames cover reads past the loop end, so there is no wrap test per sample. Each lane
/// reads its frame's precomputed polynomial: a cubic row as two 64-bit pairs, a
/// band-limited level's 16-bit row as one 64-bit load (`VoiceBlock`), and the
/// three stretches of `mixVoice` (inside a glide, where it ends, after it) carry their
/// per-lane vectors from block to block with additions, so a block costs about 100
/// instructions (`make bench-icount` prints the figure per voice-frame).
extension Mixer {
    /// Adds voice `v` into `mix[0..<count]` (exactly those frames; the last block may
    /// read up to 7 frames past them) and advances its state by `count` frames, with
    /// 4-point Hermite interpolation; compiled on its own. - Thread: render.
    @_noLocks @inline(never)
    func mixVoiceCubic(_ v: Int, into mix: UnsafeMutablePointer<Float>, count: Int) {
        mixVoice(v, into: mix, count: count, read: CubicRead.self)
    }

    /// `mixVoiceCubic` with linear interpolation. - Thread: render.
    @_noLocks @inline(never)
    func mixVoiceLinear(_ v: Int, into mix: UnsafeMutablePointer<Float>, count: Int) {
        mixVoice(v, into: mix, count: count, read: LinearRead.self)
    }

    /// `mixVoiceCubic` from the band-limited levels `levels` (`Interpolation.bandLimited`;
    /// the tone's, as `mixSpan` read them for this span): the
    /// span's increments run monotonically from its first frame's to its last's, so
    /// those two say whether it stays in one level (read alone, `.level`: the cubic
    /// kernel's cost), touches one crossfade zone (`.crossfade`: the zone's two levels,
    /// the same for every lane) or more (`.blend`: two levels chosen per lane).
    /// - Thread: render.
    @_noLocks @inline(never)
    func mixVoiceBandLimited(_ v: Int, levels: LevelTable, into mix: UnsafeMutablePointer<Float>, count: Int) {
        let glideLeft = voices.glideLeft[v], incTarget = voices.incTarget[v], incStep = voices.incStep[v]
        let first = incTarget &- incStep &* max(glideLeft, 0)
        let last = incTarget &- incStep &* max(glideLeft &- Int32(count &- 1), 0)
        let low = min(first, last), high = max(first, last)
        let (k, pure) = levels.level(low: low, high: high)
        if pure {
            mixVoice(v, into: mix, count: count, read: LevelRead.self, levels: levels, levelIndex: k)
        } else if high < levels.zoneStart[k &+ 1] {
            // Zone k only (k < count − 1 here: the last level is always pure): levels k
            // and k + 1 for every lane.
            mixVoiceCrossfade(v, levels: levels, into: mix, count: count, zone: k)
        } else {
            let top = levels.level(low: high, high: high).level
            mixVoiceBlend(v, levels: levels, into: mix, count: count, firstZone: k, lastZone: min(top, levels.count &- 2))
        }
    }

    /// `mixVoiceBandLimited` for a span whose increments touch crossfade zone `zone` and
    /// no other: levels `zone` and `zone` + 1, blended per lane. - Thread: render.
    @_noLocks @inline(never)
    func mixVoiceCrossfade(_ v: Int, levels: LevelTable, into mix: UnsafeMutablePointer<Float>, count: Int, zone: Int) {
        mixVoice(v, into: mix, count: count, read: CrossfadeRead.self, levels: levels, levelIndex: zone)
    }

    /// `mixVoiceBandLimited` for a span that touches crossfade zones `firstZone…lastZone`:
    /// two levels per lane. - Thread: render.
    @_noLocks @inline(never)
    func mixVoiceBlend(_ v: Int, levels: LevelTable, into mix: UnsafeMutablePointer<Float>, count: Int, firstZone: Int, lastZone: Int) {
        mixVoice(v, into: mix, count: count, read: BlendRead.self, levels: levels, levelIndex: firstZone, lastZone: lastZone)
    }

    /// `read`: how the tone is read (`TableRead`); a constant at each call site, so the
    /// loop is compiled once for each. `levels`: the band-limited levels (`.level`,
    /// `.crossfade`, `.blend`; nil for the others). `levelIndex`: the level read
    /// (`.level`), the zone (`.crossfade`), or the first crossfade zone the span may touch
    /// (`.blend`, up to `lastZone`).
    ///
    /// The span runs in up to three stretches of 8-frame blocks, so the common blocks
    /// need no clamping: blocks wholly inside the glide (g = r − j > 0 in every lane; the
    /// lane offsets, increments and g advance by constant vectors), at most one block
    /// where the glide ends (the closed form with clamps), and blocks after the glide
    /// (offsets, increment and gain constant). Every stretch computes the same integers
    /// and Float expressions as the closed form, so the output does not depend on where
    /// a glide ends.
    // Not marked `@_noLocks` itself: the mark rejects any generic function; every use is
    // specialized and inlined into a marked caller (`mixVoiceCubic`, ...), where the
    // release build checks it.
    @inline(__always)
    func mixVoice<Read: TableRead>(_ v: Int, into mix: UnsafeMutablePointer<Float>, count: Int, read: Read.Type, levels: LevelTable? = nil,
                  levelIndex: Int = 0, lastZone: Int = 0) {
        let bits = Mixer.fractionBits
        let incTarget = voices.incTarget[v]
        let incStep = voices.incStep[v]
        let glideLeft = voices.glideLeft[v]
        let ramp0 = voices.ramp[v]
        let rampStep = voices.rampStep[v]
        let phase0 = voices.phase[v]

        let lanes = SIMD8<Int32>(0, 1, 2, 3, 4, 5, 6, 7)
        let lanesF = SIMD8<Float>(0, 1, 2, 3, 4, 5, 6, 7)
        let unit = 1 / Float(1 << bits)
        let fadeScale = unit / EngineLimits.silenceRatio
        let block = voiceBlock(v, into: mix, read: read, levels: levels, levelIndex: levelIndex, lastZone: lastZone)
        // The band-limited rows' step (`LevelTable.scale`; 1 for cubic and linear) rides on
        // the gain, once per span instead of a multiply per block.
        let gainTarget = voices.gainTarget[v] * block.levelScale
        let gainStep = voices.gainStep[v] * block.levelScale
        var base = phase0
        var n0: Int32 = 0
        var frameNumber = lanesF + 1  // n + 1 of each lane, exact in Float below 2^24
        var r = glideLeft  // glide frames left at the block's first frame (may be < 0)
        let end = Int32(count)

        // 1. Blocks wholly inside the glide (r ≥ 8): g_j = r − j, increment_j =
        //    incBlock + incStep·j with incBlock = incTarget − incStep·r, lane offsets
        //    Σ_{i<j} increment_i = j·incBlock + incStep·j(j−1)/2.
        if r >= 8 && n0 &+ 8 <= end {
            let incBlock = incTarget &- incStep &* r
            let unfaded = Float(min(incTarget &- incStep &* glideLeft, incTarget)) * fadeScale >= 1
            let triangle = SIMD8<Int32>(0, 0, 1, 3, 6, 10, 15, 21)  // j(j−1)/2
            var offset = lanes &* incBlock &+ triangle &* incStep
            var inc = SIMD8<Int32>(repeating: incBlock) &+ lanes &* incStep
            var g = SIMD8<Float>(repeating: Float(r)) - lanesF
            var blockSum = 8 &* Int64(incBlock) &+ 28 &* Int64(incStep)
            let offsetStep = lanes &* (8 &* incStep)
            let incStep8 = SIMD8<Int32>(repeating: 8 &* incStep)
            let blockSumStep = 64 &* Int64(incStep)
            let gain0 = SIMD8<Float>(repeating: gainTarget)
            let gainStepV = SIMD8<Float>(repeating: -gainStep)
            let one = SIMD8<Float>(repeating: 1)
            // The common case, a sustained voice gliding above the silence edge (no
            // envelope, no edge fade), in a loop of its own: neither is tested per block.
            if unfaded && block.sustained {
                repeat {
                    block.mix(at: n0, frameNumber: frameNumber, base: base, offset: offset, level: multiplyAdd(gainStepV, g, gain0),
                              inc: inc, read: read)
                    base = block.advance(base, by: blockSum)
                    offset &+= offsetStep
                    inc &+= incStep8
                    g -= 8
                    blockSum &+= blockSumStep
                    r &-= 8
                    n0 &+= 8
                } while r >= 8 && n0 &+ 8 <= end
                frameNumber = lanesF + Float(n0 &+ 1)
            }
            while r >= 8 && n0 &+ 8 <= end {
                let gain = multiplyAdd(gainStepV, g, gain0)
                // The edge fade is 1 throughout unless the glide starts or ends below
                // silenceRatio (the increment is monotonic over a glide).
                let level = unfaded ? gain : gain * lanewiseMin(SIMD8<Float>(inc) * fadeScale, one)
                block.mix(at: n0, frameNumber: frameNumber, base: base, offset: offset, level: level, inc: inc, read: read)
                base = block.advance(base, by: blockSum)
                offset &+= offsetStep
                inc &+= incStep8
                g -= 8
                blockSum &+= blockSumStep
                r &-= 8
                n0 &+= 8
                frameNumber += 8
            }
        }

        // 2. The block where the glide ends (0 < r < 8), in the closed form with clamps.
        if r > 0 && n0 &+ 8 <= end {
            base = clampedBlock(v, into: mix, read: read, levels: levels, levelIndex: levelIndex, lastZone: lastZone,
                                at: n0, frames: 8, base: base, r: r)
            r &-= 8
            n0 &+= 8
            frameNumber += 8
        }

        // 3. Blocks after the glide: increment and gain at their targets. (r stays as it
        //    is: `clampedBlock` treats every r ≤ 0 alike.)
        if r <= 0 && n0 &+ 8 <= end {
            let offset = lanes &* incTarget
            let level = SIMD8<Float>(repeating: gainTarget * min(Float(incTarget) * fadeScale, 1))
            let blockSum = 8 &* Int64(incTarget)
            let inc = SIMD8<Int32>(repeating: incTarget)
            repeat {
                block.mix(at: n0, frameNumber: frameNumber, base: base, offset: offset, level: level, inc: inc, read: read)
                base = block.advance(base, by: blockSum)
                n0 &+= 8
                frameNumber += 8
            } while n0 &+ 8 <= end
        }

        // 4. The last 1…7 frames, when `count` is not a whole number of blocks: the closed
        //    form with clamps, its lanes past `count` silent (they are this voice's next
        //    frames, which a later span mixes).
        if n0 < end {
            base = clampedBlock(v, into: mix, read: read, levels: levels, levelIndex: levelIndex, lastZone: lastZone,
                                at: n0, frames: end &- n0, base: base, r: r)
        }

        voices.phase[v] = base
        voices.glideLeft[v] = max(glideLeft &- end, 0)
        voices.ramp[v] = min(max(ramp0 + rampStep * Float(end), 0), 1)
    }

    /// Voice `v`'s `VoiceBlock` for a span read with `read` (`mixVoice`'s arguments).
    @inline(__always)
    func voiceBlock<Read: TableRead>(_ v: Int, into mix: UnsafeMutablePointer<Float>, read: Read.Type, levels: LevelTable?,
                                     levelIndex: Int, lastZone: Int) -> VoiceBlock {
        let ramp0 = voices.ramp[v], rampStep = voices.rampStep[v]
        return VoiceBlock(tone: tone, rows: Read.rows(tone, levels, levelIndex), levels: levels, firstZone: levelIndex, lastZone: lastZone,
                          sustained: ramp0 >= 1 && rampStep >= 0, mix: mix, rampStep: rampStep, ramp0: ramp0,
                          envFloor: voices.envFloor[v], envSpan: voices.envSpan[v],
                          loop: Int64(tone.loopFrames) << Int64(Mixer.fractionBits))
    }

    /// `clampedBlock` for `mixVoice`'s stretches 2 and 4 (at most one block each per
    /// span), out of line and from the voice's state (which `mixVoice` writes back only
    /// at its end): passing the span's `VoiceBlock` instead stored it to the stack at
    /// the start of every span. `n0`: the block's first frame in the span.
    @inline(never)
    func clampedBlock<Read: TableRead>(_ v: Int, into mix: UnsafeMutablePointer<Float>, read: Read.Type, levels: LevelTable?,
                                       levelIndex: Int, lastZone: Int, at n0: Int32, frames: Int32, base: Int64, r: Int32) -> Int64 {
        let block = voiceBlock(v, into: mix, read: read, levels: levels, levelIndex: levelIndex, lastZone: lastZone)
        let frameNumber = SIMD8<Float>(0, 1, 2, 3, 4, 5, 6, 7) + Float(n0 &+ 1)
        return clampedBlock(block, at: n0, frames: frames, frameNumber: frameNumber, base: base, r: r, incTarget: voices.incTarget[v],
                            incStep: voices.incStep[v], gainTarget: voices.gainTarget[v] * block.levelScale,
                            gainStep: voices.gainStep[v] * block.levelScale, read: read)
    }

    /// One block in the closed form with clamps, for any r (glide frames left at its
    /// first frame): m_j = min(j, max(r, 0)), lane offsets j·incTarget − incStep·(m_j·r −
    /// m_j(m_j−1)/2), g_j = max(r − j, 0). Mixes its first `frames` (1…8) lanes and
    /// returns the phase after them.
    /// (Checked in its marked callers, as `mixVoice`.)
    @inline(__always)
    func clampedBlock<Read: TableRead>(_ block: VoiceBlock, at n0: Int32, frames: Int32, frameNumber: SIMD8<Float>, base: Int64, r: Int32,
                      incTarget: Int32, incStep: Int32, gainTarget: Float, gainStep: Float, read: Read.Type) -> Int64 {
        let lanes = SIMD8<Int32>(0, 1, 2, 3, 4, 5, 6, 7)
        let rLanes = SIMD8<Int32>(repeating: r)
        let m = lanewiseMin(lanes, SIMD8<Int32>(repeating: max(r, 0)))
        let glideSum = m &* rLanes &- ((m &* (m &- 1)) &>> 1)
        let offset = lanes &* incTarget &- glideSum &* incStep
        let gLanes = lanewiseMax(rLanes &- lanes, SIMD8<Int32>())
        let inc = SIMD8<Int32>(repeating: incTarget) &- gLanes &* incStep
        let gain = multiplyAdd(SIMD8<Float>(repeating: -gainStep), SIMD8<Float>(gLanes), SIMD8<Float>(repeating: gainTarget))
        let fadeScale = 1 / Float(1 << Mixer.fractionBits) / EngineLimits.silenceRatio
        let fade = lanewiseMin(SIMD8<Float>(inc) * fadeScale, SIMD8<Float>(repeating: 1))
        let level = (gain * fade).replacing(with: 0, where: lanes .>= frames)
        block.mix(at: n0, frameNumber: frameNumber, base: base, offset: offset, level: level, inc: inc, read: read)
        // The phase advance over `frames` frames: the same sum with j = frames.
        let mf = Int64(min(frames, max(r, 0)))
        let sum = Int64(frames) &* Int64(incTarget) &- (mf &* Int64(r) &- ((mf &* (mf &- 1)) >> 1)) &* Int64(incStep)
        return block.advance(base, by: sum)
    }
}

// The ways of reading the tone and the block that uses them are here, in the file of
// the loops that specialize them: a debug build compiles each file on its own and can
// specialize (and so check as `@_noLocks`) a generic body only from its own file.

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

/// One band-limited level's rows (`LevelTable`), 4 table frames per tone frame: the
/// whole span lies outside every crossfade zone.
enum LevelRead: TableRead {
    @_noLocks @inline(__always)
    static func rows(_ tone: ToneTable, _ levels: LevelTable?, _ levelIndex: Int) -> UnsafeRawPointer {
        UnsafeRawPointer(levels.unsafelyUnwrapped.rows + levelIndex &* levels.unsafelyUnwrapped.stride)
    }
    @_noLocks @inline(__always)
    static func sample(_ block: VoiceBlock, base: Int64, offset: SIMD8<Int32>, inc: SIMD8<Int32>) -> SIMD8<Float> {
        let (rowOffset, o, t) = block.tableFrames(base: base, offset: offset)
        return block.levelPolynomial(block.rows + rowOffset, Int(o[0]), Int(o[1]), Int(o[2]), Int(o[3]),
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
        let lower = block.levelPolynomial(block.rows + rowOffset, o0, o1, o2, o3, o4, o5, o6, o7, t: t)
        let upper = block.levelPolynomial(block.upperRows + rowOffset, o0, o1, o2, o3, o4, o5, o6, o7, t: t)
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

extension VoiceBlock {
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
        // envelope(n) = floor + span·smoothstep(clamp(ramp0 + rampStep·(n + 1), 0, 1));
        // constant for a sustained voice (ramp0 ≥ 1, rampStep ≥ 0), which skips it (its
        // floor + span rides on the gain, `levelScale`).
        if sustained {
            let slot = UnsafeMutableRawPointer(mix + Int(n0))
            slot.storeBytes(of: multiplyAdd(y, level, slot.loadUnaligned(as: SIMD8<Float>.self)), as: SIMD8<Float>.self)
            return
        }
        let rampLinear = multiplyAdd(rampStep, frameNumber, ramp0)
        let ramp = lanewiseMin(lanewiseMax(rampLinear, SIMD8<Float>()), SIMD8<Float>(repeating: 1))
        let envelope = multiplyAdd(SIMD8(repeating: envSpan), ramp * ramp * (3 - 2 * ramp), SIMD8(repeating: envFloor))
        let slot = UnsafeMutableRawPointer(mix + Int(n0))
        let sum = multiplyAdd(y, level * envelope, slot.loadUnaligned(as: SIMD8<Float>.self))
        slot.storeBytes(of: sum, as: SIMD8<Float>.self)
    }
}
