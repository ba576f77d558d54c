// SPDX-License-Identifier: GPL-3.0-or-later
/// Up to three raw MIDI bytes at a stream frame: what crosses between a sink's process
/// callback and the control thread (JACK `midi_in`: bytes as they arrived, at the frame
/// they arrived at; `midi_out`: one whole message, at the frame it is due). A plain
/// value for an `SPSCRing`; the engine reads no MIDI, it only carries it. A longer
/// event (SysEx) travels as consecutive packets of the same frame.
public struct MIDIPacket: BitwiseCopyable, Sendable, Equatable {
    /// Stream frame: where the bytes arrived (in) or where they are due (out).
    public var frame: UInt64
    /// Bytes used, 1…3.
    public var count: UInt8
    public var byte0: UInt8
    public var byte1: UInt8
    public var byte2: UInt8

    @inlinable
    public init(frame: UInt64, count: Int, _ byte0: UInt8, _ byte1: UInt8 = 0, _ byte2: UInt8 = 0) {
        self.frame = frame
        self.count = UInt8(truncatingIfNeeded: min(max(count, 1), 3))
        self.byte0 = byte0
        self.byte1 = byte1
        self.byte2 = byte2
    }

    /// The bytes used, in order (control side; allocates).
    public var bytes: [UInt8] { Array([byte0, byte1, byte2].prefix(Int(count))) }
}
