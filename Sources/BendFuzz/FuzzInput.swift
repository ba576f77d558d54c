// SPDX-License-Identifier: GPL-3.0-or-later
/// How targets cut one fuzz input into the pieces their decoder meets in real use, so
/// that the raw files of the seed corpus (terminal captures, datagrams, streams) are
/// valid inputs as they are.
enum FuzzInput {
    /// Splits a byte stream into reads of varying size, each with the monotonic time (ns)
    /// it arrives at: sizes cycle 1, 3, 7, 2, 16, 64; gaps cycle 0, 5, 30, 120, 600 ms —
    /// so sequences are split at every place, and every decoder timeout (Escape 100 ms,
    /// sequence 500 ms, …) both fires and does not.
    static func reads(_ bytes: UnsafeRawBufferPointer) -> [(bytes: UnsafeRawBufferPointer, nanos: UInt64)] {
        let sizes = [1, 3, 7, 2, 16, 64]
        let gaps: [UInt64] = [0, 5, 30, 120, 600].map { $0 * 1_000_000 }
        var out: [(UnsafeRawBufferPointer, UInt64)] = []
        var start = 0, i = 0
        var now: UInt64 = 1_000_000_000
        while start < bytes.count {
            let end = min(bytes.count, start + sizes[i % sizes.count])
            now += gaps[i % gaps.count]
            out.append((UnsafeRawBufferPointer(rebasing: bytes[start..<end]), now))
            start = end
            i += 1
        }
        return out
    }

    /// Separates datagrams (or messages) in one input: the 4 bytes `FF FE 0A 0A`, which no
    /// OSC packet or peer frame of the seeds holds; an input without it is one datagram.
    static let separator: [UInt8] = [0xFF, 0xFE, 0x0A, 0x0A]

    static func datagrams(_ bytes: UnsafeRawBufferPointer) -> [UnsafeRawBufferPointer] {
        var out: [UnsafeRawBufferPointer] = []
        var start = 0, i = 0
        while i + separator.count <= bytes.count {
            if bytes[i] == separator[0], bytes[i + 1] == separator[1], bytes[i + 2] == separator[2], bytes[i + 3] == separator[3] {
                out.append(UnsafeRawBufferPointer(rebasing: bytes[start..<i]))
                i += separator.count
                start = i
            } else {
                i += 1
            }
        }
        out.append(UnsafeRawBufferPointer(rebasing: bytes[start..<bytes.count]))
        return out
    }
}
