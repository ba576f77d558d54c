// SPDX-License-Identifier: GPL-3.0-or-later
/// The engine's limits in one place: the pitch ratios it plays and the ratios the pad
/// gives, the edge fade, the longest glide. Everything that depends on them (the
/// mixer's clamp, the tone table's guard frames, the pitch maps, `EngineEvent`'s
/// documented ranges) reads them from here.
///
/// A pitch ratio is the tone's playback rate: tone frames per output frame, 1 = as
/// recorded, 2 = an octave up.
public enum EngineLimits {
    /// Largest pitch ratio the mixer plays (ratio); larger ones are clamped to it.
    ///
    /// What depends on it: `ToneTable.guardFrames` (an 8-frame block reads up to
    /// 8 · 8 frames past its first one, plus the interpolation's taps), and the
    /// fixed-point increment, at most 8 · 2^`Mixer.fractionBits` = 2^27, whose sums
    /// over a block's lanes stay below 2^31.
    public static var maximumRatio: Float { @_noLocks @inline(__always) get { 8 } }

    /// Largest pitch ratio a pad gives (ratio): two octaves above the tone. The pitch maps
    /// (`PitchMap`, in BendControl) clamp to it; it stays below `maximumRatio`, so a
    /// glide to the pad's top never reaches the mixer's clamp.
    public static var padMaximumRatio: Float { @_noLocks @inline(__always) get { 4 } }

    /// Pitch ratio below which a voice fades linearly to silence (ratio): ratio 0, the
    /// pad's left edge, is silent, never a held (DC) sample value.
    public static var silenceRatio: Float { @_noLocks @inline(__always) get { 0.05 } }

    /// Longest glide of pitch, gain or pan, in frames (2^20, 21.8 s at 48 kHz): the
    /// smoothing times of `MixerConfiguration` are clamped to it, which keeps glide frame
    /// counts well inside the `Int32`s the kernel computes with.
    public static var maximumGlideFrames: Int32 { @_noLocks @inline(__always) get { 1 << 20 } }
}
