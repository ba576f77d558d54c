// SPDX-License-Identifier: GPL-3.0-or-later
/// One complete MIDI message of at most three bytes: a channel message (note, control
/// change, program, pressure, pitch bend) or a one-byte system real-time message.
/// A plain value (no heap), so it can travel through an `SPSCRing` and be written from
/// a JACK process callback or a plugin's run (its builders and accessors are `@_noLocks`).
public struct MIDIMessage: Sendable, Equatable, Hashable, BitwiseCopyable, CustomStringConvertible {
    /// The status byte, 0x80…0xFF.
    public var status: UInt8
    /// First data byte, 0…127 (0 when the message has none).
    public var data1: UInt8
    /// Second data byte, 0…127 (0 when the message has none).
    public var data2: UInt8

    @_noLocks
    public init(status: UInt8, data1: UInt8 = 0, data2: UInt8 = 0) {
        self.status = status
        self.data1 = data1 & 0x7F
        self.data2 = data2 & 0x7F
    }

    /// Channel 0…15 of a channel message (the low nibble of the status).
    public var channel: Int { @_noLocks get { Int(status & 0x0F) } }
    /// The message type: the status's high nibble (0x80 note-off … 0xE0 pitch bend, 0xF0 system).
    public var kind: UInt8 { @_noLocks get { status & 0xF0 } }

    /// Bytes on the wire: 3 for notes, poly pressure, control change and pitch bend;
    /// 2 for program change and channel pressure; 1 for system real-time.
    public var length: Int { @_noLocks get { MIDIMessage.length(status: status) } }

    /// Length of a message with this status byte, 0 for statuses that are not whole
    /// messages here (SysEx, system common with data, undefined).
    @_noLocks
    public static func length(status: UInt8) -> Int {
        switch status & 0xF0 {
        case 0x80, 0x90, 0xA0, 0xB0, 0xE0: return 3
        case 0xC0, 0xD0: return 2
        default: return status >= 0xF8 ? 1 : 0
        }
    }

    /// The bytes as an array (tests, files; allocates).
    public var bytes: [UInt8] { Array([status, data1, data2].prefix(length)) }

    public var description: String { bytes.map { String($0, radix: 16, uppercase: true) }.joined(separator: " ") }

    // Builders (channel 0…15, values masked to their bit width).
    @_noLocks
    public static func noteOn(_ channel: Int, _ note: Int, _ velocity: Int) -> MIDIMessage {
        MIDIMessage(status: 0x90 | UInt8(channel & 15), data1: UInt8(note & 127), data2: UInt8(velocity & 127))
    }
    @_noLocks
    public static func noteOff(_ channel: Int, _ note: Int, _ velocity: Int = 64) -> MIDIMessage {
        MIDIMessage(status: 0x80 | UInt8(channel & 15), data1: UInt8(note & 127), data2: UInt8(velocity & 127))
    }
    @_noLocks
    public static func controlChange(_ channel: Int, _ controller: Int, _ value: Int) -> MIDIMessage {
        MIDIMessage(status: 0xB0 | UInt8(channel & 15), data1: UInt8(controller & 127), data2: UInt8(value & 127))
    }
    @_noLocks
    public static func channelPressure(_ channel: Int, _ value: Int) -> MIDIMessage {
        MIDIMessage(status: 0xD0 | UInt8(channel & 15), data1: UInt8(value & 127))
    }
    /// Pitch bend, `value` 0…16383 (8192 = centre).
    @_noLocks
    public static func pitchBend(_ channel: Int, _ value: Int) -> MIDIMessage {
        let v = min(max(value, 0), 16383)
        return MIDIMessage(status: 0xE0 | UInt8(channel & 15), data1: UInt8(v & 127), data2: UInt8(v >> 7))
    }
    /// Pitch bend 0…16383 of a 0xE0 message (8192 = centre).
    public var bendValue: Int { @_noLocks get { Int(data1) | Int(data2) << 7 } }
}
