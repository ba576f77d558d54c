// SPDX-License-Identifier: GPL-3.0-or-later
/// The per-voice inner loop of `Mixer`, 8 frames per step in SIMD8 vectors: how it
/// computes each frame is told with `VoiceBlock` (the pan stage's loop is in
/// `PanStage.swift`).
extension Mixer {
    /// Fixed-point phase increment for a pitch `ratio` (clamped to 0…
    /// `EngineLimits.maximumRatio`; NaN counts as 0), rounded to the nearest 2^−fractionBits.
    @_noLocks @inline(__always)
    static func increment(ratio: Float) -> Int32 {
        let r = ratio.isNaN ? 0 : min(max(ratio, 0), EngineLimits.maximumRatio)
        return Int32(r * Float(1 << fractionBits) + 0.5)  // r ≥ 0: rounds to nearest
    }

    /// Adds voice `v` into `mix[0..<count]` (exactly those frames; the last block may
    /// read up to 7 frames past them) and advances its state by `count` frames, with
    /// 4-point Hermite interpolation of `tone` (mono, into the mono bus); compiled on its
    /// own. - Thread: render.
    @_noLocks @inline(never)
    func mixVoiceCubic(_ v: Int, tone: UnsafePointer<ToneTable>, into mix: UnsafeMutablePointer<Float>, count: Int) {
        var out = MonoOut()
        mixVoice(v, tone: tone, into: mix, count: count, read: CubicRead.self, out: &out)
    }

    /// `mixVoiceCubic` with linear interpolation. - Thread: render.
    @_noLocks @inline(never)
    func mixVoiceLinear(_ v: Int, tone: UnsafePointer<ToneTable>, into mix: UnsafeMutablePointer<Float>, count: Int) {
        var out = MonoOut()
        mixVoice(v, tone: tone, into: mix, count: count, read: LinearRead.self, out: &out)
    }

    /// `mixVoiceCubic` from the band-limited levels `levels` (the tone's, as `mixSpan` read
    /// them for this span), in one level, one crossfade zone or more (`levelSpan`).
    /// - Thread: render.
    @_noLocks @inline(never)
    func mixVoiceBandLimited(_ v: Int, tone: UnsafePointer<ToneTable>, levels: LevelTable, into mix: UnsafeMutablePointer<Float>, count: Int) {
        let (k, zones, lastZone) = levelSpan(v, levels: levels, count: count)
        if zones == 0 {
            var out = MonoOut()
            mixVoice(v, tone: tone, into: mix, count: count, read: LevelRead.self, out: &out, levels: levels, levelIndex: k)
        } else if zones == 1 {
            mixVoiceCrossfade(v, tone: tone, levels: levels, into: mix, count: count, zone: k)
        } else {
            mixVoiceBlend(v, tone: tone, levels: levels, into: mix, count: count, firstZone: k, lastZone: lastZone)
        }
    }

    /// `mixVoiceBandLimited` for a span whose increments touch crossfade zone `zone` and
    /// no other: levels `zone` and `zone` + 1, blended per lane. - Thread: render.
    @_noLocks @inline(never)
    func mixVoiceCrossfade(_ v: Int, tone: UnsafePointer<ToneTable>, levels: LevelTable, into mix: UnsafeMutablePointer<Float>, count: Int, zone: Int) {
        var out = MonoOut()
        mixVoice(v, tone: tone, into: mix, count: count, read: CrossfadeRead.self, out: &out, levels: levels, levelIndex: zone)
    }

    /// `mixVoiceBandLimited` for a span that touches crossfade zones `firstZone…lastZone`:
    /// two levels per lane. - Thread: render.
    @_noLocks @inline(never)
    func mixVoiceBlend(_ v: Int, tone: UnsafePointer<ToneTable>, levels: LevelTable, into mix: UnsafeMutablePointer<Float>, count: Int,
                       firstZone: Int, lastZone: Int) {
        var out = MonoOut()
        mixVoice(v, tone: tone, into: mix, count: count, read: BlendRead.self, out: &out, levels: levels, levelIndex: firstZone,
                 lastZone: lastZone)
    }

