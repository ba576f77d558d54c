// SPDX-License-Identifier: GPL-3.0-or-later
/// How pad touches are rounded onto a tuning's steps (`--round`, `--round-rate`).
/// Applies to pad touches (`ControlEvent.touch`) only: a `pitched` touch (MIDI notes
/// and their pitch bend) already plays the pitch its sender chose and passes unrounded.
public struct PitchRounding: Sendable, Equatable {
    public enum Mode: String, Sendable, Equatable, CaseIterable {
        /// Pitch follows the finger (today's behaviour).
        case off
        /// A touch starts on the nearest step; later moves bend from there, unrounded
        /// (the start's offset is kept, so nothing jumps).
        case initial
        /// As `initial`, and a resting touch's centre is drawn onto the nearest step
        /// over `rate` while its vibrato (movement above about `centreHz`) passes
        /// through; moving lets go again over `rate`. Needs ticks (`ControlPort.tick`).
        case hold
    }

    public var mode: Mode
    /// Seconds over which `hold` draws a resting touch onto its step and lets it go
    /// when it moves on, > 0.
    public var rate: Double
    public var tuning: Tuning

    /// Corner of the centre's low-pass, Hz (two one-pole stages in series): slower
    /// movement is the touch's centre, faster movement (vibrato) passes through. At 3 Hz
    /// the two stages let 26 % of a 5 Hz vibrato into the centre (the vibrato played
    /// comes out about 15 % deeper, from the leak's phase lag), and a rested finger's
    /// centre is within a cent of it about 0.3 s after a 30 cent move (2 Hz: 0.5 s).
    public static let centreHz = 3.0
    /// A touch whose centre moves slower than this (cents per second) rests. A ±40 cent
    /// 5 Hz vibrato moves the centre at up to about 335 cents/s.
    public static let restSpeed = 400.0
    /// Cents past the midpoint between steps before a held touch lets go of its step
    /// (so a centre wavering at a midpoint does not flip between steps).
    public static let hysteresisCents = 5.0

    public init(mode: Mode, rate: Double = 0.08, tuning: Tuning) {
        self.mode = mode
        self.rate = rate > 0 && rate.isFinite ? rate : 0.08
        self.tuning = tuning
    }
}
