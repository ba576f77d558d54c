// SPDX-License-Identifier: GPL-3.0-or-later
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
/// Real-time safe: the 15 channels' slots are inline in the value, and the `@_noLocks`
/// entry points (`encode(_:source:into:)`, `releaseAll(into:)`, `configurationMessage`)
/// hand back a `MIDIBurst`, so a plugin's render thread encodes with it; the closure
/// entry points are for other threads (the performance checker would check their
/// closures as real-time code).
/// - Thread: one at a time (the caller serialises; e.g. an observer's lock).
public struct MPEEncoder: Sendable {
    /// MIDI note of the tone's pitch (ratio 1), 0…127, fine tune included (64.02 = E4 + 2 cents).
    public let toneNote: Double
    /// x → ratio for pad touches (`ControlEvent.touch`).
    public let pitchMap: PitchMap
    /// Semitones of a full pitch bend on the member channels (48).
    public static var memberBendRange: Int { @_noLocks get { 48 } }
    /// Member channels (1…15; channel 0 is the master).
    public static var memberChannels: Int { @_noLocks get { 15 } }

    /// The member channels' slots, inline (no heap): `withSlots` reads and writes them.
    private var slots: Slots
    private var clock: UInt64 = 0

    /// Touches that took the channel of an older touch (more than 15 at once).
    public private(set) var stolen = 0

    public init(toneNote: Double = 69, pitchMap: PitchMap = .linear) {
        self.toneNote = min(max(toneNote, 0), 127)
        self.pitchMap = pitchMap
        slots = (Slot(channel: 1), Slot(channel: 2), Slot(channel: 3), Slot(channel: 4), Slot(channel: 5), Slot(channel: 6),
                 Slot(channel: 7), Slot(channel: 8), Slot(channel: 9), Slot(channel: 10), Slot(channel: 11), Slot(channel: 12),
                 Slot(channel: 13), Slot(channel: 14), Slot(channel: 15))
    }

    /// The 15 slots as a buffer, for `body`.
    @_noLocks @inline(__always)
    private mutating func withSlots(_ body: (UnsafeMutablePointer<Slot>) -> Void) {
        withUnsafeMutableBytes(of: &slots) { body($0.baseAddress.unsafelyUnwrapped.assumingMemoryBound(to: Slot.self)) }
    }

    /// The zone set-up: the MCM first, then ±48 semitones on every member channel.
    public func configuration(_ emit: (MIDIMessage) -> Void) {
        for i in 0..<MPEEncoder.configurationCount { emit(MPEEncoder.configurationMessage(i)) }
    }

    /// Messages of the zone set-up (`configurationMessage(0..<configurationCount)`).
    public static var configurationCount: Int { @_noLocks get { 3 + 4 * memberChannels + 2 } }

    /// Message `i` of the zone set-up: the MCM (RPN 6 on the master channel, data entry
    /// MSB = member count), RPN 0 = ±48 semitones on each member channel, then the null
    /// RPN on the master (later data entry goes nowhere).
    @_noLocks
    public static func configurationMessage(_ i: Int) -> MIDIMessage {
        switch i {
        case 0: return .controlChange(0, 101, 0)
        case 1: return .controlChange(0, 100, 6)
        case 2: return .controlChange(0, 6, memberChannels)
        case configurationCount - 2: return .controlChange(0, 101, 127)
        case configurationCount - 1: return .controlChange(0, 100, 127)
        default:
            let c = 1 + (i - 3) / 4
            switch (i - 3) % 4 {
            case 0: return .controlChange(c, 101, 0)
            case 1: return .controlChange(c, 100, 0)
            case 2: return .controlChange(c, 6, memberBendRange)
            default: return .controlChange(c, 38, 0)
            }
        }
    }

    /// The messages for one event of source `source` (its port's index: touches of
    /// different sources are different notes).
    public mutating func encode(_ event: ControlEvent, source: UInt32 = 0, _ emit: (MIDIMessage) -> Void) {
        var burst = MIDIBurst()
        encode(event, source: source, into: &burst)
        for i in 0..<burst.count { emit(burst[i]) }
    }

