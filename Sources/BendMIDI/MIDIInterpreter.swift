// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import Glibc

/// Turns a MIDI stream into touches whose pitch is a ratio (`ControlEvent.pitched`):
/// the one mapping of MIDI in (JACK `midi_in`) and MIDI files (`render FILE.mid`).
///
/// - Pitch: a note `n` with bend sounds at ratio 2^((n + bend − toneNote)/12) to the
///   tone's pitch (`toneNote` 69 = A4 = 440 Hz, the default tone's pitch) in 12-TET; with
///   a scale (`KeyboardTuning`: `--scale`, `--kbm`) at its key's ratio there ×
///   2^(bend/12), the bend still in 12-TET semitones from the key's pitch (as tuning
///   libraries do: MTS-ESP, Surge with tuning at MIDI input); a key the map leaves out
///   plays nothing (counted in `unmappedNotes`). Bend in
///   semitones = the note's channel bend × its range (+ the zone master's bend × the
///   master's range for a note on an MPE member channel). Ratios are not clamped to the
///   pad's 2 or 4; the port clamps them to `EngineLimits.maximumRatio` (8, three octaves up).
///   Bend −8192…+8191 is read as (value − 8192)/8192 of the range.
/// - Bend ranges: RPN 0 (CC 101/100 = 0/0, CC 6 semitones, CC 38 cents) on any channel.
///   Without MPE every channel starts at ±2 semitones. An MCM sets the zone's members
///   to ±48 and its master to ±2 (MPE 1.0 defaults), each changeable by RPN 0 after it.
/// - Tuning, added to the bend (in 12-TET semitones): per channel RPN 1 (channel fine
///   tuning: CC 6/38 a 14-bit value, 8192 = 0, ±100 cents; CC 6 alone clears the low 7
///   bits) and RPN 2 (channel coarse tuning: CC 6 − 64 semitones); for every channel the
///   universal master fine and coarse tuning SysEx; per channel and pitch class the MIDI
///   Tuning Standard's scale/octave tuning and Roland GS scale tuning (`TuningSysEx`).
///   Sounding notes follow a retuning at once, except MTS's non-real-time form (7E),
///   which tunes the notes started after it. Reset-all-controllers keeps the tunings; a
///   system reset clears them.
/// - MPE zones: the MCM (RPN 6 on channel 1 or 16, CC 6 = member count; 0 turns the
///   zone off). A reset (0xFF) forgets the zones.
/// - Gain (linear, 0…1): velocity/127 at note-on — linear, like the pad's y → gain, so
///   a pad touch sent as MPE (`MPEEncoder`: y → velocity) comes back at the same gain.
///   Channel pressure (0xD0, and poly pressure 0xA0 for its note) received after a
///   note-on replaces it: gain = pressure/127 (MPE's loudness dimension).
/// - y (0…1, the touch's y for observers; the engine does not use it): CC 74/127, the
///   latest CC 74 of the note's channel (MPE's timbre dimension, sent before or after the
///   note-on); velocity/127 until the channel has had a CC 74.
/// - Release: note-off and note-on with velocity 0 end the touch.
/// - Sustain: CC 64 ≥ 64 is the pedal down, < 64 up, per channel; the source's sustain
///   control (`ControlEvent.sustain`, held by its `ControlPort` like the terminal's space
///   bar or the web pad's button) is down while any channel's pedal is: `.sustain(true)`
///   when the first goes down, `.sustain(false)` when the last lifts. The port holds the
///   released notes, so the recorded touch script and MIDI out see the pedal as every
///   other source's sustain. (Before: each channel's pedal held its own notes and a zone
///   master's its zone's; now any pedal holds every note of the source.)
///   All-sound-off (CC 120) and all-notes-off (CC 123), on any channel, are the panic:
///   every note of every channel ends, the pedals let go, and `panics` counts one (the
///   caller ends every other source's touches: `InstrumentCore.panic`); reset-all-controllers (CC 121) recentres the
///   channel's bend, pressure, CC 74 and sustain; system reset (0xFF) ends every note and
///   forgets all state.
/// - CC 10 (pan), on any channel → the tilt, value/127·2 − 1 (every voice pans).
/// - CC 91 and CC 93: the reverb and chorus sends of the channel's notes (`ControlEvent.send`),
///   now and for the notes it starts later; kept by reset-all-controllers.
/// - Ignored: program change, other controllers, clock and transport, other SysEx;
///   bytes that make no message are counted (`strayBytes`), never stall the stream.
///
/// Touch ids come from a 32-bit counter from `firstID`: every sounding note has an id no
/// other held note has (after the counter wraps, 4·10⁹ notes on, it skips held ids).
///
/// Real-time safe: every field is inline (16 channels, up to 16 × 128 held notes), so a
/// plugin's render thread interprets through the `…InRealTime` entry points
/// (`@_noLocks`, checked); the others (the same code) are for other threads (the
/// performance checker would check their callers' closures as real-time code).
/// - Thread: one at a time (a control thread, or a render thread).
public struct MIDIInterpreter: Sendable {
    /// MIDI note of the tone's pitch (ratio 1), 0…127, fine tune included.
    public var toneNote: Double { @_noLocks get { keys.toneNote } }
    /// Each key's pitch: 12-TET, or a scale through a keyboard map.
    public private(set) var keys: KeyboardTuning
    /// Note-ons of keys the keyboard map leaves out (they play nothing), since the start.
    public private(set) var unmappedNotes = 0
    /// The bend range of a channel no RPN 0 or MCM has set, semitones (MIDI's ±2).
    public private(set) var defaultBendRange = 2.0
    public private(set) var zones = MPEZones()
    /// Complete messages that mean nothing here (program change, other controllers,
    /// clock, transport), since the start.
    public private(set) var unusedMessages = 0

