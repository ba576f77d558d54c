// SPDX-License-Identifier: GPL-3.0-or-later
import CLV2

/// An atom:Sequence buffer a host hands a plugin's atom port (atom.h: an LV2_Atom header
/// {size, type}, the sequence body {unit, pad}, then events {frames: Int64, atom
/// {size, type}, bytes} each padded to 8 bytes). Input: `clear`, `append` in frame
/// order. Output: `prepareForOutput` before run (the body's capacity, type atom:Chunk,
/// as atom.ttl asks of hosts), `events` after.
public final class AtomSequence {
    /// Bytes of the buffer (header included).
    public let capacity: Int
    public let buffer: UnsafeMutableRawPointer
    let sequenceType: LV2_URID
    let chunkType: LV2_URID

    public init(capacity: Int, sequenceType: LV2_URID, chunkType: LV2_URID) {
        self.capacity = capacity
        buffer = .allocate(byteCount: capacity, alignment: 16)
        buffer.initializeMemory(as: UInt8.self, repeating: 0, count: capacity)
        self.sequenceType = sequenceType
        self.chunkType = chunkType
        clear()
    }

    deinit { buffer.deallocate() }

    var atom: UnsafeMutablePointer<LV2_Atom> { buffer.assumingMemoryBound(to: LV2_Atom.self) }

    /// An empty input sequence (frames as its time unit: unit 0).
    public func clear() {
        atom.pointee = LV2_Atom(size: 8, type: sequenceType)
        (buffer + 8).storeBytes(of: UInt64(0), as: UInt64.self)
    }

    /// Appends an event at `frame` of the block (events must come in frame order).
    /// - Returns: false when it does not fit.
    @discardableResult
    public func append(frame: Int, type: LV2_URID, bytes: UnsafeRawBufferPointer) -> Bool {
        let used = 8 + Int(atom.pointee.size)
        let size = 16 + bytes.count
        let padded = (size + 7) & ~7
        guard used + padded <= capacity else { return false }
        let at = buffer + used
        at.storeBytes(of: Int64(frame), as: Int64.self)
        at.storeBytes(of: UInt32(bytes.count), toByteOffset: 8, as: UInt32.self)
        at.storeBytes(of: type, toByteOffset: 12, as: UInt32.self)
        if let base = bytes.baseAddress { (at + 16).copyMemory(from: base, byteCount: bytes.count) }
        atom.pointee.size += UInt32(padded)
        return true
    }

    @discardableResult
    public func append(frame: Int, type: LV2_URID, bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { append(frame: frame, type: type, bytes: $0) }
    }

    /// Before run, for an output port: the whole body is the plugin's to fill.
    public func prepareForOutput() {
        atom.pointee = LV2_Atom(size: UInt32(capacity - 8), type: chunkType)
    }

    /// The events the plugin wrote (after run): frame, atom type, body bytes.
    public var events: [(frame: Int, type: LV2_URID, bytes: [UInt8])] {
        guard atom.pointee.type == sequenceType else { return [] }
        var out: [(Int, LV2_URID, [UInt8])] = []
        let end = 8 + Int(atom.pointee.size)
        var at = 16
        while at + 16 <= end {
            let frame = Int((buffer + at).load(as: Int64.self))
            let size = Int((buffer + at).load(fromByteOffset: 8, as: UInt32.self))
            let type = (buffer + at).load(fromByteOffset: 12, as: UInt32.self)
            guard at + 16 + size <= end else { break }
            out.append((frame, type, Array(UnsafeRawBufferPointer(start: buffer + at + 16, count: size))))
            at += (16 + size + 7) & ~7
        }
        return out
    }
}