    /// `encode`, into `burst` (appended).
    @_noLocks
    public mutating func encode(_ event: ControlEvent, source: UInt32 = 0, into burst: inout MIDIBurst) {
        switch event {
        case let .touch(id, phase, x, y):
            touch(key: UInt64(source) << 32 | UInt64(id), phase: phase, ratio: pitchMap.ratio(x: x), gain: gain(y: y), y: y, &burst)
        case let .pitched(id, phase, ratio, g, y):
            touch(key: UInt64(source) << 32 | UInt64(id), phase: phase, ratio: ratio, gain: g, y: y, &burst)
        case let .tilt(t):
            let v = t.isNaN ? 0 : min(max(t, -1), 1)
            burst.append(.controlChange(0, 10, MPEEncoder.nearest((v + 1) / 2 * 127)))
        case let .timbre(id, value):
            timbre(key: UInt64(source) << 32 | UInt64(id), value: value, &burst)
        case let .send(id, bus, level):
            send(key: UInt64(source) << 32 | UInt64(id), controller: Int(bus.index) == 0 ? 91 : Int(bus.index) == 2 ? 93 : -1, level: level, &burst)
        case .sustain:
            // Nothing: the port defers a sustained touch's up until the control is let
            // go, so its note-off already comes when the sound ends.
            break
        }
    }

    /// A touch's timbre (a finger's second dimension) as its channel's CC 74, when it
    /// changed; nothing for a touch with no note.
    @_noLocks
    private mutating func timbre(key: UInt64, value: Double, _ burst: inout MIDIBurst) {
        let t = MPEEncoder.level(value.isNaN ? 0 : min(max(value, 0), 1))
        let n = MPEEncoder.memberChannels
        var out = burst
        withSlots { slots in
            var i = 0
            while i < n {
                if slots[i].active && slots[i].key == key && slots[i].timbre != t {
                    out.append(.controlChange(slots[i].channel, 74, t))
                    slots[i].timbre = t
                }
                i += 1
            }
        }
        burst = out
    }

    /// A touch's effect send as its channel's CC 91 (reverb) or CC 93 (chorus), as MIDI in
    /// reads them back; the delay's send has no General MIDI controller (`controller` < 0:
    /// nothing). Nothing for a touch with no note.
    @_noLocks
    private mutating func send(key: UInt64, controller: Int, level: Double, _ burst: inout MIDIBurst) {
        guard controller >= 0 else { return }
        let v = MPEEncoder.level(level.isNaN ? 0 : min(max(level, 0), 1))
        let n = MPEEncoder.memberChannels
        var out = burst
        withSlots { slots in
            var i = 0
            while i < n {
                if slots[i].active && slots[i].key == key { out.append(.controlChange(slots[i].channel, controller, v)) }
                i += 1
            }
        }
        burst = out
    }

    /// Note-offs for every touch held (the output stops).
    public mutating func releaseAll(_ emit: (MIDIMessage) -> Void) {
        var burst = MIDIBurst()
        releaseAll(into: &burst)
        for i in 0..<burst.count { emit(burst[i]) }
    }

    /// `releaseAll`, into `burst` (at most 15 messages).
    @_noLocks
    public mutating func releaseAll(into burst: inout MIDIBurst) {
        withSlots { slots in
            var i = 0
            while i < MPEEncoder.memberChannels {
                if slots[i].active {
                    burst.append(.noteOff(slots[i].channel, slots[i].note))
                    slots[i].active = false
                }
                i += 1
            }
        }
    }

    /// Touches that hold a channel now.
    public var activeTouches: Int {
        mutating get {
            var n = 0
            withSlots { slots in
                var i = 0
                while i < MPEEncoder.memberChannels { if slots[i].active { n += 1 }; i += 1 }
            }
            return n
        }
    }

    /// The nearest note to `ratio` (semitones from `toneNote`) and the 14-bit bend
    /// (0…16383, 8192 = none) from it at ±`memberBendRange` semitones.
    @_noLocks
    public func noteAndBend(ratio: Double) -> (note: Int, bend: Int) {
        let s = semitones(ratio)
        let note = min(max(MPEEncoder.nearest(s), 0), 127)
        return (note, MPEEncoder.bend(s, from: note))
    }