    /// A voice that is not plain (`VoiceBank.special`), read as the mixer's interpolation
    /// says into the buses `out` writes. `levels`: `tone`'s, or nil (read cubic until they
    /// are installed). (Generic, so not marked: its marked callers check it.)
    @inline(never)
    func mixSpecial<Out: VoiceOutput>(_ v: Int, tone: UnsafePointer<ToneTable>, levels: LevelTable?, into mix: UnsafeMutablePointer<Float>, count: Int,
                                      out: inout Out) {
        switch state.pointee.interpolation {
        case .linear: mixVoice(v, tone: tone, into: mix, count: count, read: LinearRead.self, out: &out)
        case .cubic: mixVoice(v, tone: tone, into: mix, count: count, read: CubicRead.self, out: &out)
        case .bandLimited:
            guard let levels else { return mixVoice(v, tone: tone, into: mix, count: count, read: CubicRead.self, out: &out) }
            let (k, zones, lastZone) = levelSpan(v, levels: levels, count: count)
            if zones == 0 {
                mixVoice(v, tone: tone, into: mix, count: count, read: LevelRead.self, out: &out, levels: levels, levelIndex: k)
            } else if zones == 1 {
                mixVoice(v, tone: tone, into: mix, count: count, read: CrossfadeRead.self, out: &out, levels: levels, levelIndex: k)
            } else {
                mixVoice(v, tone: tone, into: mix, count: count, read: BlendRead.self, out: &out, levels: levels, levelIndex: k,
                         lastZone: lastZone)
            }
        }
    }

    /// `mixSpecial` of special voice `v` for its layout: mono at the centre (the mono bus
    /// `mix`), stereo or panned (the left bus `mix`, the right after it; times its zone
    /// crossfade's `curve`), through its low-pass filter when `filtered` (`LowPass.swift`;
    /// state and timbre glide written back after the span). - Thread: render.
    @_noLocks @inline(never)
    func mixSpecialVoice(_ v: Int, tone: UnsafePointer<ToneTable>, levels: LevelTable?, into mix: UnsafeMutablePointer<Float>, count: Int,
                         layout: VoiceLayout, filtered: Bool, curve: CrossfadeCurve) {
        let (l, r) = (voices.panLeft[v], voices.panRight[v])
        if !filtered {
            switch layout {
            case .mono: var out = MonoOut(); mixSpecial(v, tone: tone, levels: levels, into: mix, count: count, out: &out)
            case .stereo: var out = StereoOut(panLeft: l, panRight: r, curve: curve); mixSpecial(v, tone: tone, levels: levels, into: mix, count: count, out: &out)
            case .panned: var out = PannedOut(panLeft: l, panRight: r, curve: curve); mixSpecial(v, tone: tone, levels: levels, into: mix, count: count, out: &out)
            }
            return
        }
        switch layout {
        case .mono:
            var out = Filtered(base: MonoOut(), filter: filterStart(v))
            mixSpecial(v, tone: tone, levels: levels, into: mix, count: count, out: &out)
            filterEnd(v, out.filter, count: count)
        case .stereo:
            var out = Filtered(base: StereoOut(panLeft: l, panRight: r, curve: curve), filter: filterStart(v))
            mixSpecial(v, tone: tone, levels: levels, into: mix, count: count, out: &out)
            filterEnd(v, out.filter, count: count)
        case .panned:
            var out = Filtered(base: PannedOut(panLeft: l, panRight: r, curve: curve), filter: filterStart(v))
            mixSpecial(v, tone: tone, levels: levels, into: mix, count: count, out: &out)
            filterEnd(v, out.filter, count: count)
        }
    }

