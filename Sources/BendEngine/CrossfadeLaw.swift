// SPDX-License-Identifier: GPL-3.0-or-later
/// The gains of a crossfade from one signal to another that keep the sum's power where
/// the two signals' is, whatever they have in common: for signals of correlation ρ
/// (−1…1; the normalized inner product, measured where they meet) and place x in 0…1,
/// a(x) = cos θ / √(1 + ρ·sin 2θ) and b(x) = sin θ / √(1 + ρ·sin 2θ), θ = x·π/2, so
/// a² + b² + 2ρab = 1 throughout. Uncorrelated signals (ρ = 0) get the equal-power law
/// (cos, sin: −3 dB each at the middle); identical ones (ρ = 1) equal gain (½ and ½),
/// where the equal-power law would rise 3 dB. Used for a loop's seam
/// (`--loop-crossfade`) and for a voice crossing from one zone's sample to the next.
public struct CrossfadeLaw: Sendable, Equatable {
    /// The two signals' correlation, clamped to −0.95…1 (at −1 no gains keep the power).
    public let correlation: Double

    public init(correlation: Double) {
        self.correlation = correlation.isNaN ? 0 : min(max(correlation, -0.95), 1)
    }

    /// The gains (from, to) at place `x` (clamped to 0…1).
    public func gains(_ x: Double) -> (from: Double, to: Double) {
        let theta = min(max(x, 0), 1) * Double.pi / 2
        let c = CrossfadeLaw.cosine(theta), s = CrossfadeLaw.cosine(Double.pi / 2 - theta)
        let k = 1 / (1 + correlation * 2 * s * c).squareRoot()
        return (c * k, s * k)
    }

    /// The correlation of `a` and `b` over their common length (0 when either is silent).
    public static func correlation(_ a: ArraySlice<Float>, _ b: ArraySlice<Float>) -> Double {
        var ab = 0.0, aa = 0.0, bb = 0.0
        for (x, y) in zip(a, b) {
            ab += Double(x) * Double(y); aa += Double(x) * Double(x); bb += Double(y) * Double(y)
        }
        return aa > 0 && bb > 0 ? ab / (aa * bb).squareRoot() : 0
    }

    /// cos x for x in [0, π/2] (the engine has no libm): Taylor series to x¹⁸, error
    /// below 10⁻¹³.
    static func cosine(_ x: Double) -> Double {
        let x2 = -(x * x)
        var r = 1.0 / 6_402_373_705_728_000  // 1/18!
        for k in stride(from: 16, through: 2, by: -2) {
            var f = 1.0
            for i in 1...k { f *= Double(i) }
            r = r * x2 + 1 / f
        }
        return r * x2 + 1
    }
}
