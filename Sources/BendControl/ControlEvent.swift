// SPDX-License-Identifier: GPL-3.0-or-later
import BendEngine

/// What a touch does: starts, moves or ends.
public enum TouchPhase: String, Sendable, Equatable {
    case down, move, up
}

/// One input event from any source, in pad coordinates or (MIDI) as a pitch ratio.
///
/// The pad: x in 0…1 from the left edge to the right, y in 0…1 from the bottom edge to
/// the top; tilt in −1 (all left) … +1 (all right).
public enum ControlEvent: Sendable, Equatable {
    /// A touch `id` (the source's own id) starts, moves or ends at (x, y); the port maps
    /// x to pitch through its `PitchMap` and y to gain (`gain(y:)`).
    /// `x` and `y` are ignored for `.up`.
    case touch(id: UInt32, phase: TouchPhase, x: Double, y: Double)
    /// A touch whose pitch comes as a ratio, not a pad position (MIDI notes and pitch
    /// bend, MIDI files): no pitch map applies.
    /// - `ratio`: pitch ratio to the tone's pitch (1 = as recorded, 2 = an octave up),
    ///   ≥ 0; the port clamps it to `EngineLimits.maximumRatio` (never to the pad's 4).
    /// - `gain`: linear gain, 0…1 (MIDI: velocity, then pressure).
    /// - `y`: the touch's y, 0…1, for observers (MIDI: CC74); the engine does not use it.
    /// All three are ignored for `.up`.
    case pitched(id: UInt32, phase: TouchPhase, ratio: Double, gain: Double, y: Double)
    /// The pan of every voice, −1…+1.
    case tilt(Double)
    /// Touch `id`'s timbre, 0…1: a second dimension of a finger where its source has one
    /// (the web pad's touch force or radius, a touchscreen's pressure); the voice's
    /// low-pass filter follows it (`--y-map cutoff` and MIDI's CC 74 give it through y
    /// instead). Ignored for a touch that is not down, and without a filter.
    case timbre(id: UInt32, value: Double)
    /// The sustain control goes down (true) or is let go (false): while it is down, the
    /// source's released touches keep sounding; letting it go releases them all. Each
    /// source's port holds its own touches (`ControlPort`): the terminal's space bar,
    /// the web pad's button, MIDI's CC 64, a touch script's `sustain` line.
    case sustain(Bool)
    /// Touch `id`'s send to an effect bus (`SendBus`: reverb, delay, chorus), linear 0…1:
    /// MIDI CC 91 and CC 93 per channel (per note in MPE). Ignored for a touch that is not
    /// down, and without effects; the send glides (`SendEffects`).
    case send(id: UInt32, bus: SendBus, level: Double)
}

extension ControlEvent {
    /// The touch id and phase of a `.touch` or `.pitched` event, nil for `.tilt` and `.sustain`.
    public var touchPhase: (id: UInt32, phase: TouchPhase)? {
        @_noLocks get {
            switch self {
            case let .touch(id, phase, _, _), let .pitched(id, phase, _, _, _): (id, phase)
            case .tilt, .sustain, .timbre, .send: nil
            }
        }
    }

    /// The same event for touch `id` (tilt and sustain unchanged).
    @_noLocks
    public func withTouchID(_ id: UInt32) -> ControlEvent {
        switch self {
        case let .touch(_, phase, x, y): .touch(id: id, phase: phase, x: x, y: y)
        case let .pitched(_, phase, ratio, gain, y): .pitched(id: id, phase: phase, ratio: ratio, gain: gain, y: y)
        case .timbre(_, let value): .timbre(id: id, value: value)
        case let .send(_, bus, level): .send(id: id, bus: bus, level: level)
        case .tilt, .sustain: self
        }
    }
}