    /// Mixes `count` frames of voice `v` read with `read` into `out` (its stretches and
    /// arguments: `VoiceBlock`'s documentation).
    // Not marked `@_noLocks` itself: the mark rejects any generic function; every use is
    // specialized and inlined into a marked caller (`mixVoiceCubic`, ...), where the
    // release build checks it.
    @inline(__always)
    func mixVoice<Read: TableRead, Out: VoiceOutput>(_ v: Int, tone: UnsafePointer<ToneTable>, into mix: UnsafeMutablePointer<Float>, count: Int,
                                                     read: Read.Type, out: inout Out, levels: LevelTable? = nil, levelIndex: Int = 0,
                                                     lastZone: Int = 0) {
        let incTarget = voices.incTarget[v]
        let incStep = voices.incStep[v]
        let glideLeft = voices.glideLeft[v]
        let ramp0 = voices.ramp[v]
        let rampStep = voices.rampStep[v]
        let phase0 = voices.phase[v]

        let lanes = SIMD8<Int32>(0, 1, 2, 3, 4, 5, 6, 7)
        let lanesF = SIMD8<Float>(0, 1, 2, 3, 4, 5, 6, 7)
        // The edge fade follows the voice's ratio: its increment over the region's scale.
        let fadeScale = voices.fadeSlope[v]
        let block = voiceBlock(v, tone: tone, into: mix, read: read, levels: levels, levelIndex: levelIndex, lastZone: lastZone)
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
                              inc: inc, read: read, out: &out)
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
                block.mix(at: n0, frameNumber: frameNumber, base: base, offset: offset, level: level, inc: inc, read: read, out: &out)
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
            base = clampedBlock(v, tone: tone, into: mix, read: read, out: &out, levels: levels, levelIndex: levelIndex, lastZone: lastZone,
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
                block.mix(at: n0, frameNumber: frameNumber, base: base, offset: offset, level: level, inc: inc, read: read, out: &out)
                base = block.advance(base, by: blockSum)
                n0 &+= 8
                frameNumber += 8
            } while n0 &+ 8 <= end
        }

        // 4. The last 1…7 frames, when `count` is not a whole number of blocks: the closed
        //    form with clamps, its lanes past `count` silent (they are this voice's next
        //    frames, which a later span mixes).
        if n0 < end {
            base = clampedBlock(v, tone: tone, into: mix, read: read, out: &out, levels: levels, levelIndex: levelIndex, lastZone: lastZone,
                                at: n0, frames: end &- n0, base: base, r: r)
        }

        voices.phase[v] = base
        voices.glideLeft[v] = max(glideLeft &- end, 0)
        voices.ramp[v] = min(max(ramp0 + rampStep * Float(end), 0), 1)
    }

    /// The edge fade's slope per increment unit for region scale `scale`: fade = min(ratio / silenceRatio, 1).
    @_noLocks @inline(__always)
    static func edgeFadeScale(_ scale: Float) -> Float { 1 / Float(1 << fractionBits) / EngineLimits.silenceRatio / scale }

    /// Voice `v`'s `VoiceBlock` for a span read with `read` (`mixVoice`'s arguments).
    @inline(__always)
    func voiceBlock<Read: TableRead>(_ v: Int, tone: UnsafePointer<ToneTable>, into mix: UnsafeMutablePointer<Float>, read: Read.Type, levels: LevelTable?,
                                     levelIndex: Int, lastZone: Int) -> VoiceBlock {
        let ramp0 = voices.ramp[v], rampStep = voices.rampStep[v]
        let bits = Int64(Mixer.fractionBits)
        let tone = tone.pointee
        return VoiceBlock(tone: tone, rows: Read.tableRows(tone, levels, levelIndex), levels: levels, firstZone: levelIndex, lastZone: lastZone,
                          sustained: ramp0 >= 1 && rampStep >= 0, mix: mix, busFrames: busFrames, rampStep: rampStep, ramp0: ramp0,
                          envFloor: voices.envFloor[v], envSpan: voices.envSpan[v], rightBytes: Read.tableRightBytes(tone, levels),
                          wrapAt: Int64(tone.wrapFrames) << bits, wrapBy: Int64(tone.loopFrames) << bits)
    }

    /// `clampedBlock` for `mixVoice`'s stretches 2 and 4 (at most one block each per
    /// span), out of line and from the voice's state (which `mixVoice` writes back only
    /// at its end): passing the span's `VoiceBlock` instead stored it to the stack at
    /// the start of every span. `n0`: the block's first frame in the span.
    @inline(never)
    func clampedBlock<Read: TableRead, Out: VoiceOutput>(_ v: Int, tone: UnsafePointer<ToneTable>, into mix: UnsafeMutablePointer<Float>, read: Read.Type,
                                                         out: inout Out, levels: LevelTable?, levelIndex: Int, lastZone: Int, at n0: Int32,
                                                         frames: Int32, base: Int64, r: Int32) -> Int64 {
        let block = voiceBlock(v, tone: tone, into: mix, read: read, levels: levels, levelIndex: levelIndex, lastZone: lastZone)
        let frameNumber = SIMD8<Float>(0, 1, 2, 3, 4, 5, 6, 7) + Float(n0 &+ 1)
        return clampedBlock(block, at: n0, frames: frames, frameNumber: frameNumber, base: base, r: r, incTarget: voices.incTarget[v],
                            incStep: voices.incStep[v], gainTarget: voices.gainTarget[v] * block.levelScale,
                            gainStep: voices.gainStep[v] * block.levelScale, fadeScale: voices.fadeSlope[v], read: read, out: &out)
    }

    /// One block in the closed form with clamps, for any r (glide frames left at its
    /// first frame): m_j = min(j, max(r, 0)), lane offsets j·incTarget − incStep·(m_j·r −
    /// m_j(m_j−1)/2), g_j = max(r − j, 0). Mixes its first `frames` (1…8) lanes and
    /// returns the phase after them.
    /// (Checked in its marked callers, as `mixVoice`.)
    @inline(__always)
    func clampedBlock<Read: TableRead, Out: VoiceOutput>(_ block: VoiceBlock, at n0: Int32, frames: Int32, frameNumber: SIMD8<Float>,
                                                         base: Int64, r: Int32, incTarget: Int32, incStep: Int32, gainTarget: Float,
                                                         gainStep: Float, fadeScale: Float, read: Read.Type, out: inout Out) -> Int64 {
        let lanes = SIMD8<Int32>(0, 1, 2, 3, 4, 5, 6, 7)
        let rLanes = SIMD8<Int32>(repeating: r)
        let m = lanewiseMin(lanes, SIMD8<Int32>(repeating: max(r, 0)))
        let glideSum = m &* rLanes &- ((m &* (m &- 1)) &>> 1)
        let offset = lanes &* incTarget &- glideSum &* incStep
        let gLanes = lanewiseMax(rLanes &- lanes, SIMD8<Int32>())
        let inc = SIMD8<Int32>(repeating: incTarget) &- gLanes &* incStep
        let gain = multiplyAdd(SIMD8<Float>(repeating: -gainStep), SIMD8<Float>(gLanes), SIMD8<Float>(repeating: gainTarget))
        let fade = lanewiseMin(SIMD8<Float>(inc) * fadeScale, SIMD8<Float>(repeating: 1))
        let level = (gain * fade).replacing(with: 0, where: lanes .>= frames)
        block.mix(at: n0, frameNumber: frameNumber, base: base, offset: offset, level: level, inc: inc, read: read, out: &out,
                  frames: frames)
        // The phase advance over `frames` frames: the same sum with j = frames.
        let mf = Int64(min(frames, max(r, 0)))
        let sum = Int64(frames) &* Int64(incTarget) &- (mf &* Int64(r) &- ((mf &* (mf &- 1)) >> 1)) &* Int64(incStep)
        return block.advance(base, by: sum)
    }
}

