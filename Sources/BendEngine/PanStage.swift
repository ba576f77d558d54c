// SPDX-License-Identifier: GPL-3.0-or-later
/// The pan stage of `Mixer`: voices are mixed to mono, and one equal-power pan, gliding
/// per frame, takes the mono mix into the interleaved stereo output. A `.pan` event is
/// kept (`PanEvent`) and applied here at its frame, after the voices; the stage runs
/// once at the end of each period, or early when a period's list of pan events is full.
extension Mixer {
    /// A pan change at a frame of the current period, applied by the pan stage.
    struct PanEvent {
        /// Frame of the current period the change takes effect at (0…period).
        var offset: Int
        /// The new pan, −1 (left)…+1 (right).
        var target: Float
        /// Nothing sounded when it came: taken at once instead of glided to.
        var immediate: Bool
    }

    /// Pan events one period can hold before the pan stage runs early.
    static var panEventCapacity: Int { @_noLocks @inline(__always) get { 64 } }

    /// Keeps a `.pan` event for the pan stage, at frame `offset` of the period (`out`:
    /// the period's output, for panning early when the event list is full).
    @_noLocks @inline(__always)
    func queuePan(_ event: EngineEvent, at offset: Int32, out: UnsafeMutablePointer<Float>) {
        let target = event.value.isNaN ? 0 : min(max(event.value, -1), 1)
        // When nothing sounds the new pan is taken at once (a glide would only leak
        // the old pan into the next touch's first milliseconds). Voices that are all
        // fading out may have ended before this frame: catch them up to know.
        var a = 0
        var allFading = true
        while a < state.pointee.activeCount && allFading {
            let v = Int(voices.active[a])
            allFading = voices.rampStep[v] < 0 && !voices.hasPending[v]
            a += 1
        }
        if allFading { catchUpAll(to: offset) }
        if state.pointee.panEventCount == Mixer.panEventCapacity {
            // A flood of pan events: pan everything up to here now.
            catchUpAll(to: offset)
            panStage(out, to: Int(offset))
        }
        panEvents[state.pointee.panEventCount] = PanEvent(offset: Int(offset), target: target,
                                                         immediate: state.pointee.activeCount == 0)
        state.pointee.panEventCount += 1
    }

    /// Pans the mono mix into `out` from where the pan stage stands up to `frame`,
    /// applying the kept pan events at their frames.
    @_noLocks
    func panStage(_ out: UnsafeMutablePointer<Float>, to frame: Int) {
        var e = 0
        while e < state.pointee.panEventCount {
            let event = panEvents[e]
            let from = state.pointee.pannedTo
            if event.offset > from {
                panSegment(out, from: from, count: event.offset - from)
                state.pointee.pannedTo = event.offset
            }
            setPan(event.target, immediate: event.immediate)
            e += 1
        }
        state.pointee.panEventCount = 0
        let from = state.pointee.pannedTo
        if frame > from {
            panSegment(out, from: from, count: frame - from)
            state.pointee.pannedTo = frame
        }
    }

    /// Pans frames `from..<from + count` of the mix into `out` and, with effects, of each
    /// computed send into its effect's input (the sends gathered first, `gatherSends`), all
    /// by the same pan; then the pan glide moves on by `count`.
    @_noLocks @inline(__always)
    func panSegment(_ out: UnsafeMutablePointer<Float>, from: Int, count: Int) {
        if let fx = effects {
            gatherSends(fx, from: from, count: count)
            let active = fx.state.pointee.active
            var b = 0
            while b < 3 {
                if active[b] != 0 {
                    panToStereo(fx.sendBuses + b &* 3 &* busFrames + from, into: fx.sendStereo + b &* 2 &* busFrames + 2 &* from,
                                count: count, advance: false)
                }
                b &+= 1
            }
        }
        panToStereo(mono + from, into: out + 2 * from, count: count)
    }

    /// The pan glides to `target` from where it is now, or jumps there when `immediate`.
    @_noLocks
    func setPan(_ target: Float, immediate: Bool) {
        if immediate {
            state.pointee.panTarget = target
            state.pointee.panStep = 0
            state.pointee.panLeft = 0
            return
        }
        let s = state.pointee
        let now = s.panTarget - s.panStep * Float(s.panLeft)
        state.pointee.panTarget = target
        state.pointee.panStep = (target - now) / Float(s.panGlideFrames)
        state.pointee.panLeft = s.panGlideFrames
    }

