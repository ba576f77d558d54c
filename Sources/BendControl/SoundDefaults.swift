// SPDX-License-Identifier: GPL-3.0-or-later
/// The instrument's musical defaults, in one place for every front end: play's and
/// render's options (`SoundOptions`), the LV2 plugin's control ports (their fallbacks, and
/// bendsynth.ttl's `lv2:default`, which LV2BundleTests compares) and the phone pad.
///
/// - `gainDB`, −11 dB of master gain: headroom for chords. One voice of the default tone
///   at velocity 100 sounds at −23.8 dBFS RMS (−19 dBFS peak); eight at velocity 100 peak
///   at −3.5…−2.4 dBFS with the limiter off, so the limiter (−0.5 dBFS) stays a guard
///   that chords do not reach (docs/PLAYING.md, "Levels"). 0 dB was the seed's full
///   scale, at which a triad at velocity 90 already reached the limiter.
/// - `exponential` with `octaves` 2: the pad's x in octaves, evenly spaced, centred on the
///   tone's pitch (or the scale's root); `--pitch-map linear` is the seed's ratio 2·x.
/// - `padRounding` `hold`: a pad touch (terminal, phone, touchscreen, peer, OSC, touch
///   script) rests on the nearest step of the scale — chromatic without one — and keeps
///   its vibrato; MIDI keys are never rounded (they arrive in tune).
public enum SoundDefaults {
    public static var gainDB: Double { @_noLocks @inlinable get { -11 } }
    public static var exponential: Bool { @_noLocks @inlinable get { true } }
    public static var octaves: Double { @_noLocks @inlinable get { 2 } }
    public static var padRounding: PitchRounding.Mode { @_noLocks @inlinable get { .hold } }
}