// The reads (`TableRead.swift`), outputs (`VoiceOutput.swift`) and the block that uses
// them meet here: a debug build specializes (and so checks as `@_noLocks`) a generic body
// only from its own file, through witnesses of its own file.

/// How `VoiceBlock` reads the tone: one type per way, a type parameter of the mixing
/// loop (`Mixer.mixVoice`), so the loop is specialized (compiled on its own) for each
/// and holds only its own way's code.
protocol TableRead {
    /// The rows the voice reads: `tone`'s, or those of `levels`' level (or zone)
    /// `levelIndex`.
    static func tableRows(_ tone: ToneTable, _ levels: LevelTable?, _ levelIndex: Int) -> UnsafeRawPointer
    /// Bytes from the left channel's rows to the right's, for these rows (0: mono).
    static func tableRightBytes(_ tone: ToneTable, _ levels: LevelTable?) -> Int
    /// The tone at the 8 lanes' positions `base` + `offset` (fixed-point, tone frames),
    /// interpolated; `inc`: each lane's increment (read by the crossfades only);
    /// `channel`: bytes added to every row address (0, or `VoiceBlock.rightBytes`).
    static func read(_ block: VoiceBlock, base: Int64, offset: SIMD8<Int32>, inc: SIMD8<Int32>, channel: Int) -> SIMD8<Float>
}

/// Where a voice's samples go, one block at a time (`VoiceOutput.swift`): a type
/// parameter of the mixing loop, as `TableRead` is.
protocol VoiceOutput {
    /// Channels of the tone the voice reads (1 or 2): the right is read only for 2.
    static var channels: Int { get }
    /// Adds the block's samples at frame `n0` of the span: `left` (a mono tone's only
    /// channel) and `right` (a stereo tone's; `left` again for mono), each times `gain`
    /// (each lane's gain × envelope × edge fade); `frames` of the 8 are the voice's
    /// (fewer in a span's last block, whose other lanes have gain 0).
    mutating func add(_ block: VoiceBlock, at n0: Int32, left: SIMD8<Float>, right: SIMD8<Float>, gain: SIMD8<Float>, frames: Int32)
}

