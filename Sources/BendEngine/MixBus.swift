// SPDX-License-Identifier: GPL-3.0-or-later
/// The mix bus of `Mixer`: after the pan stage, the master gain and the limiter, before
/// the output; and the render thread's own controls of the mix (a plugin host's control
/// ports, read at the start of each block: `setMasterGain`, `setLimiting`,
/// `setInterpolation`). Control threads never call these: they own no part of the mixer.
extension Mixer {
    /// Length of the master gain's glide to a new value, seconds: 10 ms, linear per
    /// frame (a gain knob turned never clicks).
    static var gainGlideSeconds: Double { 0.010 }

    /// Sets the master gain (linear, ≥ 0; NaN counts as 0): the mix glides from the
    /// gain it has now to `gain` over 10 ms, from the next period's first frame.
    /// - Thread: render (between periods).
    @_noLocks
    public func setMasterGain(_ gain: Float) {
        let g = gain.isNaN ? 0 : max(gain, 0)
        guard g != state.pointee.gainTarget else { return }
        glideGain(to: g, frames: state.pointee.gainGlideFrames)
    }

    /// The master gain glides to `gain` over `frames` frames from the next period's first.
    /// - Thread: render.
    @_noLocks @inline(__always)
    func glideGain(to gain: Float, frames: Int32) {
        state.pointee.gainTarget = gain
        state.pointee.gainLeft = frames
    }

    /// Fades the whole mix (the voices and the effects' tails) to silence over `seconds`
    /// from the next period, by the master gain (linear per frame): play's stop, so a
    /// reverb's tail ends without a click. - Thread: any.
    public func fadeOutMix(seconds: Double) {
        meters[5].store(UInt64(max(1, (seconds * configuration.rate).rounded())), ordering: .relaxed)
    }

    /// Takes a `fadeOutMix` request: the master gain glides to 0 over its frames.
    /// - Thread: render.
    @_noLocks
    func takeFadeRequest() {
        let frames = meters[5].exchange(0, ordering: .relaxed)
        glideGain(to: 0, frames: Int32(truncatingIfNeeded: min(frames, UInt64(Int32.max))))
    }

    /// The limiter limits (true, the default) or only delays the mix by its look-ahead
    /// (false: the latency stays, and the gain it was applying recovers to 1 over its
    /// release, 100 ms, instead of jumping). Nothing without a limiter
    /// (`configuration.limiter` false).
    /// - Thread: render (between periods).
    @_noLocks
    public func setLimiting(_ on: Bool) {
        state.pointee.limiting = on
    }

    /// How voices read the tone, from the next span each voice mixes.
    /// - Thread: render (between periods).
    @_noLocks
    public func setInterpolation(_ interpolation: Interpolation) {
        state.pointee.interpolation = interpolation
    }

    /// The mix bus over the period's `frames` frames of `out`: the master gain (gliding
    /// when it was changed), then the limiter; the same pass finds the peak meter's
    /// value. Returns the limiter's smallest gain (1 without one) and the peak.
    /// - Thread: render.
    @_noLocks @inline(__always)
    func mixBus(_ out: UnsafeMutablePointer<Float>, frames: Int) -> (smallestGain: Float, peak: Float) {
        let target = state.pointee.gainTarget
        let left = Int(state.pointee.gainLeft)
        let from = state.pointee.gain
        // The glide's frames in this period: the gain is from + step·(n + 1) at frame n.
        let ramp = min(left, frames)
        let step = left > 0 ? (target - from) / Float(left) : 0
        let reached = ramp == left
        state.pointee.gain = reached ? target : from + step * Float(ramp)
        state.pointee.gainLeft = Int32(left - ramp)
        if let limiter {
            // (When the glide does not end in this period, it covers every frame of it.)
            return limiter.process(out, frames: frames, gain: from, step: step, ramp: ramp, target: target, limiting: state.pointee.limiting)
        }
        var peak: Float = 0
        var i = 0
        if ramp == 0 && target == 1 {
            while i < 2 * frames { peak = max(peak, abs(out[i])); i += 1 }
            return (1, peak)
        }
        var n = 0
        while n < frames {
            let g = n < ramp ? from + step * Float(n + 1) : target
            out[2 * n] *= g
            out[2 * n + 1] *= g
            peak = max(peak, max(abs(out[2 * n]), abs(out[2 * n + 1])))
            n += 1
        }
        return (1, peak)
    }
}
