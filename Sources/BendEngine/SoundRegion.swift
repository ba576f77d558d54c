// SPDX-License-Identifier: GPL-3.0-or-later
/// One sampled sound as the voices play it: the table a held voice reads, the table a
/// released one goes on in (for a sustain loop), how it loops, where it ends, its pan.
/// A plain tone file is one region; an SFZ instrument is many (`Sound`), each with its
/// `placement` among them.
///
/// The tables are laid out by the loader (BendAudio's `RegionMaker`), in frames of the
/// sound at the output rate ("sound frames"):
/// - `held`: what a voice reads while its touch is held; from frame 0, a prefix played
///   once, then a period repeated (`ToneTable`). For a sustain loop (start s, end e) the
///   held signal is the attack, then the loop for ever, forward, backward or alternating
///   (`Direction`); for a sound that does not loop it is the sound, then silence.
/// - `release` (`LoopMode.loopSustain` only): the sound from `releaseOrigin` to its end,
///   then silence. A voice released inside the loop goes on in it at the sound frame its
///   held phase stands for (`Mixer.releasePhase`), so the release plays through the loop's
///   end into the tail.
///
/// Immutable after `init`; shared read-only by the voices that play it.
public struct SoundRegion: @unchecked Sendable {
    /// What a touch's end does to a voice (SFZ's `loop_mode`).
    public enum LoopMode: UInt8, Sendable, Equatable {
        /// The sound plays once from its start; the touch's end releases it.
        case noLoop
        /// The sound plays once, whole: the touch's end does not release it.
        case oneShot
        /// The sound loops (its sustain loop, or whole) before and after the release.
        case loopContinuous
        /// The sound loops while the touch is held; after its end the sound plays on
        /// from the loop into its tail (`release`).
        case loopSustain
    }

    /// How the sustain loop repeats (libsndfile's `SF_LOOP_*`, BendAudio's `ToneLoop.Mode`).
    public enum Direction: UInt8, Sendable, Equatable {
        /// s → e − 1, s → e − 1, …
        case forward
        /// After the attack reaches e − 1: e − 1 → s, e − 1 → s, …
        case backward
        /// s → e − 1 → s → …, each turning frame played once.
        case alternating
    }

    public let held: ToneTable
    public let release: ToneTable?
    public let mode: LoopMode
    public let direction: Direction
    /// The sustain loop in sound frames, `loopStart ..< loopEnd` (the whole sound for
    /// a sound without one).
    public let loopStart: Int
    public let loopEnd: Int
    /// The sound frame `release`'s frame 0 stands for (≤ `loopStart`).
    public let releaseOrigin: Int
    /// Frames of `held` after which it is silent for good (`noLoop`, `oneShot`), nil when
    /// it loops; frames of `release` after which it is (nil without `release`).
    public let heldEnd: Int?
    public let releaseEnd: Int?
    /// The region's own pan, −1 (left)…+1 (right), equal-power (a stereo region's pair is
    /// panned, a mono region's voice leaves the centre).
    public let pan: Float
    /// Whether a touch's end starts the release fade (SFZ: `ampeg_release`); false: a
    /// released voice plays on to its sound's end at the level it had (a tone file's
    /// sustain loop: its tail plays whole). Never for `oneShot`; always for
    /// `loopContinuous` (it has no end of its own).
    public let releaseFades: Bool
    /// Frames at the end of the loop a held voice is not switched to `release` in (its
    /// seam crossfaded, `--loop-crossfade`: there the held signal is the crossfade, the
    /// sound is not); it switches on a later span, elsewhere in the loop.
    public let releaseHoldFrames: Int
    /// Where the region plays in its sound: pitch and gain ranges, tuning, level,
    /// envelope, round robin, neighbours (`RegionPlacement`; `.anywhere` for a plain tone).
    public let placement: RegionPlacement
    /// The region's own sends to the reverb and the chorus (linear 0…1; an SFZ region's
    /// `effect1`, `effect2`), each below 0 for the instrument's default: a voice of the
    /// region starts in a send group of its own at these levels (`SendEffects`).
    public var effectSends = SIMD2<Float>(-1, -1)
    /// `heldEnd` and `releaseEnd` as fixed-point phases (`Int64.max`: none), and the
    /// pan's side gains (`voicePanGains`), for the render thread.
    let heldEndPhase: Int64
    let releaseEndPhase: Int64
    let panLeft: Float
    let panRight: Float
    /// Whether voices of this region take the plain path: a mono tone that loops whole,
    /// from its start, at the centre, released by a fade only.
    let isPlain: Bool
    /// `mode == .loopSustain`, and whether it loops (`.loopContinuous` or `.loopSustain`),
    /// for the render thread.
    let sustainLoop: Bool
    let loops: Bool

