// SPDX-License-Identifier: GPL-3.0-or-later
/// How a voice reads the tone between frames.
public enum Interpolation: Sendable {
    /// 4-point, 3rd-order Hermite (`hermite4Coefficients`), the engine's default.
    case cubic
    /// Band-limited: the level of the tone's band-limited tables (`ToneLevels`: cubic
    /// pieces fitted to the level, 4 per tone frame) for the voice's ratio, read as the
    /// cubic rows are; two levels crossfaded inside a zone between them.
    /// The app's default. Until the tone table has its levels (`ToneTable.install`),
    /// voices read it as `.cubic`.
    case bandLimited
    /// Straight line between the two nearest frames: y0 + (y1 − y0)·t.
    case linear
}

/// 4-point, 3rd-order Hermite (Catmull–Rom) interpolation between `y0` and `y1` at
/// fraction `t` in [0, 1), with neighbours `ym1` (before `y0`) and `y2` (after `y1`), is
/// the polynomial ((c3·t + c2)·t + c1)·t + y0; this gives its coefficients c1, c2, c3.
/// `ToneTable` precomputes them per frame and the mixer's kernel evaluates the
/// polynomial (`VoiceBlock.mix`).
///
/// Formula: O. Niemitalo, "Polynomial Interpolators for High-Quality Resampling of
/// Oversampled Audio" (2001), section "4-point, 3rd-order Hermite (x-form)".
@_noLocks @inline(__always)
func hermite4Coefficients(_ ym1: Float, _ y0: Float, _ y1: Float, _ y2: Float) -> (c1: Float, c2: Float, c3: Float) {
    (0.5 * (y1 - ym1), ym1 - 2.5 * y0 + 2 * y1 - 0.5 * y2, 0.5 * (y2 - ym1) + 1.5 * (y0 - y1))
}
