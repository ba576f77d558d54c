/// Equal-power pan law: for pan p in [−1, +1], θ = (p + 1)·π/4 and the channel gains
/// are left = cos θ, right = sin θ, so left² + right² = 1 and each side is
/// −3.01 dB (1/√2) at p = 0. (The constant-power law, e.g. Roads, "The Computer Music
/// Tutorial", 1996, p. 460.)
///
/// The engine has no libm, so sin and cos on [0, π/2] come from their Taylor series to
/// the x¹³ term: the error is below 3·10⁻⁸, far under 0.001 dB.
public enum EqualPowerPan {
    /// Channel gains for `pan` (clamped to −1…+1).
    @_noLocks @inline(__always)
    public static func gains(_ pan: Float) -> (left: Float, right: Float) {
        let p = min(max(pan, -1), 1)
        let theta = (p + 1) * (Float.pi / 4)
        return (cosine(theta), cosine(Float.pi / 2 - theta))
    }

    /// cos x for x in [0, π/2], Taylor series to x¹⁴ (Horner form).
    @_noLocks @inline(__always)
    static func cosine(_ x: Float) -> Float {
        let x2 = x * x
        var r: Float = 1.147_074_6e-11                // 1/14!
        r = r * x2 * -1 + 1.0 / 479_001_600         // 1/12!
        r = r * x2 * -1 + 1.0 / 3_628_800           // 1/10!
        r = r * x2 * -1 + 1.0 / 40_320              // 1/8!
        r = r * x2 * -1 + 1.0 / 720                 // 1/6!
        r = r * x2 * -1 + 1.0 / 24                  // 1/4!
        r = r * x2 * -1 + 0.5                       // 1/2!
        r = r * x2 * -1 + 1
        return r
    }

    /// cos x lane-wise for x in [0, π/2], the same series as the scalar `cosine`.
    @_noLocks @inline(__always)
    static func cosine(_ x: SIMD8<Float>) -> SIMD8<Float> {
        let x2 = -(x * x)
        var r = SIMD8<Float>(repeating: 1.147_074_6e-11)
        r = r * x2 + 1.0 / 479_001_600
        r = r * x2 + 1.0 / 3_628_800
        r = r * x2 + 1.0 / 40_320
        r = r * x2 + 1.0 / 720
        r = r * x2 + 1.0 / 24
        r = r * x2 + 0.5
        r = r * x2 + 1
        return r
    }
}
