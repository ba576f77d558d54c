import BendControl
import Glibc

/// Turns touches from any source into MPE (MIDI Polyphonic Expression) messages: the
/// MIDI out of `--midi-out` and `--record-midi`.
///
/// - Zone: the lower zone, master channel 1 (0 here), 15 member channels 2…16 (1…15).
///   `configuration` sends the MCM (RPN 6 = 15 on channel 1) and RPN 0 = ±48 semitones
///   on every member channel (the MPE default, sent for receivers that need telling);
///   send it first, and again whenever a receiver connects.
/// - One member channel per touch, the least recently used free one (the channel whose
///   note ended longest ago); with all 15 in use a new touch takes the channel of the
///   oldest touch, which gets its note-off first.
/// - Pitch: the touch's ratio (a pad touch's x through the `PitchMap`) as semitones from
///   `toneNote`: the nearest note, plus the rest as pitch bend at ±48 semitones
///   (8192/48 steps per semitone: the error is below 0.4 cent). A note-on is preceded by
///   its pitch bend and CC 74; a move sends the bend again (relative to the note it
///   started on, saturating ±48 semitones from it) when it changed.
/// - y → note-on velocity (max(1, round(127·y))) and CC 74 (round(127·y)); a move
///   sends CC 74 when it changed. Gain → channel pressure on moves, when it changed
///   (a pad touch's gain is its y; a MIDI touch's is its velocity or pressure, whose
///   velocity it also is): `MIDIInterpreter` reads them back the same way.
/// - Release → note-off (velocity 64). Tilt → CC 10 (pan) on the master channel,
///   round(127·(tilt + 1)/2).
///
/// Allocation-free per message after `init` (fixed slots, messages passed to a
/// non-escaping closure).
/// - Thread: one at a time (the caller serialises; e.g. an observer's lock).
public struct MPEEncoder: Sendable {
    /// MIDI note of the tone's pitch (ratio 1), 0…127, fine tune included (64.02 = E4 + 2 cents).
    public let toneNote: Double
    /// x → ratio for pad touches (`ControlEvent.touch`).
    public let pitchMap: PitchMap
    /// Semitones of a full pitch bend on the member channels (48).
    public static let memberBendRange = 48
    /// Member channels (1…15; channel 0 is the master).
    public static let memberChannels = 15

    private var slots: [Slot]
    private var clock: UInt64 = 0

    /// Touches that took the channel of an older touch (more than 15 at once).
    public private(set) var stolen = 0

    public init(toneNote: Double = 69, pitchMap: PitchMap = .linear) {
        self.toneNote = min(max(toneNote, 0), 127)
        self.pitchMap = pitchMap
        slots = (1...MPEEncoder.memberChannels).map { Slot(channel: $0) }
    }

    /// The zone set-up: the MCM first, then ±48 semitones on every member channel.
    public func configuration(_ emit: (MIDIMessage) -> Void) {
        // MCM: RPN 6 on the master channel, data entry MSB = member count.
        emit(.controlChange(0, 101, 0))
        emit(.controlChange(0, 100, 6))
        emit(.controlChange(0, 6, MPEEncoder.memberChannels))
        for c in 1...MPEEncoder.memberChannels {
            emit(.controlChange(c, 101, 0))
            emit(.controlChange(c, 100, 0))
            emit(.controlChange(c, 6, MPEEncoder.memberBendRange))
            emit(.controlChange(c, 38, 0))
        }
        // Null RPN on the master: later data entry goes nowhere.
        emit(.controlChange(0, 101, 127))
        emit(.controlChange(0, 100, 127))
    }

    /// The messages for one event of source `source` (its port's index: touches of
    /// different sources are different notes).
    public mutating func encode(_ event: ControlEvent, source: UInt32 = 0, _ emit: (MIDIMessage) -> Void) {
        switch event {
        case let .touch(id, phase, x, y):
            touch(key: UInt64(source) << 32 | UInt64(id), phase: phase, ratio: pitchMap.ratio(x: x), gain: gain(y: y), y: y, emit)
        case let .pitched(id, phase, ratio, g, y):
            touch(key: UInt64(source) << 32 | UInt64(id), phase: phase, ratio: ratio, gain: g, y: y, emit)
        case let .tilt(t):
            let v = t.isNaN ? 0 : min(max(t, -1), 1)
            emit(.controlChange(0, 10, Int(((v + 1) / 2 * 127).rounded())))
        case .sustain:
            // Nothing: the port defers a sustained touch's up until the control is let
            // go, so its note-off already comes when the sound ends.
            break
        }
    }

