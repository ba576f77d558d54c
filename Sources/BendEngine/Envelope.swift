// SPDX-License-Identifier: GPL-3.0-or-later
/// A voice's amplitude envelope (attack, decay, sustain, release) in the kernel's terms.
///
/// The kernel evaluates every envelope as one closed form per frame n of a span,
/// envelope(n) = floor + span · smoothstep(clamp(ramp + rampStep·(n + 1), 0, 1)),
/// smoothstep(r) = r²(3 − 2r), with `VoiceBank.envFloor`, `envSpan`, `ramp` and
/// `rampStep` per voice; the stages only change those four:
/// - attack: floor 0, span 1 (or the sustain level when there is no decay), the ramp
///   rising 0 → 1 over `attackFrames`;
/// - decay (when `decayStep` > 0): floor 1, span `sustain − 1`, the ramp rising again
///   0 → 1 over the decay time, so the envelope falls 1 → sustain; clamped at 1 it
///   stays at the sustain level (the sustain stage is the decay's end, no change);
/// - release (and the steal fade): the ramp falls to 0 at `releaseStep` (the steal's
///   own step) from where it is; a voice in its decay or sustain (floor 1) first takes
///   floor 0, span = its envelope now, ramp 1, so the fall starts from the level it
///   had, with zero slope (`Mixer.beginFade`).
/// A held voice's `rampStep` is > 0 in every stage, a fading one's < 0 (the rest of the
/// engine tells them apart by that sign, as before envelopes had stages); a fade ends
/// at ramp 0.
///
/// The attack ends at an exact frame (`attackFrames`, counted down in
/// `VoiceBank.stageLeft`): a span stops there and the decay starts on the next frame
/// (`VoiceSpans.swift`), so the reference mixer can follow it frame by frame.
public struct Envelope: Sendable, BitwiseCopyable, Equatable {
    /// Ramp change per frame of the attack, > 0 (1 / the attack in frames).
    public var attackStep: Float
    /// Frames until the attack's ramp reaches 1 (≥ 1): where the decay starts.
    public var attackFrames: Int32
    /// Ramp change per frame of the decay, > 0; 0: no decay stage.
    public var decayStep: Float
    /// Sustain level, linear gain 0…1 (1: the envelope holds at full level).
    public var sustain: Float
    /// Ramp change per frame of the release, < 0.
    public var releaseStep: Float

    /// - Parameters: times in seconds (≥ 0; each at least one frame), `sustain` linear
    ///   0…1 at `rate` frames per second. A decay of 0 with `sustain` < 1 makes the
    ///   attack rise to the sustain level (never a jump).
    public init(rate: Double, attackSeconds: Double, decaySeconds: Double = 0, sustain: Double = 1, releaseSeconds: Double) {
        let attack = max(1, attackSeconds * rate)
        attackStep = Float(1 / attack)
        attackFrames = Int32(min(attack.rounded(.up), Double(Int32.max)))
        let level = min(max(sustain, 0), 1)
        self.sustain = Float(level)
        decayStep = level < 1 && decaySeconds > 0 ? Float(1 / max(1, decaySeconds * rate)) : 0
        releaseStep = -Float(1 / max(1, releaseSeconds * rate))
    }

    /// The attack's span: the sustain level when there is no decay stage to reach it.
    var attackSpan: Float { @_noLocks @inline(__always) get { decayStep > 0 ? 1 : sustain } }
}