    /// - Parameters: as the properties; `release` and `releaseEnd` only for `loopSustain`.
    /// - Thread: setup.
    public init(held: ToneTable, release: ToneTable? = nil, mode: LoopMode, direction: Direction = .forward,
                loopStart: Int, loopEnd: Int, releaseOrigin: Int = 0, heldEnd: Int? = nil, releaseEnd: Int? = nil, pan: Float = 0,
                releaseFades: Bool = true, releaseHoldFrames: Int = 0, placement: RegionPlacement = .anywhere) {
        precondition((release != nil) == (mode == .loopSustain), "a sustain loop, and only it, has a release table")
        precondition(release == nil || (releaseOrigin <= loopStart && releaseEnd != nil), "the release table starts at or before the loop")
        precondition(0 <= loopStart && loopStart < loopEnd, "a loop holds at least one frame")
        precondition(release == nil || release!.channels == held.channels, "both tables have the same channels")
        self.held = held
        self.release = release
        self.mode = mode
        self.direction = direction
        self.loopStart = loopStart
        self.loopEnd = loopEnd
        self.releaseOrigin = releaseOrigin
        self.heldEnd = heldEnd
        self.releaseEnd = releaseEnd
        self.pan = pan
        // A sound that loops on after the touch (`loopContinuous`) ends only by its fade: it
        // always fades (a tone file's whole loop played by a filtered or stereo voice was
        // never released before).
        self.releaseFades = mode == .loopContinuous || (releaseFades && mode != .oneShot)
        self.releaseHoldFrames = min(max(releaseHoldFrames, 0), loopEnd - loopStart - 1)
        self.placement = placement
        let bits = Int64(Mixer.fractionBits)
        heldEndPhase = heldEnd.map { Int64($0) << bits } ?? .max
        releaseEndPhase = releaseEnd.map { Int64($0) << bits } ?? .max
        (panLeft, panRight) = voicePanGains(pan)
        isPlain = held.channels == 1 && held.prefixFrames == 0 && mode == .loopContinuous && pan == 0
        sustainLoop = mode == .loopSustain
        loops = mode == .loopSustain || mode == .loopContinuous
    }

    /// A tone that loops whole, for ever (what `--tone` played before loop points).
    public init(looping tone: ToneTable) {
        self.init(held: tone, mode: .loopContinuous, loopStart: 0, loopEnd: tone.length)
    }

    /// This region placed as `placement` says. - Thread: setup.
    public func placed(_ placement: RegionPlacement) -> SoundRegion {
        var r = SoundRegion(held: held, release: release, mode: mode, direction: direction, loopStart: loopStart, loopEnd: loopEnd,
                            releaseOrigin: releaseOrigin, heldEnd: heldEnd, releaseEnd: releaseEnd, pan: pan, releaseFades: releaseFades,
                            releaseHoldFrames: releaseHoldFrames, placement: placement)
        r.effectSends = effectSends
        return r
    }


    /// The sound frame (fixed-point, `Mixer.fractionBits`) that held phase `phase`
    /// stands for, as the sound plays forward from there; nil while the phase is before
    /// the loop's start (a voice released in its attack goes on in `held` until then) or
    /// in the loop's last `releaseHoldFrames`.
    @_noLocks
    func soundPosition(heldPhase phase: Int64) -> Int64? {
        guard let position = heldSoundPosition(phase) else { return nil }
        let hold = Int64(loopEnd - releaseHoldFrames) << Int64(Mixer.fractionBits)
        return releaseHoldFrames > 0 && position >= hold && position < Int64(loopEnd) << Int64(Mixer.fractionBits) ? nil : position
    }

    @_noLocks
    func heldSoundPosition(_ phase: Int64) -> Int64? {
        let bits = Int64(Mixer.fractionBits)
        let s = Int64(loopStart) << bits, e = Int64(loopEnd) << bits
        let length = e - s
        switch direction {
        case .forward:
            guard phase >= s else { return nil }
            return s + (phase - s) % length
        case .backward:
            // Forward up to e − 1, then the loop reversed: e − 1 − u.
            guard phase >= s else { return nil }
            let turn = e - (1 << bits)
            if phase < turn { return phase }
            return turn - (phase - turn) % length
        case .alternating:
            guard phase >= s else { return nil }
            let half = length - (1 << bits)  // s → e − 1, then e − 1 → s: each turn once
            guard half > 0 else { return s }
            let u = (phase - s) % (2 * half)
            return u < half ? s + u : e - (1 << bits) - (u - half)
        }
    }
}
