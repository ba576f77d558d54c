// SPDX-License-Identifier: GPL-3.0-or-later
import BendEngine
import Glibc

/// How the pad's x (0…1, left to right) becomes a voice's pitch ratio, 0…
/// `EngineLimits.padMaximumRatio` (4, two octaves up; the mixer itself plays up to
/// `EngineLimits.maximumRatio`, 8).
public enum PitchMap: Sendable, Equatable {
    /// ratio = 2·x: 0 at the left edge, 1 (the tone as recorded) at the centre, 2 at the
    /// right edge. Below `EngineLimits.silenceRatio` (x < 0.025) the voice fades to silence.
    case linear
    /// ratio = 2^((x − 0.5)·octaves): `octaves` octaves centred on the tone's pitch
    /// (x = 0.5 plays it as recorded), octaves > 0; clamped to
    /// `EngineLimits.padMaximumRatio`, which more than 4 octaves reach before the right
    /// edge.
    case exponential(octaves: Double)
    /// ratio = centre·2^((x − 0.5)·octaves): as `exponential`, centred on `centre` (a
    /// scale's root, `--scale-root`), centre > 0; clamped the same way.
    case exponentialAround(octaves: Double, centre: Double)

    /// Pitch ratio for `x` (clamped to 0…1; NaN counts as 0.5).
    @_noLocks
    public func ratio(x: Double) -> Double {
        let x = x.isNaN ? 0.5 : min(max(x, 0), 1)
        switch self {
        case .linear:
            return 2 * x
        case .exponential(let octaves):
            // pow (libm): no lock, no allocation.
            return min(_unsafePerformance { pow(2, (x - 0.5) * octaves) }, Double(EngineLimits.padMaximumRatio))
        case let .exponentialAround(octaves, centre):
            return min(centre * _unsafePerformance { pow(2, (x - 0.5) * octaves) }, Double(EngineLimits.padMaximumRatio))
        }
    }

    /// Pad x for a pitch `ratio` (inverse of `ratio(x:)`, clamped to 0…1).
    public func x(ratio: Double) -> Double {
        switch self {
        case .linear:
            return min(max(ratio / 2, 0), 1)
        case .exponential(let octaves):
            guard ratio > 0 else { return 0 }
            return min(max(log2(ratio) / octaves + 0.5, 0), 1)
        case let .exponentialAround(octaves, centre):
            guard ratio > 0 else { return 0 }
            return min(max(log2(ratio / centre) / octaves + 0.5, 0), 1)
        }
    }
}

/// What a pad touch's y plays (`--y-map`): its gain (`gain(y:)`), or its timbre — the
/// voice's low-pass cutoff, when the engine has a filter — at a fixed gain.
public enum PadYMap: String, Sendable, Equatable {
    case gain
    case cutoff

    /// A pad touch's gain when its y is its timbre: the pad's middle, 0.5 (−6 dB).
    public static let cutoffGain = 0.5
}

/// Gain for pad `y` (0 at the bottom, 1 at the top): linear amplitude, clamped to 0…1
/// (NaN counts as 0).
@_noLocks
public func gain(y: Double) -> Double {
    y.isNaN ? 0 : min(max(y, 0), 1)
}
