// SPDX-License-Identifier: GPL-3.0-or-later
/// The System Exclusive messages that retune notes, decoded from a whole SysEx (F0 … F7).
/// Any device ID is taken (bendsynth has none of its own; 7F is "all devices").
///
/// - Master fine tuning, universal real time (MIDI 1.0 CA-025):
///   `F0 7F dev 04 03 lsb msb F7`, 14 bits, 0x2000 = 0, ±100 cents (100/8192 a step).
/// - Master coarse tuning: `F0 7F dev 04 04 lsb msb F7`, msb − 64 semitones (lsb ignored).
/// - MIDI Tuning Standard scale/octave tuning (MTS, CA-020/CA-021), non-real-time `7E` or
///   real-time `7F`: `F0 7E|7F dev 08 08 ff gg hh ss×12 F7` (1-byte form: ss − 64 cents,
///   −64…+63) or `F0 7E|7F dev 08 09 ff gg hh [ss tt]×12 F7` (2-byte form: 14 bits,
///   0x2000 = 0, ±100 cents). The 12 values are C, C#, …, B, offsets from 12-TET; ff gg hh
///   pick the channels: ff bits 0–1 = channels 15–16, gg bits 0–6 = channels 8–14, hh bits
///   0–6 = channels 1–7 (as Roland's SC-8850 and XV-5080 manuals and Kawai's CP205 manual
///   give the 1-byte form; Casio's AT-3 manual the 2-byte one).
/// - Roland GS scale tuning: `F0 41 dev 42 12 40 1x 40 ss×12 sum F7` (DT1, model 42 = GS,
///   address 40 1x 40 with 12 bytes: "Scale Tune", C…B, ss − 64 cents, −64…+63; Roland's
///   FP-30 MIDI implementation, p. 19, gives `F0 41 10 42 12 40 11 40 3A 6D 3E 34 0D 38 6B
///   3C 6F 40 36 0F 76 F7`, its Arabian scale on part 1). Each note has its own address,
///   40 1x 40 (C) … 40 1x 4B (B), and a DT1 writes as many bytes as it holds from its
///   address on, so `F0 41 dev 42 12 40 1x 4k ss sum F7` tunes note k alone (and m bytes
///   from 4k the m notes from k, k + m ≤ 12); the other notes keep their tuning. x is the
///   part's block: 0 is part 10, 1–9 parts 1–9, A–F parts 11–16, each on the MIDI channel
///   of its number (the GS default). `sum` is Roland's checksum: address + data + sum ≡ 0
///   (mod 128) (SC-88 Pro owner's manual, "How to calculate the checksum"); a message
///   that fails it is not taken.
public enum TuningSysEx: Sendable, Equatable {
    /// Cents, −100…+99.99 (master fine tuning).
    case masterFine(cents: Double)
    /// Semitones, −64…+63 (master coarse tuning).
    case masterCoarse(semitones: Int)
    /// Per pitch class C…B, cents from 12-TET, for the channels whose bits are set in
    /// `channels` (bit 0 = channel 1); `realTime`: sounding notes follow at once (7F),
    /// otherwise only notes started after it (7E). `keys`: the pitch classes set (bit 0
    /// = C; all 12 but for a GS write of fewer notes), the others' cents unused (0).
    case scaleOctave(channels: UInt16, cents: KeyCents, realTime: Bool, keys: UInt16 = 0xFFF)

    /// GS part block (the x of address 40 1x 40) → MIDI channel, 0-based: 0 is part 10,
    /// 1–9 parts 1–9, A–F parts 11–16.
    @_noLocks
    static func gsChannel(ofBlock x: Int) -> Int { x == 0 ? 9 : x <= 9 ? x - 1 : x }

    /// The tuning message in `m`, or nil for any other SysEx, a truncated one, or a GS
    /// message whose checksum fails.
    public static func decode<C: RandomAccessCollection>(_ m: C) -> TuningSysEx? where C.Element == UInt8, C.Index == Int {
        Array(m).withUnsafeBytes { decode(bytes: $0) }
    }

    /// `decode` of the bytes at `b` (no heap: a plugin's render thread decodes here).
    @_noLocks
    public static func decode(bytes b: UnsafeRawBufferPointer) -> TuningSysEx? {
        let n = b.count
        guard n >= 6, b[0] == 0xF0, b[n - 1] == 0xF7 else { return nil }
        var i = 1
        while i < n - 1 { if b[i] >= 0x80 { return nil }; i += 1 }
        switch (b[1], b[3], b[4]) {
        case (0x7F, 0x04, 0x03) where n == 8:
            return .masterFine(cents: fourteen(b[6], b[5]))
        case (0x7F, 0x04, 0x04) where n == 8:
            return .masterCoarse(semitones: Int(b[6]) - 64)
        case (0x7E, 0x08, 0x08) where n == 21, (0x7F, 0x08, 0x08) where n == 21:
            var cents = KeyCents()
            var k = 0
            while k < 12 { cents[k] = Double(b[8 + k]) - 64; k += 1 }
            return .scaleOctave(channels: channelMask(b[5], b[6], b[7]), cents: cents, realTime: b[1] == 0x7F)
        case (0x7E, 0x08, 0x09) where n == 33, (0x7F, 0x08, 0x09) where n == 33:
            var cents = KeyCents()
            var k = 0
            while k < 12 { cents[k] = fourteen(b[8 + 2 * k], b[9 + 2 * k]); k += 1 }
            return .scaleOctave(channels: channelMask(b[5], b[6], b[7]), cents: cents, realTime: b[1] == 0x7F)
        case (0x41, 0x42, 0x12) where n >= 11 && b[5] == 0x40 && b[6] & 0xF0 == 0x10 && b[7] >= 0x40 && Int(b[7]) - 0x40 + n - 10 <= 12:
            // Roland's checksum: address + data + sum ≡ 0 (mod 128).
            var sum = 0
            var k = 5
            while k < n - 1 { sum = (sum + Int(b[k])) & 0x7F; k += 1 }
            guard sum == 0 else { return nil }
            // Notes first…first + count − 1 (C = 0), one byte each.
            let first = Int(b[7]) - 0x40, count = n - 10
            var cents = KeyCents()
            var keys: UInt16 = 0
            k = 0
            while k < count { cents[first + k] = Double(b[8 + k]) - 64; keys |= 1 << (first + k); k += 1 }
            return .scaleOctave(channels: 1 << gsChannel(ofBlock: Int(b[6] & 0x0F)), cents: cents, realTime: true, keys: keys)
        default:
            return nil
        }
    }

    /// A 14-bit value (0x2000 = 0) as cents, ±100.
    @_noLocks
    static func fourteen(_ msb: UInt8, _ lsb: UInt8) -> Double { (Double(Int(msb) << 7 | Int(lsb)) - 8192) * 100 / 8192 }

    /// MTS channel bytes → a mask, bit 0 = channel 1.
    @_noLocks
    static func channelMask(_ ff: UInt8, _ gg: UInt8, _ hh: UInt8) -> UInt16 {
        UInt16(hh & 0x7F) | UInt16(gg & 0x7F) << 7 | UInt16(ff & 0x03) << 14
    }
}