    var parser = MIDIStreamParser()
    var channels = InlineArray<16, ChannelState>(repeating: ChannelState())
    /// Master tuning (universal SysEx), semitones: coarse + fine.
    var masterSemitones = 0.0
    var masterCoarse = 0, masterFineCents = 0.0
    /// The notes sounding, `held[0..<heldCount]`, in note-on order (one per channel and
    /// note at most).
    var held = InlineArray<2048, HeldNote>(repeating: HeldNote(channel: 0, note: 0, id: 0, velocity: 0))
    var heldCount = 0
    /// The next id and the first (ids wrap to it); after a wrap, held ids are skipped.
    var nextID: UInt32
    let firstID: UInt32
    var wrapped = false
    /// Bytes of real-time input that made no message.
    var strayRealTime = 0
    /// CC 120 and CC 123 received (on any channel), since the start: each asks for the panic.
    public private(set) var panics = 0

    /// Bytes of the stream that made no message (see `MIDIStreamParser`).
    public var strayBytes: Int { @_noLocks get { parser.strayBytes + strayRealTime } }
    /// Notes held now (not those only the sustain pedal holds: the port keeps those).
    public var heldNotes: Int { @_noLocks get { heldCount } }

    /// - Parameters:
    ///   - toneNote: MIDI note of the tone's pitch, fine tune included (the tone's root or
    ///     `--tone-note`, 0…127; default 69 = A4).
    ///   - firstID: the first touch id handed out (≥ 1).
    public init(toneNote: Double = 69, firstID: UInt32 = 1) {
        self.init(keys: KeyboardTuning(toneNote: toneNote), firstID: firstID)
    }

    /// - Parameter keys: each key's pitch (a scale through a keyboard map, or 12-TET).
    public init(keys: KeyboardTuning, firstID: UInt32 = 1) {
        self.keys = keys
        self.firstID = max(firstID, 1)
        nextID = self.firstID
    }

    // MARK: - Real-time entry points (@_noLocks: the code below, checked)