    /// Equal-power pan of the mono mix `mix[0..<count]` into interleaved stereo `out`,
    /// the pan gliding per frame; advances the pan glide by `count` frames. When the
    /// period's left and right buses are in use (`State.stereoBuses`: stereo or panned
    /// voices), the left bus (`busFrames` after `mix`) joins the mono mix on the left
    /// gain and the right bus on the right gain: a stereo pair panned by the same law.
    /// `advance` false: the glide stays (a send panned before the mix).
    /// - Thread: render.
    @_noLocks
    func panToStereo(_ mix: UnsafeMutablePointer<Float>, into out: UnsafeMutablePointer<Float>, count: Int, advance: Bool = true) {
        let s = state.pointee
        let lanes = SIMD8<Int32>(0, 1, 2, 3, 4, 5, 6, 7)
        let quarterPi = SIMD8<Float>(repeating: Float.pi / 4)
        var n0: Int32 = 0
        let end = Int32(count)
        let buses = s.stereoBuses
        let leftBus = mix + busFrames, rightBus = mix + 2 * busFrames
        while n0 < end {
            let g = lanewiseMax(SIMD8<Int32>(repeating: s.panLeft &- n0) &- lanes, SIMD8<Int32>())
            let pan = SIMD8<Float>(repeating: s.panTarget) - s.panStep * SIMD8<Float>(g)
            let clamped = lanewiseMin(lanewiseMax(pan, SIMD8<Float>(repeating: -1)), SIMD8<Float>(repeating: 1))
            let theta = (clamped + 1) * quarterPi
            let left = EqualPowerPan.cosine(theta)
            let right = EqualPowerPan.cosine(2 * quarterPi - theta)
            let x = UnsafeRawPointer(mix + Int(n0)).loadUnaligned(as: SIMD8<Float>.self)
            var l = x * left
            var r = x * right
            if buses {
                l = multiplyAdd(UnsafeRawPointer(leftBus + Int(n0)).loadUnaligned(as: SIMD8<Float>.self), left, l)
                r = multiplyAdd(UnsafeRawPointer(rightBus + Int(n0)).loadUnaligned(as: SIMD8<Float>.self), right, r)
            }
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
        if advance { state.pointee.panLeft = max(s.panLeft &- end, 0) }
    }
}

/// Equal-power pan law: for pan p in [−1, +1], θ = (p + 1)·π/4 and the channel gains
/// are left = cos θ, right = sin θ = cos(π/2 − θ), so left² + right² = 1 and each side
/// is −3.01 dB (1/√2) at p = 0. (The constant-power law, e.g. Roads, "The Computer
/// Music Tutorial", 1996, p. 460.) The pan stage (`Mixer.panToStereo`) computes the
/// gains lane-wise with `cosine`; `MixerTests.testPanFollowsTheEqualPowerLaw` measures
/// them in the rendered output.
///
/// The engine has no libm, so cos on [0, π/2] comes from its Taylor series to the x¹⁴
/// term: the error is below 3·10⁻⁸, far under 0.001 dB.
enum EqualPowerPan {
    /// cos x lane-wise for x in [0, π/2], Taylor series to x¹⁴ (Horner form).
    @_noLocks @inline(__always)
    static func cosine(_ x: SIMD8<Float>) -> SIMD8<Float> {
        let x2 = -(x * x)
        var r = SIMD8<Float>(repeating: 1.147_074_6e-11)  // 1/14!
        r = r * x2 + 1.0 / 479_001_600                   // 1/12!
        r = r * x2 + 1.0 / 3_628_800                     // 1/10!
        r = r * x2 + 1.0 / 40_320                        // 1/8!
        r = r * x2 + 1.0 / 720                           // 1/6!
        r = r * x2 + 1.0 / 24                            // 1/4!
        r = r * x2 + 0.5                                 // 1/2!
        r = r * x2 + 1
        return r
    }
}
