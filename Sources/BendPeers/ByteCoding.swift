// SPDX-License-Identifier: GPL-3.0-or-later
/// Big-endian writer for frame payloads.
struct ByteWriter {
    var out: [UInt8] = []

    mutating func u8(_ v: UInt8) { out.append(v) }
    mutating func u16(_ v: UInt16) { out.append(UInt8(v >> 8)); out.append(UInt8(v & 0xff)) }
    mutating func u32(_ v: UInt32) { for s in stride(from: 24, through: 0, by: -8) { out.append(UInt8((v >> UInt32(s)) & 0xff)) } }
    mutating func u64(_ v: UInt64) { for s in stride(from: 56, through: 0, by: -8) { out.append(UInt8((v >> UInt64(s)) & 0xff)) } }

    mutating func bytes(_ b: [UInt8], lengthBytes: Int) {
        let n = min(b.count, lengthBytes == 1 ? 255 : 65535)
        if lengthBytes == 1 { u8(UInt8(n)) } else { u16(UInt16(n)) }
        out.append(contentsOf: b.prefix(n))
    }

    /// UTF-8, cut to at most `max` bytes at a character boundary.
    mutating func string(_ s: String, max: Int, lengthBytes: Int) {
        bytes(Array(utf8Prefix(s, maxBytes: max).utf8), lengthBytes: lengthBytes)
    }
}

/// Big-endian reader for frame payloads; every failure names the frame and field.
struct ByteReader {
    let data: [UInt8]
    var offset = 0
    var frame = "frame"

    init(_ data: [UInt8]) { self.data = data }

    var remaining: Int { data.count - offset }

    func error(_ what: String) -> FrameError { FrameError(.malformedFrame, "\(frame): \(what)") }

    private mutating func take(_ n: Int, _ field: String) throws(FrameError) -> ArraySlice<UInt8> {
        guard remaining >= n else { throw error("truncated at \(field) (needs \(n) bytes, \(remaining) left)") }
        defer { offset += n }
        return data[offset..<(offset + n)]
    }

    mutating func u8(_ field: String) throws(FrameError) -> UInt8 { try take(1, field).first! }
    mutating func u16(_ field: String) throws(FrameError) -> UInt16 {
        try take(2, field).reduce(0) { $0 << 8 | UInt16($1) }
    }
    mutating func u32(_ field: String) throws(FrameError) -> UInt32 {
        try take(4, field).reduce(0) { $0 << 8 | UInt32($1) }
    }
    mutating func u64(_ field: String) throws(FrameError) -> UInt64 {
        try take(8, field).reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// A float in 0…1 (pad coordinates).
    mutating func unit(_ field: String) throws(FrameError) -> Float {
        let v = Float(bitPattern: try u32(field))
        guard v.isFinite, (0...1).contains(v) else { throw error("\(field) = \(v), expected 0…1") }
        return v
    }

    mutating func bytes(_ field: String, lengthBytes: Int) throws(FrameError) -> [UInt8] {
        let n = lengthBytes == 1 ? Int(try u8("\(field) length")) : Int(try u16("\(field) length"))
        return Array(try take(n, field))
    }

    /// Everything left.
    mutating func rest() throws(FrameError) -> [UInt8] { Array(try take(remaining, "rest")) }

    mutating func string(_ field: String, max: Int, lengthBytes: Int) throws(FrameError) -> String {
        let b = try bytes(field, lengthBytes: lengthBytes)
        guard b.count <= max else { throw FrameError(.oversizedFrame, "\(frame): \(field) has \(b.count) bytes, at most \(max)") }
        guard let s = String(validating: b, as: UTF8.self) else { throw error("\(field) is not valid UTF-8") }
        return s
    }
}

/// The longest whole-character prefix of `s` that fits in `maxBytes` UTF-8 bytes.
func utf8Prefix(_ s: String, maxBytes: Int) -> String {
    guard s.utf8.count > maxBytes else { return s }
    var cut = ""
    for c in s {
        if cut.utf8.count + String(c).utf8.count > maxBytes { break }
        cut.append(c)
    }
    return cut
}
