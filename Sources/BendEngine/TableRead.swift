// SPDX-License-Identifier: GPL-3.0-or-later
/// The ways a voice reads its tone (`TableRead`, whose conformances are declared in
/// `MixerKernel.swift`, the file of the loop that specializes them: a debug build can
/// specialize, and so check as `@_noLocks`, a generic body only through witnesses of its
/// own file). Each way's code is here: `tableRows`, `tableRightBytes`, `read`.

/// Straight line between the two nearest frames (`ToneTable.linearPairs`).
enum LinearRead {
    @_noLocks @inline(__always)
    static func tableRows(_ tone: ToneTable, _ levels: LevelTable?, _ levelIndex: Int) -> UnsafeRawPointer { UnsafeRawPointer(tone.cubicRows) }
    @_noLocks @inline(__always)
    static func tableRightBytes(_ tone: ToneTable, _ levels: LevelTable?) -> Int { tone.channelBytes / 2 }
    @_noLocks @inline(__always)
    static func read(_ block: VoiceBlock, base: Int64, offset: SIMD8<Int32>, inc: SIMD8<Int32>, channel: Int) -> SIMD8<Float> {
        let (baseFrame, w, t) = block.toneFrames(base: base, offset: offset)
        let pairs = UnsafeRawPointer(block.linearPairs + baseFrame).advanced(by: channel).assumingMemoryBound(to: Double.self)
        let i0 = Int(w[0]), i1 = Int(w[1]), i2 = Int(w[2]), i3 = Int(w[3])
        let i4 = Int(w[4]), i5 = Int(w[5]), i6 = Int(w[6]), i7 = Int(w[7])
        let p = unsafeBitCast(SIMD4<Double>(pairs[i0], pairs[i1], pairs[i4], pairs[i5]), to: SIMD8<Float>.self)
        let q = unsafeBitCast(SIMD4<Double>(pairs[i2], pairs[i3], pairs[i6], pairs[i7]), to: SIMD8<Float>.self)
        return multiplyAdd(odds(p, q), t, evens(p, q))  // y0 + (y1 − y0)·t
    }
}

/// 4-point Hermite rows (`ToneTable.cubicRows`).
enum CubicRead {
    @_noLocks @inline(__always)
    static func tableRows(_ tone: ToneTable, _ levels: LevelTable?, _ levelIndex: Int) -> UnsafeRawPointer { UnsafeRawPointer(tone.cubicRows) }
    @_noLocks @inline(__always)
    static func tableRightBytes(_ tone: ToneTable, _ levels: LevelTable?) -> Int { tone.channelBytes }
    @_noLocks @inline(__always)
    static func read(_ block: VoiceBlock, base: Int64, offset: SIMD8<Int32>, inc: SIMD8<Int32>, channel: Int) -> SIMD8<Float> {
        let (baseFrame, w, t) = block.toneFrames(base: base, offset: offset)
        let o = w &<< 4  // byte offsets of the lanes' rows (≥ 0, so they widen for free)
        return block.polynomial(block.rows + 16 &* baseFrame + channel, Int(o[0]), Int(o[1]), Int(o[2]), Int(o[3]),
                                Int(o[4]), Int(o[5]), Int(o[6]), Int(o[7]), t: t)
    }
}

/// One band-limited level's rows (`LevelTable`), 4 table frames per tone frame: the
/// whole span lies outside every crossfade zone.
enum LevelRead {
    @_noLocks @inline(__always)
    static func tableRows(_ tone: ToneTable, _ levels: LevelTable?, _ levelIndex: Int) -> UnsafeRawPointer {
        UnsafeRawPointer(levels.unsafelyUnwrapped.rows + levelIndex &* levels.unsafelyUnwrapped.stride)
    }
    @_noLocks @inline(__always)
    static func tableRightBytes(_ tone: ToneTable, _ levels: LevelTable?) -> Int { levels.unsafelyUnwrapped.channelBytes }
    @_noLocks @inline(__always)
    static func read(_ block: VoiceBlock, base: Int64, offset: SIMD8<Int32>, inc: SIMD8<Int32>, channel: Int) -> SIMD8<Float> {
        let (rowOffset, o, t) = block.tableFrames(base: base, offset: offset)
        return block.levelPolynomial(block.rows + rowOffset + channel, Int(o[0]), Int(o[1]), Int(o[2]), Int(o[3]),
                                     Int(o[4]), Int(o[5]), Int(o[6]), Int(o[7]), t: t)
    }
}

/// Two adjacent band-limited levels, the same two for every lane (`VoiceBlock.rows` and
/// `upperRows`: zone `levelIndex`'s), blended by each lane's place in the one crossfade
/// zone between them: the span touches that zone and no other (the common case).
enum CrossfadeRead {
    @_noLocks @inline(__always)
    static func tableRows(_ tone: ToneTable, _ levels: LevelTable?, _ levelIndex: Int) -> UnsafeRawPointer {
        LevelRead.tableRows(tone, levels, levelIndex)
    }
    @_noLocks @inline(__always)
    static func tableRightBytes(_ tone: ToneTable, _ levels: LevelTable?) -> Int { levels.unsafelyUnwrapped.channelBytes }
    @_noLocks @inline(__always)
    static func read(_ block: VoiceBlock, base: Int64, offset: SIMD8<Int32>, inc: SIMD8<Int32>, channel: Int) -> SIMD8<Float> {
        let (rowOffset, o, t) = block.tableFrames(base: base, offset: offset)
        // Both levels at the same byte offsets; the upper one weighted by the lane's
        // place in the zone, clamp((inc − start) / width, 0, 1).
        let o0 = Int(o[0]), o1 = Int(o[1]), o2 = Int(o[2]), o3 = Int(o[3])
        let o4 = Int(o[4]), o5 = Int(o[5]), o6 = Int(o[6]), o7 = Int(o[7])
        let lower = block.levelPolynomial(block.rows + rowOffset + channel, o0, o1, o2, o3, o4, o5, o6, o7, t: t)
        let upper = block.levelPolynomial(block.upperRows + rowOffset + channel, o0, o1, o2, o3, o4, o5, o6, o7, t: t)
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
enum BlendRead {
    @_noLocks @inline(__always)
    static func tableRows(_ tone: ToneTable, _ levels: LevelTable?, _ levelIndex: Int) -> UnsafeRawPointer {
        UnsafeRawPointer(levels.unsafelyUnwrapped.rows)
    }
    @_noLocks @inline(__always)
    static func tableRightBytes(_ tone: ToneTable, _ levels: LevelTable?) -> Int { levels.unsafelyUnwrapped.channelBytes }
    @_noLocks @inline(__always)
    static func read(_ block: VoiceBlock, base: Int64, offset: SIMD8<Int32>, inc: SIMD8<Int32>, channel: Int) -> SIMD8<Float> {
        let (rowOffset, o, t) = block.tableFrames(base: base, offset: offset)
        return block.blend(block.rows + rowOffset + channel, o, t: t, inc: inc)
    }
}
