// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl

/// The entry points of `MIDIInterpreter` for threads other than a render thread: a raw
/// stream (JACK `midi_in`, the ALSA sequencer), messages and SysEx from a MIDI file.
/// The same bodies as the real-time entry points (MIDIInterpreter.swift).
extension MIDIInterpreter {
    /// Parses raw bytes (whole messages or any part of a stream) and interprets each
    /// complete message; every event is passed on with `frame` (the frame offset of the
    /// JACK event, or a stream frame), which the caller stamps them with.
    public mutating func receive<C: Collection>(_ bytes: C, frame: UInt64,
                                                emit: (ControlEvent, UInt64) -> Void) where C.Element == UInt8 {
        var items: [StandardMIDIFile.TimedEvent] = []
        parser.parse(bytes, emit: { items.append(.message($0)) }, sysEx: { items.append(.sysEx(Array($0))) })
        for item in items {
            switch item {
            case .message(let m): interpret(m) { emit($0, frame) }
            case .sysEx(let bytes): interpret(sysEx: bytes) { emit($0, frame) }
            }
        }
    }

    /// Interprets one whole SysEx (F0 … F7): the tuning messages (`TuningSysEx`); any
    /// other is counted in `unusedMessages`.
    public mutating func interpret<C: RandomAccessCollection>(sysEx bytes: C, emit: (ControlEvent) -> Void)
    where C.Element == UInt8, C.Index == Int {
        Array(bytes).withUnsafeBytes { interpretSysEx($0, emit) }
    }

    /// Interprets one complete message.
    public mutating func interpret(_ m: MIDIMessage, emit: (ControlEvent) -> Void) { interpretMessage(m, emit) }

    /// Ends every held note (an up for each, in id order): the source stops, or a reset.
    /// Every pedal lifts too (`.sustain(false)` after the ups when one was down).
    public mutating func releaseAll(emit: (ControlEvent) -> Void) { releaseEverything(emit) }

    /// The pitch ratio a note `note` on `channel` would sound at now (a note begun now:
    /// its pitch class's scale/octave tuning as the channel has it); 0 for a key the
    /// keyboard map leaves out.
    public func ratio(channel: Int, note: Int) -> Double {
        var copy = self  // the real-time helper is `mutating` (see ratio(channel:note:keyCents:))
        return copy.ratio(channel: channel, note: note, keyCents: channels[channel].keyCents[note % 12])
    }
}