    /// One whole MIDI message as a plugin host hands it (an LV2 midi:MidiEvent: a channel
    /// or real-time message, or a whole SysEx F0 … F7; no running status). Bytes that
    /// make no message are counted in `strayBytes`.
    /// - Thread: render (or any one).
    @_noLocks
    public mutating func interpretInRealTime(bytes b: UnsafeRawBufferPointer, emit: (ControlEvent) -> Void) {
        guard b.count > 0 else { return }
        if b[0] == 0xF0 { interpretSysEx(b, emit); return }
        let length = MIDIMessage.length(status: b[0])
        guard b[0] >= 0x80, length > 0, b.count >= length else { strayRealTime += b.count; return }
        interpretMessage(MIDIMessage(status: b[0], data1: length > 1 ? b[1] : 0, data2: length > 2 ? b[2] : 0), emit)
    }

    /// `releaseAll`. - Thread: render (or any one).
    @_noLocks
    public mutating func releaseAllInRealTime(emit: (ControlEvent) -> Void) { releaseEverything(emit) }

    /// The tone's MIDI note changes (a plugin's control): held notes move to their new
    /// ratio. - Thread: render (or any one).
    @_noLocks
    public mutating func setToneNote(_ note: Double, emit: (ControlEvent) -> Void) {
        let n = min(max(note.isNaN ? 69 : note, 0), 127)
        guard n != toneNote else { return }
        keys = keys.withToneNote(n)
        moveAll(emit)
    }

    /// Each key's pitch changes (a plugin's scale file loaded): held notes move to their
    /// key's new pitch (a key the new map leaves out keeps sounding until its note-off).
    /// - Thread: render (or any one).
    @_noLocks
    public mutating func setKeys(_ tuning: KeyboardTuning, emit: (ControlEvent) -> Void) {
        keys = tuning
        moveAll(emit)
    }

    /// The bend range of channels that no RPN 0 or MCM has set (a plugin's control,
    /// semitones, 0…96): held notes on them follow. - Thread: render (or any one).
    @_noLocks
    public mutating func setDefaultBendRange(_ semitones: Double, emit: (ControlEvent) -> Void) {
        let r = min(max(semitones.isNaN ? 2 : semitones, 0), 96)
        guard r != defaultBendRange else { return }
        defaultBendRange = r
        var c = 0
        while c < 16 {
            if !channels[c].bendRangeSet {
                channels[c].bendRange = r
                moveAffected(by: c, emit)
            }
            c += 1
        }
    }

    mutating func interpretSysEx(_ bytes: UnsafeRawBufferPointer, _ emit: (ControlEvent) -> Void) {
        guard let message = TuningSysEx.decode(bytes: bytes) else {
            unusedMessages += 1
            return
        }
        switch message {
        case .masterFine(let cents):
            masterFineCents = cents
        case .masterCoarse(let semitones):
            masterCoarse = semitones
        case let .scaleOctave(mask, cents, realTime, keys):
            var c = 0
            while c < 16 { if mask & (1 << c) != 0 { channels[c].keyCents.set(cents, keys: keys) }; c += 1 }
            guard realTime else { return }
            var i = 0
            while i < heldCount {
                if mask & (1 << held[i].channel) != 0 && keys & (1 << (held[i].note % 12)) != 0 {
                    held[i].keyCents = cents[held[i].note % 12]
                    move(i, emit)
                }
                i += 1
            }
            return
        }
        masterSemitones = Double(masterCoarse) + masterFineCents / 100
        moveAll(emit)
    }

    // MARK: - Messages (one body for both kinds of entry point)

    mutating func interpretMessage(_ m: MIDIMessage, _ emit: (ControlEvent) -> Void) {
        let ch = m.channel
        switch m.kind {
        case 0x80:
            noteOff(ch, Int(m.data1), emit)
        case 0x90:
            if m.data2 == 0 { noteOff(ch, Int(m.data1), emit) } else { noteOn(ch, Int(m.data1), Int(m.data2), emit) }
        case 0xA0:
            let i = heldIndex(ch, Int(m.data1))
            if i >= 0 {
                held[i].pressure = Double(m.data2) / 127
                move(i, emit)
            }
        case 0xB0:
            control(ch, Int(m.data1), Int(m.data2), emit)
        case 0xD0:
            let p = Double(m.data1) / 127
            var i = 0
            while i < heldCount {
                if held[i].channel == ch { held[i].pressure = p; move(i, emit) }
                i += 1
            }
        case 0xE0:
            channels[ch].bend = m.bendValue - 8192
            moveAffected(by: ch, emit)
        case 0xF0 where m.status == 0xFF:
            releaseEverything(emit)
            var c = 0
            while c < 16 { channels[c] = ChannelState(); channels[c].bendRange = defaultBendRange; c += 1 }
            zones = MPEZones()
            (masterSemitones, masterCoarse, masterFineCents) = (0, 0, 0)
        default:
            unusedMessages += 1
        }
    }

