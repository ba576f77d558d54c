// SPDX-License-Identifier: GPL-3.0-or-later
import BendEngine

/// The tempo a script plays at: a Standard MIDI File's tempo map (`render FILE.mid`), as
/// the clocks the render loop publishes to the mixer (`Mixer.publishTempo`) at each
/// change, so the arpeggiator and the delay follow the file (`TempoSource.midiFile`).
public struct ScriptTempo: Sendable, Equatable {
    /// A tempo from `seconds` on: the beat (quarter notes from the start) there and the BPM.
    public struct Change: Sendable, Equatable {
        public var seconds: Double
        public var beat: Double
        public var bpm: Double
        public init(seconds: Double, beat: Double, bpm: Double) {
            self.seconds = seconds
            self.beat = beat
            self.bpm = bpm
        }
    }

    /// In time order, the first at 0 s.
    public var changes: [Change]

    /// `changes` in time order, with 120 BPM from 0 s put first when none starts there.
    public init(changes: [Change]) {
        var c = changes.sorted { $0.seconds < $1.seconds }
        if c.first?.seconds != 0 { c.insert(Change(seconds: 0, beat: 0, bpm: 120), at: 0) }
        self.changes = c
    }

    /// A clock for each change at `rate` (frames per second), true from its frame
    /// round(seconds · rate), as a script's events: what a render publishes to the mixer
    /// as each comes due (between changes the mixer moves the beat on itself).
    public func clocks(rate: Double) -> [TempoClock] {
        changes.map { TempoClock(frame: UInt64(($0.seconds * rate).rounded()), beat: $0.beat, bpm: $0.bpm, rate: rate, source: .midiFile) }
    }
}
