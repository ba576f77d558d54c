// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl

/// Everything one screen frame shows.
public struct PadStatus: Sendable, Equatable {
    /// A sounding touch as drawn: its marker and numbers.
    public struct Touch: Sendable, Equatable {
        public var id: UInt32
        /// Pad coordinates, 0…1 (x left → right, y bottom → top).
        public var x: Double
        public var y: Double
        /// Pitch ratio (1 = the tone as recorded).
        public var ratio: Double
        /// Linear gain, 0…1.
        public var gain: Double
        /// The marker: `●` for the mouse, a key's letter.
        public var label: Character
        /// When it went down (`TerminalPad.Touch.order`): where labels would overlap, the
        /// newer touch's is drawn in place and the older's moves a row or is left out.
        public var order: UInt64

        public init(id: UInt32, x: Double, y: Double, ratio: Double, gain: Double, label: Character, order: UInt64 = 0) {
            self.id = id
            self.x = x
            self.y = y
            self.ratio = ratio
            self.gain = gain
            self.label = label
            self.order = order
        }
    }

    public var touches: [Touch] = []
    /// The other sources' touches (web, OSC, evdev, peers…), each labelled by its
    /// source's mark; drawn on the pad and listed after the pad's own.
    public var others: [Touch] = []
    /// Pan, −1 (left) … +1 (right).
    public var pan: Double = 0
    /// Output peak since the last frame, linear (1 = full scale); shown in dBFS.
    public var peak: Double = 0
    /// The limiter's smallest gain in the engine's last period, linear (1 = no reduction);
    /// shown as "GR −x.x dB" beside the meter while below 1.
    public var limiterGain: Double = 1
    /// Voices sounding in the engine.
    public var voices: Int = 0
    /// The device's underruns so far; nil (not shown) with no device (paced by the clock).
    public var xruns: Int? = 0
    /// Input events played late (after their period was rendered: JACK MIDI in); shown
    /// as "late N" after the xruns when there are any.
    public var lateEvents: Int = 0
    /// The output settings line, e.g. "default · 48000 Hz · 2 ch · period 256 × 3".
    public var device: String = ""
    /// For the grid's ratio labels.
    public var pitchMap: PitchMap = .linear
    /// The scale at its root: with it the pad draws `guides` instead of the ratio grid,
    /// and each touch's nearest step and offset in cents instead of its ratio.
    public var tuning: Tuning? = nil
    /// Names pitches without a scale (12-TET at the tone's note): a touch shows its
    /// ratio and the nearest note ("×1.08 A#4+33¢"); nil: the ratio only.
    public var names: Tuning? = nil
    /// The scale's steps on the pad (`Tuning.guides(pitchMap:)`), left to right.
    public var guides: [ScaleGuide] = []
    /// Letter keys hold (kitty key releases) rather than toggle; for the help line.
    public var keysHold: Bool = false
    /// What the terminal can show: ASCII draws every character through
    /// `TerminalCharset.ascii` (a non-UTF-8 locale, `LANG=C`).
    public var charset: TerminalCharset = .utf8
    /// Sustain is on (the pad's space bar): the status line says so.
    public var sustained: Bool = false
    /// A short message for the player (a peer's TEXT, a peer connecting or leaving),
    /// drawn in place of the touch list while set; nil: the touch list.
    public var notice: String? = nil

    public init() {}

    /// The pad's touches with ratio and gain from `pitchMap` and `gain(y:)`.
    public static func touches(_ touches: [TerminalPad.Touch], pitchMap: PitchMap) -> [Touch] {
        touches.map {
            Touch(id: $0.id, x: $0.x, y: $0.y, ratio: $0.ratio ?? pitchMap.ratio(x: $0.x), gain: gain(y: $0.y), label: $0.label, order: $0.order)
        }
    }
}
