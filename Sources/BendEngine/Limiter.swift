// SPDX-License-Identifier: GPL-3.0-or-later
/// The mix bus limiter: after the pan stage, before the output. A look-ahead peak
/// limiter whose output never exceeds `ceiling` (−0.5 dBFS, so peaks stay at or
/// below −0.3 dBFS with room for the sink's rounding), and which leaves a mix that
/// never reaches the ceiling exactly as it was, only delayed.
///
/// Per stereo frame n (a sample's level is the larger of its two channels):
/// - required(n) = min(1, ceiling / level(n)): the gain frame n needs;
/// - held(n) = min(required over frames n − L + 1 … n, release(n)), where the release
///   recovers toward 1 with time constant `releaseSeconds` (1 − held falls by
///   e^(−1/τ) per frame): a drop is taken at once, the return is slow;
/// - gain(n) = mean of held over frames n − L + 1 … n (a linear attack over L frames);
/// - out(n) = in(n − (L − 1)) · gain(n).
/// Frame p's gain is applied at n = p + L − 1, whose mean covers frames p … p + L − 1,
/// each holding required(p): so gain ≤ required(p) and |out| ≤ ceiling. L − 1 frames is
/// the look-ahead and the added latency: `lookaheadSeconds` (1 ms, 47 frames at 48 kHz).
/// While every frame of the last L is below the ceiling and the release is at 1, gain
/// is exactly 1: the output is the input, delayed, bit for bit.
///
/// Plain pointers allocated at setup (`Limiter.make`); `process` runs on the render
/// thread (`Mixer.render`): no allocation, no locks, no libm (the release factor is
/// computed at setup).
struct Limiter {
    /// Output ceiling, linear: −0.5 dBFS.
    static var ceiling: Float { @_noLocks @inline(__always) get { 0.944_060_9 } }
    /// Look-ahead (and added latency), seconds: 1 ms.
    static let lookaheadSeconds = 0.001
    /// Release time constant, seconds: 100 ms.
    static let releaseSeconds = 0.1

    /// L: frames in the attack's mean and the required-gain window (look-ahead + 1), ≥ 1.
    let length: Int
    /// Per-frame release factor e^(−1/(τ·rate)).
    let releaseFactor: Float
    /// The last L input frames (interleaved stereo, 2L floats), a ring. Owner: render.
    let delay: UnsafeMutablePointer<Float>
    /// required(n) of the last L frames, a ring. Owner: render.
    let required: UnsafeMutablePointer<Float>
    /// held(n) of the last L frames, a ring. Owner: render.
    let held: UnsafeMutablePointer<Float>
    /// [ring position (0..<L), frames since the limiter last acted (required < 1 or
    /// release < 1; ≥ L: every ring value is 1)] and the release state (linear gain).
    /// Owner: render.
    let state: UnsafeMutablePointer<Int>
    let release: UnsafeMutablePointer<Float>

    /// - Thread: setup.
    init(rate: Double) {
        length = max(1, Int((Limiter.lookaheadSeconds * rate).rounded(.down)))
        // e^(−x), x = 1/(τ·rate) ≤ 2·10⁻⁴ (τ = 100 ms, rate ≥ 8000 Hz), by its series to x³
        // (error below 10⁻¹⁵; the engine has no libm).
        let x = 1 / (Limiter.releaseSeconds * rate)
        releaseFactor = Float(1 - x + x * x / 2 - x * x * x / 6)
        delay = .allocate(capacity: 2 * length); delay.initialize(repeating: 0, count: 2 * length)
        required = .allocate(capacity: length); required.initialize(repeating: 1, count: length)
        held = .allocate(capacity: length); held.initialize(repeating: 1, count: length)
        state = .allocate(capacity: 2); state[0] = 0; state[1] = length
        release = .allocate(capacity: 1); release.pointee = 1
    }

    /// Frames of latency the limiter adds (L − 1).
    var latencyFrames: Int { length - 1 }

    func deallocate() { delay.deallocate(); required.deallocate(); held.deallocate(); state.deallocate(); release.deallocate() }

    /// Limits `frames` interleaved stereo frames of `buffer` in place, each first
    /// multiplied by the master gain: `gain + step·(n + 1)` at frame n < `ramp` (its
    /// glide), `target` after. Returns the smallest gain applied (1: untouched) and the
    /// largest absolute sample written (the mixer's peak meter). With `limiting` false
    /// no frame asks for a gain below 1: the mix is only delayed, and a reduction under
    /// way recovers over the release.
    /// - Thread: render.
    @_noLocks
    func process(_ buffer: UnsafeMutablePointer<Float>, frames: Int, gain: Float, step: Float = 0, ramp: Int = 0, target: Float? = nil,
                 limiting: Bool = true) -> (smallestGain: Float, peak: Float) {
        let after = target ?? gain
        let l = length
        var at = state[0]
        var quiet = state[1]
        var r = release.pointee
        var smallest: Float = 1
        var peak: Float = 0
        let ceiling = Limiter.ceiling
        var n = 0
        while n < frames {
            let master = n < ramp ? gain + step * Float(n + 1) : after
            let left = buffer[2 * n] * master, right = buffer[2 * n + 1] * master
            let level = max(abs(left), abs(right))
            let need: Float = limiting && level > ceiling ? ceiling / level : 1
            var g: Float = 1
            if need < 1 || r < 1 || quiet < l {
                required[at] = need
                var windowMin = need
                var i = 0
                while i < l { windowMin = min(windowMin, required[i]); i += 1 }
                r = min(windowMin, 1 - (1 - r) * releaseFactor)
                if r > 0.999_999 && windowMin == 1 { r = 1 }
                held[at] = r
                quiet = (need < 1 || r < 1) ? 0 : quiet + 1
                if quiet < l {
                    var sum: Float = 0
                    i = 0
                    while i < l { sum += held[i]; i += 1 }
                    g = min(sum / Float(l), 1)
                }
            }
            // Out: the frame L − 1 before this one (the oldest in the ring), then this
            // frame takes its slot.
            let next = at + 1 == l ? 0 : at + 1
            let oldest = l == 1 ? at : next
            let outLeft = l == 1 ? left : delay[2 * oldest], outRight = l == 1 ? right : delay[2 * oldest + 1]
            delay[2 * at] = left
            delay[2 * at + 1] = right
            let limitedLeft = g == 1 ? outLeft : outLeft * g, limitedRight = g == 1 ? outRight : outRight * g
            buffer[2 * n] = limitedLeft
            buffer[2 * n + 1] = limitedRight
            peak = max(peak, abs(limitedLeft))
            peak = max(peak, abs(limitedRight))
            smallest = min(smallest, g)
            at = next
            n += 1
        }
        state[0] = at
        state[1] = quiet
        release.pointee = r
        return (smallest, peak)
    }
}