    mutating func releaseEverything(_ emit: (ControlEvent) -> Void) {
        // In id order: note-on order, unless the counter wrapped (an insertion sort, in
        // place: the list is cleared after).
        var i = 1
        while i < heldCount {
            let h = held[i]
            var j = i
            while j > 0 && held[j - 1].id > h.id { held[j] = held[j - 1]; j -= 1 }
            held[j] = h
            i += 1
        }
        i = 0
        while i < heldCount { emit(.pitched(id: held[i].id, phase: .up, ratio: 0, gain: 0, y: 0)); i += 1 }
        heldCount = 0
        let before = sustained
        var c = 0
        while c < 16 { channels[c].sustain = false; c += 1 }
        if before { emit(.sustain(false)) }
    }

    /// Sets channel `ch`'s pedal; emits `.sustain` when "any pedal down" changes.
    private mutating func setPedal(_ ch: Int, _ down: Bool, _ emit: (ControlEvent) -> Void) {
        let before = sustained
        channels[ch].sustain = down
        if sustained != before { emit(.sustain(!before)) }
    }

    private mutating func noteOn(_ ch: Int, _ note: Int, _ velocity: Int, _ emit: (ControlEvent) -> Void) {
        guard keys.ratio(ofKey: note) != nil else {
            unmappedNotes += 1
            return
        }
        let old = heldIndex(ch, note)
        if old >= 0 {
            emit(.pitched(id: held[old].id, phase: .up, ratio: 0, gain: 0, y: 0))
            remove(old)
        }
        let id = newID()
        let v = Double(velocity) / 127
        let h = HeldNote(channel: ch, note: note, id: id, velocity: v, keyCents: channels[ch].keyCents[note % 12])
        held[heldCount] = h
        heldCount += 1
        emit(.pitched(id: id, phase: .down, ratio: ratio(channel: ch, note: note, keyCents: h.keyCents), gain: v,
                      y: channels[ch].timbre ?? v))
        if let r = channels[ch].reverbSend { emit(.send(id: id, bus: .reverb, level: r)) }
        if let c = channels[ch].chorusSend { emit(.send(id: id, bus: .chorus, level: c)) }
    }

    private mutating func noteOff(_ ch: Int, _ note: Int, _ emit: (ControlEvent) -> Void) {
        let i = heldIndex(ch, note)
        if i >= 0 { end(i, emit) }
    }

    private mutating func end(_ i: Int, _ emit: (ControlEvent) -> Void) {
        let id = held[i].id
        remove(i)
        emit(.pitched(id: id, phase: .up, ratio: 0, gain: 0, y: 0))
    }