    /// Note-offs for every touch held (the output stops).
    public mutating func releaseAll(_ emit: (MIDIMessage) -> Void) {
        for i in slots.indices where slots[i].active {
            emit(.noteOff(slots[i].channel, slots[i].note))
            slots[i].active = false
        }
    }

    /// Touches that hold a channel now.
    public var activeTouches: Int {
        var n = 0
        for s in slots where s.active { n += 1 }
        return n
    }

    /// The nearest note to `ratio` (semitones from `toneNote`) and the 14-bit bend
    /// (0…16383, 8192 = none) from it at ±`memberBendRange` semitones.
    public func noteAndBend(ratio: Double) -> (note: Int, bend: Int) {
        let s = semitones(ratio)
        let note = min(max(Int(s.rounded()), 0), 127)
        return (note, bend(s, from: note))
    }

    private func semitones(_ ratio: Double) -> Double {
        guard ratio > 0, ratio.isFinite else { return ratio.isNaN || ratio <= 0 ? -1000 : 1000 }
        return Double(toneNote) + 12 * log2(ratio)
    }

    private func bend(_ semitones: Double, from note: Int) -> Int {
        let b = (semitones - Double(note)) / Double(MPEEncoder.memberBendRange) * 8192
        return min(max(Int(b.rounded()) + 8192, 0), 16383)
    }

    private static func level(_ v: Double) -> Int { v.isNaN ? 0 : Int((min(max(v, 0), 1) * 127).rounded()) }

    private mutating func touch(key: UInt64, phase: TouchPhase, ratio: Double, gain: Double, y: Double,
                                _ emit: (MIDIMessage) -> Void) {
        var held: Int?
        for i in slots.indices where slots[i].active && slots[i].key == key { held = i }
        clock &+= 1
        switch phase {
        case .down:
            if let i = held {  // a down without an up: end the old note first
                emit(.noteOff(slots[i].channel, slots[i].note))
                slots[i].active = false
                slots[i].lastUsed = clock
            }
            var pick = -1
            for i in slots.indices where !slots[i].active && (pick < 0 || slots[i].lastUsed < slots[pick].lastUsed) { pick = i }
            if pick < 0 {
                for i in slots.indices where pick < 0 || slots[i].lastUsed < slots[pick].lastUsed { pick = i }
                emit(.noteOff(slots[pick].channel, slots[pick].note))
                stolen += 1
            }
            let (note, bend) = noteAndBend(ratio: ratio)
            let velocity = max(1, MPEEncoder.level(gain))
            let timbre = MPEEncoder.level(y)
            let c = slots[pick].channel
            emit(.pitchBend(c, bend))
            emit(.controlChange(c, 74, timbre))
            emit(.noteOn(c, note, velocity))
            slots[pick] = Slot(channel: c, key: key, active: true, note: note, bend: bend, timbre: timbre,
                               pressure: velocity, lastUsed: clock)
        case .move:
            guard let i = held else { return }
            let c = slots[i].channel
            let b = bend(semitones(ratio), from: slots[i].note)
            if b != slots[i].bend { emit(.pitchBend(c, b)); slots[i].bend = b }
            let t = MPEEncoder.level(y)
            if t != slots[i].timbre { emit(.controlChange(c, 74, t)); slots[i].timbre = t }
            let p = MPEEncoder.level(gain)
            if p != slots[i].pressure { emit(.channelPressure(c, p)); slots[i].pressure = p }
        case .up:
            guard let i = held else { return }
            emit(.noteOff(slots[i].channel, slots[i].note))
            slots[i].active = false
            slots[i].lastUsed = clock
        }
    }
}

/// One member channel's touch.
private struct Slot: Sendable {
    var channel: Int
    /// source << 32 | touch id.
    var key: UInt64 = 0
    var active = false
    var note = 0
    /// Last values sent, to send only changes.
    var bend = 8192
    var timbre = 0
    var pressure = 0
    /// The encoder's clock at the channel's last note-on or note-off.
    var lastUsed: UInt64 = 0
}
