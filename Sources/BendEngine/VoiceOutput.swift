// SPDX-License-Identifier: GPL-3.0-or-later
/// Where a voice's samples go, one 8-frame block at a time: a type parameter of the
/// mixing loop (`Mixer.mixVoice`), as `TableRead` is, so each way is compiled on its own
/// and a mono voice's loop holds nothing of the others.
///
/// The period's buses (`Mixer.mono`): mono voices add into the mono bus; stereo voices
/// and panned mono voices add into the left and right buses (`VoiceBlock.mix` and
/// `busFrames` floats past it). The pan stage takes the mono bus through the global
/// equal-power pan, and adds the left bus into its left gain and the right bus into its
/// right gain (`PanStage.swift`): a stereo voice's pair is panned by the same law, and at
/// the centre each side is −3 dB, as a mono voice's.
// (The protocol `VoiceOutput` and these types' conformances are declared in
// `MixerKernel.swift`, as `TableRead`'s.)

/// A mono voice at the centre: into the mono bus.
struct MonoOut {
    @_noLocks @inline(__always) init() {}
    static var channelCount: Int { @_noLocks @inline(__always) get { 1 } }
    @_noLocks @inline(__always)
    mutating func store(_ block: VoiceBlock, at n0: Int32, left: SIMD8<Float>, right: SIMD8<Float>, gain: SIMD8<Float>) {
        let slot = UnsafeMutableRawPointer(block.mix + Int(n0))
        slot.storeBytes(of: multiplyAdd(left, gain, slot.loadUnaligned(as: SIMD8<Float>.self)), as: SIMD8<Float>.self)
    }
}

/// A stereo voice: its left channel into the left bus, its right into the right, each
/// times its side's gain of the voice's own pan (`VoiceBank.panLeft`, `panRight`: 1 and
/// 1 at the centre), and times its part of a zone crossfade (`curve`, when active).
struct StereoOut {
    /// The voice's own pan gains, linear.
    let panLeft: Float
    let panRight: Float
    var curve: CrossfadeCurve
    @_noLocks @inline(__always) init(panLeft: Float, panRight: Float, curve: CrossfadeCurve = .off) {
        self.panLeft = panLeft; self.panRight = panRight; self.curve = curve
    }
    static var channelCount: Int { @_noLocks @inline(__always) get { 2 } }
    @_noLocks @inline(__always)
    mutating func store(_ block: VoiceBlock, at n0: Int32, left: SIMD8<Float>, right: SIMD8<Float>, gain: SIMD8<Float>) {
        let g = curve.active ? gain * curve.next() : gain
        let l = UnsafeMutableRawPointer(block.mix + Int(n0)), r = UnsafeMutableRawPointer(block.mix + block.busFrames + Int(n0))
        l.storeBytes(of: multiplyAdd(left, g * panLeft, l.loadUnaligned(as: SIMD8<Float>.self)), as: SIMD8<Float>.self)
        r.storeBytes(of: multiplyAdd(right, g * panRight, r.loadUnaligned(as: SIMD8<Float>.self)), as: SIMD8<Float>.self)
    }
}

/// A mono voice with a pan of its own (an SFZ region's `pan`), or in a zone crossfade:
/// into the left and right buses by its side gains (1 and 1 at the centre), times its
/// part of the crossfade (`curve`, when active).
struct PannedOut {
    let panLeft: Float
    let panRight: Float
    var curve: CrossfadeCurve
    @_noLocks @inline(__always) init(panLeft: Float, panRight: Float, curve: CrossfadeCurve = .off) {
        self.panLeft = panLeft; self.panRight = panRight; self.curve = curve
    }
    static var channelCount: Int { @_noLocks @inline(__always) get { 1 } }
    @_noLocks @inline(__always)
    mutating func store(_ block: VoiceBlock, at n0: Int32, left: SIMD8<Float>, right: SIMD8<Float>, gain: SIMD8<Float>) {
        let g = curve.active ? gain * curve.next() : gain
        let l = UnsafeMutableRawPointer(block.mix + Int(n0)), r = UnsafeMutableRawPointer(block.mix + block.busFrames + Int(n0))
        l.storeBytes(of: multiplyAdd(left, g * panLeft, l.loadUnaligned(as: SIMD8<Float>.self)), as: SIMD8<Float>.self)
        r.storeBytes(of: multiplyAdd(left, g * panRight, r.loadUnaligned(as: SIMD8<Float>.self)), as: SIMD8<Float>.self)
    }
}