    private mutating func control(_ ch: Int, _ cc: Int, _ value: Int, _ emit: (ControlEvent) -> Void) {
        switch cc {
        case 101: channels[ch].rpn = (value, channels[ch].rpn.lsb)
        case 100: channels[ch].rpn = (channels[ch].rpn.msb, value)
        case 99, 98: channels[ch].rpn = (127, 127)  // an NRPN: data entry no longer goes to an RPN
        case 6, 38:
            dataEntry(ch, msb: cc == 6, value, emit)
        case 74:
            channels[ch].timbre = Double(value) / 127
            moveNotes(on: ch, emit)
        case 10:
            // Pan → the instrument's tilt, on any channel (the tilt pans every voice):
            // 0 → −1, 127 → +1, the inverse of MPEEncoder's round(127·(tilt + 1)/2).
            emit(.tilt(Double(value) / 127 * 2 - 1))
        case 64:
            setPedal(ch, value >= 64, emit)
        case 91, 93:  // effect sends (GM): the channel's held notes and its later ones
            let level = Double(value) / 127
            if cc == 91 { channels[ch].reverbSend = level } else { channels[ch].chorusSend = level }
            var i = 0
            while i < heldCount { if held[i].channel == ch { emit(.send(id: held[i].id, bus: cc == 91 ? .reverb : .chorus, level: level)) }; i += 1 }
        case 120, 123:
            // The panic: every note of every channel ends and the pedals let go; the
            // caller asks the instrument to end every other source's touches too
            // (`panics` counts them: `InstrumentCore.panic`, `HostRender.midi`).
            releaseEverything(emit)
            panics &+= 1
        case 121:
            let before = sustained
            channels[ch] = channels[ch].afterResetAllControllers  // the pedal is up now
            if sustained != before { emit(.sustain(false)) }
            var i = 0
            while i < heldCount { if held[i].channel == ch { held[i].pressure = nil }; i += 1 }
            moveAffected(by: ch, emit)
        default:
            unusedMessages += 1
        }
    }

    private mutating func dataEntry(_ ch: Int, msb: Bool, _ value: Int, _ emit: (ControlEvent) -> Void) {
        switch channels[ch].rpn {
        case (0, 0):
            let range = channels[ch].bendRange
            // (The whole semitones of a range ≥ 0: its integer part.)
            channels[ch].bendRange = msb ? Double(value) : Double(Int(range)) + Double(value) / 100
            channels[ch].bendRangeSet = true
            moveAffected(by: ch, emit)
        case (0, 1):
            // Channel fine tuning: CC 6 the high 7 bits (the low ones cleared), CC 38 the low.
            let raw = channels[ch].fineTuning
            channels[ch].fineTuning = msb ? value << 7 : raw & ~0x7F | value
            moveNotes(on: ch, emit)
        case (0, 2) where msb:
            channels[ch].coarseSemitones = value - 64  // channel coarse tuning; CC 38 ignored
            moveNotes(on: ch, emit)
        case (0, 6) where msb && (ch == 0 || ch == 15):
            zones.configure(master: ch, members: value)
            // MPE defaults: members ±48, master ±2.
            var c = 0
            while c < 16 {
                if zones.master(of: c) != nil {
                    channels[c].bendRange = zones.isMember(c) ? 48 : 2
                    channels[c].bendRangeSet = true
                }
                c += 1
            }
            moveAll(emit)
        default:
            unusedMessages += 1
        }
    }

    // The held-note loops are `mutating` (they change nothing): in a non-mutating method
    // each `held[i]` read copied the whole 112 KB InlineArray first (swiftc 6.3, -O), so
    // a note-on with 1024 notes held cost ~1 ms and a bend as much per held note.

    /// Sends a move for every held note whose pitch depends on channel `ch`'s bend.
    private mutating func moveAffected(by ch: Int, _ emit: (ControlEvent) -> Void) {
        let isMaster = zones.master(of: ch) == ch
        var i = 0
        while i < heldCount {
            if held[i].channel == ch || (isMaster && zones.master(of: held[i].channel) == ch) { move(i, emit) }
            i += 1
        }
    }

    /// Sends a move for every held note of channel `ch`.
    private mutating func moveNotes(on ch: Int, _ emit: (ControlEvent) -> Void) {
        var i = 0
        while i < heldCount { if held[i].channel == ch { move(i, emit) }; i += 1 }
    }

    /// Sends a move for every held note.
    private mutating func moveAll(_ emit: (ControlEvent) -> Void) {
        var i = 0
        while i < heldCount { move(i, emit); i += 1 }
    }

    private mutating func move(_ i: Int, _ emit: (ControlEvent) -> Void) {
        let h = held[i]
        emit(.pitched(id: h.id, phase: .move, ratio: ratio(channel: h.channel, note: h.note, keyCents: h.keyCents),
                      gain: h.pressure ?? h.velocity, y: channels[h.channel].timbre ?? h.velocity))
    }
}