// Each way's own `tableRows`, `tableRightBytes` and `read` (`TableRead.swift`) are its
// witnesses: nothing to forward, and the witness tables are this file's.
extension LinearRead: TableRead {}
extension CubicRead: TableRead {}
extension LevelRead: TableRead {}
extension CrossfadeRead: TableRead {}
extension BlendRead: TableRead {}
extension MonoOut: VoiceOutput {
    static var channels: Int { @_noLocks @inline(__always) get { channelCount } }
    @_noLocks @inline(__always) mutating func add(_ b: VoiceBlock, at n0: Int32, left: SIMD8<Float>, right: SIMD8<Float>,
                                                  gain: SIMD8<Float>, frames: Int32) { store(b, at: n0, left: left, right: right, gain: gain) }
}
extension StereoOut: VoiceOutput {
    static var channels: Int { @_noLocks @inline(__always) get { channelCount } }
    @_noLocks @inline(__always) mutating func add(_ b: VoiceBlock, at n0: Int32, left: SIMD8<Float>, right: SIMD8<Float>,
                                                  gain: SIMD8<Float>, frames: Int32) { store(b, at: n0, left: left, right: right, gain: gain) }
}
extension PannedOut: VoiceOutput {
    static var channels: Int { @_noLocks @inline(__always) get { channelCount } }
    @_noLocks @inline(__always) mutating func add(_ b: VoiceBlock, at n0: Int32, left: SIMD8<Float>, right: SIMD8<Float>,
                                                  gain: SIMD8<Float>, frames: Int32) { store(b, at: n0, left: left, right: right, gain: gain) }
}
/// A voice through its low-pass filter (`LowPassFilter`), then into `base`'s buses.
/// (Generic over where it goes: declared here with its conformance, as the outputs are.)
struct Filtered<Base: VoiceOutput>: VoiceOutput {
    var base: Base
    var filter: LowPassFilter
    @inline(__always) init(base: Base, filter: LowPassFilter) { self.base = base; self.filter = filter }
    static var channels: Int { @inline(__always) get { Base.channels } }
    @inline(__always)
    mutating func add(_ b: VoiceBlock, at n0: Int32, left: SIMD8<Float>, right: SIMD8<Float>, gain: SIMD8<Float>, frames: Int32) {
        let (l, r) = filter.block(at: n0, left: left * gain, right: right * gain, stereo: Base.channels == 2, frames: frames)
        base.add(b, at: n0, left: l, right: r, gain: SIMD8(repeating: 1), frames: frames)
    }
}

extension VoiceBlock {
    /// Adds frames n0 ..< n0+8 of the voice into `out` (its arguments, and why it is kept
    /// under 64 SIL blocks: `VoiceBlock`'s documentation). (Not marked, as `mixVoice`.)
    @inline(__always)
    func mix<Read: TableRead, Out: VoiceOutput>(at n0: Int32, frameNumber: SIMD8<Float>, base: Int64, offset: SIMD8<Int32>, level: SIMD8<Float>,
                                                inc: SIMD8<Int32>, read: Read.Type, out: inout Out, frames: Int32 = 8) {
        let y = Read.read(self, base: base, offset: offset, inc: inc, channel: 0)
        let right = Out.channels == 2 ? Read.read(self, base: base, offset: offset, inc: inc, channel: rightBytes) : y
        // envelope(n) = floor + span·smoothstep(clamp(ramp0 + rampStep·(n + 1), 0, 1));
        // constant for a sustained voice (ramp0 ≥ 1, rampStep ≥ 0), which skips it (its
        // floor + span rides on the gain, `levelScale`).
        if sustained {
            out.add(self, at: n0, left: y, right: right, gain: level, frames: frames)
            return
        }
        let rampLinear = multiplyAdd(rampStep, frameNumber, ramp0)
        let ramp = lanewiseMin(lanewiseMax(rampLinear, SIMD8<Float>()), SIMD8<Float>(repeating: 1))
        let envelope = multiplyAdd(SIMD8(repeating: envSpan), ramp * ramp * (3 - 2 * ramp), SIMD8(repeating: envFloor))
        out.add(self, at: n0, left: y, right: right, gain: level * envelope, frames: frames)
    }
}
