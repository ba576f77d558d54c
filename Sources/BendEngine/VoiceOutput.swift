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
/// 1 at the centre).
struct StereoOut {
    /// The voice's own pan gains, linear.
    let panLeft: Float
    let panRight: Float
    @_noLocks @inline(__always) init(panLeft: Float, panRight: Float) { self.panLeft = panLeft; self.panRight = panRight }
    static var channelCount: Int { @_noLocks @inline(__always) get { 2 } }
    @_noLocks @inline(__always)
    mutating func store(_ block: VoiceBlock, at n0: Int32, left: SIMD8<Float>, right: SIMD8<Float>, gain: SIMD8<Float>) {
        let l = UnsafeMutableRawPointer(block.mix + Int(n0)), r = UnsafeMutableRawPointer(block.mix + block.busFrames + Int(n0))
        l.storeBytes(of: multiplyAdd(left, gain * panLeft, l.loadUnaligned(as: SIMD8<Float>.self)), as: SIMD8<Float>.self)
        r.storeBytes(of: multiplyAdd(right, gain * panRight, r.loadUnaligned(as: SIMD8<Float>.self)), as: SIMD8<Float>.self)
    }
}

/// A mono voice with a pan of its own (an SFZ region's `pan`): into the left and right
/// buses by its side gains.
struct PannedOut {
    let panLeft: Float
    let panRight: Float
    @_noLocks @inline(__always) init(panLeft: Float, panRight: Float) { self.panLeft = panLeft; self.panRight = panRight }
    static var channelCount: Int { @_noLocks @inline(__always) get { 1 } }
    @_noLocks @inline(__always)
    mutating func store(_ block: VoiceBlock, at n0: Int32, left: SIMD8<Float>, right: SIMD8<Float>, gain: SIMD8<Float>) {
        let l = UnsafeMutableRawPointer(block.mix + Int(n0)), r = UnsafeMutableRawPointer(block.mix + block.busFrames + Int(n0))
        l.storeBytes(of: multiplyAdd(left, gain * panLeft, l.loadUnaligned(as: SIMD8<Float>.self)), as: SIMD8<Float>.self)
        r.storeBytes(of: multiplyAdd(left, gain * panRight, r.loadUnaligned(as: SIMD8<Float>.self)), as: SIMD8<Float>.self)
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