    /// The nearest integer, halves away from zero (as `rounded()`, which the
    /// performance checker does not see into), for |x| below 2^52.
    @_noLocks @inline(__always)
    static func nearest(_ x: Double) -> Int {
        x >= 0 ? Int(x + 0.5) : -Int(-x + 0.5)
    }

    @_noLocks
    private func semitones(_ ratio: Double) -> Double {
        guard ratio > 0, ratio.isFinite else { return ratio.isNaN || ratio <= 0 ? -1000 : 1000 }
        // log2 (libm): no lock, no allocation.
        return Double(toneNote) + 12 * _unsafePerformance { log2(ratio) }
    }

    @_noLocks
    private static func bend(_ semitones: Double, from note: Int) -> Int {
        let b = (semitones - Double(note)) / Double(memberBendRange) * 8192
        return min(max(nearest(b) + 8192, 0), 16383)
    }

    @_noLocks
    private static func level(_ v: Double) -> Int { v.isNaN ? 0 : nearest(min(max(v, 0), 1) * 127) }

    @_noLocks
    private mutating func touch(key: UInt64, phase: TouchPhase, ratio: Double, gain: Double, y: Double, _ burst: inout MIDIBurst) {
        clock &+= 1
        let now = clock
        let n = MPEEncoder.memberChannels
        let (note, bendNow) = phase == .down ? noteAndBend(ratio: ratio) : (0, 0)
        let semis = phase == .move ? semitones(ratio) : 0
        var stole = false
        var out = burst
        withSlots { slots in
            var held = -1
            var i = 0
            while i < n { if slots[i].active && slots[i].key == key { held = i }; i += 1 }
            switch phase {
            case .down:
                if held >= 0 {  // a down without an up: end the old note first
                    out.append(.noteOff(slots[held].channel, slots[held].note))
                    slots[held].active = false
                    slots[held].lastUsed = now
                }
                var pick = -1
                i = 0
                while i < n {
                    if !slots[i].active && (pick < 0 || slots[i].lastUsed < slots[pick].lastUsed) { pick = i }
                    i += 1
                }
                if pick < 0 {
                    i = 0
                    while i < n { if pick < 0 || slots[i].lastUsed < slots[pick].lastUsed { pick = i }; i += 1 }
                    out.append(.noteOff(slots[pick].channel, slots[pick].note))
                    stole = true
                }
                let velocity = max(1, MPEEncoder.level(gain))
                let timbre = MPEEncoder.level(y)
                let c = slots[pick].channel
                out.append(.pitchBend(c, bendNow))
                out.append(.controlChange(c, 74, timbre))
                out.append(.noteOn(c, note, velocity))
                slots[pick] = Slot(channel: c, key: key, active: true, note: note, bend: bendNow, timbre: timbre,
                                   pressure: velocity, lastUsed: now)
            case .move:
                guard held >= 0 else { return }
                let c = slots[held].channel
                let b = MPEEncoder.bend(semis, from: slots[held].note)
                if b != slots[held].bend { out.append(.pitchBend(c, b)); slots[held].bend = b }
                let t = MPEEncoder.level(y)
                if t != slots[held].timbre { out.append(.controlChange(c, 74, t)); slots[held].timbre = t }
                let p = MPEEncoder.level(gain)
                if p != slots[held].pressure { out.append(.channelPressure(c, p)); slots[held].pressure = p }
            case .up:
                guard held >= 0 else { return }
                out.append(.noteOff(slots[held].channel, slots[held].note))
                slots[held].active = false
                slots[held].lastUsed = now
            }
        }
        burst = out
        if stole { stolen += 1 }
    }
}

/// The 15 member channels' slots, inline.
private typealias Slots = (Slot, Slot, Slot, Slot, Slot, Slot, Slot, Slot, Slot, Slot, Slot, Slot, Slot, Slot, Slot)

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
