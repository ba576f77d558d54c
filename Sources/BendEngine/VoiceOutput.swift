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
    let curve: CrossfadeCurve
    @_noLocks @inline(__always) init(panLeft: Float, panRight: Float, curve: CrossfadeCurve = .off) {
        self.panLeft = panLeft; self.panRight = panRight; self.curve = curve
    }
    static var channelCount: Int { @_noLocks @inline(__always) get { 2 } }
    @_noLocks @inline(__always)
    mutating func store(_ block: VoiceBlock, at n0: Int32, left: SIMD8<Float>, right: SIMD8<Float>, gain: SIMD8<Float>) {
        let g = curve.active ? gain * curve.gain(at: n0) : gain
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
    let curve: CrossfadeCurve
    @_noLocks @inline(__always) init(panLeft: Float, panRight: Float, curve: CrossfadeCurve = .off) {
        self.panLeft = panLeft; self.panRight = panRight; self.curve = curve
    }
    static var channelCount: Int { @_noLocks @inline(__always) get { 1 } }
    @_noLocks @inline(__always)
    mutating func store(_ block: VoiceBlock, at n0: Int32, left: SIMD8<Float>, right: SIMD8<Float>, gain: SIMD8<Float>) {
        let g = curve.active ? gain * curve.gain(at: n0) : gain
        let l = UnsafeMutableRawPointer(block.mix + Int(n0)), r = UnsafeMutableRawPointer(block.mix + block.busFrames + Int(n0))
        l.storeBytes(of: multiplyAdd(left, g * panLeft, l.loadUnaligned(as: SIMD8<Float>.self)), as: SIMD8<Float>.self)
        r.storeBytes(of: multiplyAdd(left, g * panRight, r.loadUnaligned(as: SIMD8<Float>.self)), as: SIMD8<Float>.self)
    }
}

/// A voice's part of a zone crossfade over one span (`ZoneCrossfade.swift`): at frame n
/// of the span the crossfade's place is x = clamp(x0 + step·(n + 1), 0, 1), and the
/// voice's gain is the `CrossfadeLaw`'s a(x) going out or b(x) coming in, for the two
/// regions' correlation ρ: cos θ or sin θ over √(1 + ρ·sin 2θ), θ = x·π/2 (the square
/// root taken once per 8-frame block, at its middle: it changes by under 0.01 dB there).
struct CrossfadeCurve {
    /// The curve applies (false: gain 1 throughout).
    let active: Bool
    let x0: Float
    let step: Float
    let correlation: Float
    /// The voice comes in (b) rather than goes out (a).
    let incoming: Bool

    static var off: CrossfadeCurve { @_noLocks @inline(__always) get { CrossfadeCurve(active: false, x0: 0, step: 0, correlation: 0, incoming: false) } }

    @_noLocks @inline(__always)
    init(active: Bool, x0: Float, step: Float, correlation: Float, incoming: Bool) {
        self.active = active; self.x0 = x0; self.step = step; self.correlation = correlation; self.incoming = incoming
    }

    /// The gains of frames n0 … n0 + 7 of the span.
    @_noLocks @inline(__always)
    func gain(at n0: Int32) -> SIMD8<Float> {
        let n = SIMD8<Float>(1, 2, 3, 4, 5, 6, 7, 8) + Float(n0)
        let x = lanewiseMin(lanewiseMax(multiplyAdd(SIMD8(repeating: step), n, SIMD8(repeating: x0)), SIMD8<Float>()), SIMD8(repeating: 1))
        let quarter = Float.pi / 2
        let theta = x * quarter
        let c = EqualPowerPan.cosine(theta), s = EqualPowerPan.cosine(SIMD8(repeating: quarter) - theta)
        // The law's normalization changes slowly: taken once, at the block's middle.
        let m = min(max(x0 + step * (Float(n0) + 4.5), 0), 1) * quarter
        let cm = EqualPowerPan.cosine(SIMD8(repeating: m))[0], sm = EqualPowerPan.cosine(SIMD8(repeating: quarter - m))[0]
        let k = inverseSquareRoot(1 + correlation * 2 * sm * cm)
        return (incoming ? s : c) * k
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
