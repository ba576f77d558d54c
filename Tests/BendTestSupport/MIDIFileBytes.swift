// SPDX-License-Identifier: GPL-3.0-or-later
/// Standard MIDI Files for tests, written byte by byte: a format-0 file of one track at 96
/// ticks a quarter (120 bpm, no tempo event: a tick is 1/192 s).
public enum MIDIFileBytes {
    /// The header and one track chunk holding `track` (its events, the end-of-track event
    /// included).
    public static func format0(track: [UInt8]) -> [UInt8] {
        let n = track.count
        return Array("MThd".utf8) + [0, 0, 0, 6, 0, 0, 0, 1, 0, 96]
            + Array("MTrk".utf8) + [UInt8(n >> 24 & 255), UInt8(n >> 16 & 255), UInt8(n >> 8 & 255), UInt8(n & 255)] + track
    }

    /// `notes` on channel 1, all on at once at `velocity`, held `ticks` (192: 1 s), then
    /// off, then the end of the track.
    public static func chord(_ notes: [UInt8], velocity: UInt8 = 100, ticks: Int = 192) -> [UInt8] {
        var track: [UInt8] = []
        for note in notes { track += [0, 0x90, note, velocity] }
        for (i, note) in notes.enumerated() { track += (i == 0 ? quantity(ticks) : [0]) + [0x80, note, 0] }
        return format0(track: track + [0, 0xFF, 0x2F, 0])
    }

    /// `value` as a variable-length quantity (7 bits a byte, the high bit on all but the last).
    public static func quantity(_ value: Int) -> [UInt8] {
        var bytes = [UInt8(value & 0x7F)]
        var rest = value >> 7
        while rest > 0 {
            bytes.insert(UInt8(rest & 0x7F) | 0x80, at: 0)
            rest >>= 7
        }
        return bytes
    }
}