/// A voice's part of a zone crossfade over one span (`ZoneCrossfade.swift`): at frame n
/// of the span the crossfade's place is x = x0 + step·(n + 1) (spans end where it
/// reaches 1), and the voice's gain is the `CrossfadeLaw`'s a(x) going out or b(x) coming
/// in, for the two regions' correlation ρ: cos θ or sin θ over √(1 + ρ·sin 2θ), θ = x·π/2.
///
/// Each `next()` gives one 8-frame block's gains, in order from the span's first: the
/// law at the block's two ends, linear between them (over 8 frames of a crossfade of
/// hundreds the curve is a straight line to within 10⁻⁵). Between blocks (cos θ, sin θ)
/// turns by the block's angle (a rotation: no cosine per block), and the normalization
/// takes one Newton step from the block before (it changes by under 10⁻³ a block, so the
/// step leaves it within 10⁻⁹).
struct CrossfadeCurve {
    /// The curve applies (false: gain 1 throughout).
    let active: Bool
    /// cos θ, sin θ and the normalization 1/√(1 + ρ·sin 2θ) at the next block's start.
    var cosine: Float
    var sine: Float
    var norm: Float
    /// cos and sin of the angle of one block (8 frames).
    let turnCosine: Float
    let turnSine: Float
    /// 2ρ.
    let twoRho: Float
    /// 1 coming in (sin θ), 0 going out (cos θ).
    let select: Float

    static var off: CrossfadeCurve {
        @_noLocks @inline(__always) get {
            CrossfadeCurve(active: false, cosine: 1, sine: 0, norm: 1, turnCosine: 1, turnSine: 0, twoRho: 0, select: 0)
        }
    }

    @_noLocks @inline(__always)
    init(active: Bool, cosine: Float, sine: Float, norm: Float, turnCosine: Float, turnSine: Float, twoRho: Float, select: Float) {
        self.active = active; self.cosine = cosine; self.sine = sine; self.norm = norm
        self.turnCosine = turnCosine; self.turnSine = turnSine; self.twoRho = twoRho; self.select = select
    }

    /// The curve of a span starting at place `place` (frame −1 of the span: its frame 0 is
    /// at `place + step`), advancing `step` per frame.
    @_noLocks @inline(__always)
    init(place: Float, step: Float, correlation: Float, incoming: Bool) {
        let quarter = Float.pi / 2
        let theta = min(max(place, 0), 1) * quarter, turn = 8 * step * quarter
        let c = EqualPowerPan.cosine(SIMD8(theta, quarter - theta, turn, quarter - turn, 0, 0, 0, 0))
        self.init(active: true, cosine: c[0], sine: c[1], norm: inverseSquareRoot(1 + 2 * correlation * c[0] * c[1]),
                  turnCosine: c[2], turnSine: c[3], twoRho: 2 * correlation, select: incoming ? 1 : 0)
    }

    /// The gains of the span's next 8 frames.
    @_noLocks @inline(__always)
    mutating func next() -> SIMD8<Float> {
        let g0 = (cosine + select * (sine - cosine)) * norm
        let c = cosine * turnCosine - sine * turnSine, s = sine * turnCosine + cosine * turnSine
        let y = 1 + twoRho * s * c
        norm = norm * (1.5 - 0.5 * y * norm * norm)
        cosine = c
        sine = s
        let g8 = (c + select * (s - c)) * norm
        return multiplyAdd(SIMD8(repeating: (g8 - g0) * 0.125), SIMD8<Float>(1, 2, 3, 4, 5, 6, 7, 8), SIMD8(repeating: g0))
    }
}

/// A voice's own pan as the gains of its two sides, relative to the centre (where both
/// are 1 and the pan stage's law gives each side −3 dB): √2·cos θ and √2·sin θ with
/// θ = (pan + 1)·π/4, the equal-power law (`EqualPowerPan`), so left² + right² = 2.
/// - Thread: setup (`SoundRegion.init`).
func voicePanGains(_ pan: Float) -> (left: Float, right: Float) {
    let p = pan.isNaN ? 0 : min(max(pan, -1), 1)
    if p == 0 { return (1, 1) }
    let theta = SIMD8<Float>(repeating: (p + 1) * (Float.pi / 4))
    let c = EqualPowerPan.cosine(theta)[0], s = EqualPowerPan.cosine(SIMD8(repeating: Float.pi / 2) - theta)[0]
    let root2: Float = 1.414_213_5
    return (c * root2, s * root2)
}

/// 1/√y for y > 0 (the engine has no libm, and a debug build cannot call the standard
/// library's square root from checked code): the bit-pattern estimate and three Newton
/// steps, relative error below 10⁻⁷ for the crossfade law's y in 0.05…2.
@_noLocks @inline(__always)
func inverseSquareRoot(_ y: Float) -> Float {
    var r = Float(bitPattern: 0x5f37_59df &- (y.bitPattern >> 1))
    r = r * (1.5 - 0.5 * y * r * r)
    r = r * (1.5 - 0.5 * y * r * r)
    r = r * (1.5 - 0.5 * y * r * r)
    return r
}
