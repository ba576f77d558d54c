// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation

/// The least-squares cubic pieces of a band-limited level (`ToneLevelMaker`): the
/// frequency response that gives each piece's Legendre coefficients from the level's
/// spectrum, and the conversion of those to the engine's rows (c0, c1, c2, c3).
///
/// Why pieces fitted to the level rather than an interpolating polynomial through its
/// samples: the level is known exactly between its samples (it is a sum of harmonics),
/// so each piece can be the cubic nearest to it over its interval. The error is then
/// what a cubic cannot follow. With 4 pieces per tone frame a full-band sawtooth reads
/// with −89 dB of alias and image energy at level 0 and a tone whose 63 harmonics are
/// all equally loud with −86 dB (BandLimitedTests), as Niemitalo's optimal polynomial
/// through 4× oversampled samples did (−89, −84 dB in a numeric model) at 16 vector
/// operations per 8 frames more than a row; Hermite through those samples gives −71 dB
/// on the sawtooth. With 2 pieces per tone frame: −82 and −64 dB. The pass band
/// stays flat (no droop to compensate). The engine evaluates a row as it does a cubic
/// Hermite row (`ToneTable.cubicRows`), from 16-bit steps (`LevelTable`).
enum LevelFit {
    /// H_m(ω) for m = 0…3 as (real, imaginary): a harmonic e^{iωx} (ω in radians per
    /// table frame) gives Legendre coefficient a_m = e^{iωi}·H_m(ω) on the piece from
    /// table frame i to i + 1, where the piece is Σ_m a_m P_m(2t − 1).
    /// H_m(ω) = e^{iω/2} (2m + 1) i^m j_m(ω/2), from ∫_{−1}^{1} e^{iku} P_m(u) du = 2 i^m j_m(k).
    static func response(omega: Double) -> [(Double, Double)] {
        let x = omega / 2
        let (c, s) = (cos(x), sin(x))
        return (0..<4).map { m in
            let a = Double(2 * m + 1) * sphericalBessel(m, x)
            // i^m·a, then times e^{ix} = c + i·s.
            let (r, i): (Double, Double) = [(a, 0), (0, a), (-a, 0), (0, -a)][m]
            return (r * c - i * s, r * s + i * c)
        }
    }

    /// Spherical Bessel function j_m(x) by its power series, x^m Σ_k (−x²/2)^k / (k!
    /// (2m + 2k + 1)!!): exact to Double rounding for the |x| ≤ π/2 used here (the
    /// closed forms lose every digit to cancellation at small x).
    static func sphericalBessel(_ m: Int, _ x: Double) -> Double {
        var doubleFactorial = 1.0  // (2m + 1)!!
        for f in stride(from: 1, through: 2 * m + 1, by: 2) { doubleFactorial *= Double(f) }
        var term = pow(x, Double(m)) / doubleFactorial
        var sum = term
        for k in 1..<30 {
            term *= -x * x / (2 * Double(k) * Double(2 * m + 2 * k + 1))
            sum += term
            if abs(term) < 1e-20 * abs(sum) { break }
        }
        return sum
    }

    /// How each Legendre coefficient enters the engine's row (c0, c1, c2, c3) of a piece:
    /// `weights[m][j]` is a_m's part of c_j, the piece Σ_m a_m P_m(2t − 1) being
    /// ((c3·t + c2)·t + c1)·t + c0. P_1(2t − 1) = 2t − 1, P_2 = 6t² − 6t + 1,
    /// P_3 = 20t³ − 30t² + 12t − 1.
    static let weights: [[Double]] = [[1, 0, 0, 0], [-1, 2, 0, 0], [1, -6, 6, 0], [-1, 12, -30, 20]]
}
