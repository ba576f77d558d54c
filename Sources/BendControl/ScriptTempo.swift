// SPDX-License-Identifier: GPL-3.0-or-later
import BendEngine

/// The tempo a script plays at: a Standard MIDI File's tempo map (`render FILE.mid`), as
/// the clocks the render loop publishes to the mixer (`Mixer.publishTempo`), so the
/// arpeggiator and the delay follow the file (`TempoSource.midiFile`).
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

    /// `changes` (the first moved to 0 s when it is not there: 120 BPM before it).
    public init(changes: [Change]) {
        var c = changes.sorted { $0.seconds < $1.seconds }
        if c.first?.seconds != 0 { c.insert(Change(seconds: 0, beat: 0, bpm: 120), at: 0) }
        self.changes = c
    }

    /// Stream frame of change `i` at `rate`: round(seconds · rate), as a script's events.
    func frame(_ i: Int, rate: Double) -> UInt64 { UInt64((changes[i].seconds * rate).rounded()) }

    /// The clock at stream frame `frame` at `rate` (frames per second).
    public func clock(atFrame frame: UInt64, rate: Double) -> TempoClock {
        var i = 0
        while i + 1 < changes.count && self.frame(i + 1, rate: rate) <= frame { i += 1 }
        let c = changes[i]
        let from = self.frame(i, rate: rate)
        let at = TempoClock(frame: from, beat: c.beat, bpm: c.bpm, rate: rate, source: .midiFile)
        return at.advanced(to: frame)
    }

    /// The clocks one period publishes: the clock at its first frame, then each change
    /// inside it at its frame.
    public func clocks(from start: UInt64, to end: UInt64, rate: Double) -> [TempoClock] {
        var out = [clock(atFrame: start, rate: rate)]
        for i in changes.indices {
            let f = frame(i, rate: rate)
            if f > start && f < end {
                out.append(TempoClock(frame: f, beat: changes[i].beat, bpm: changes[i].bpm, rate: rate, source: .midiFile))
            }
        }
        return out
    }
}
