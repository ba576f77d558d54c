// SPDX-License-Identifier: GPL-3.0-or-later
/// The events of an atom:Sequence a host hands a plugin's input port, read in place
/// (atom.h: LV2_Atom {size, type}, LV2_Atom_Sequence_Body {unit, pad}, then events
/// LV2_Atom_Event {frames: Int64, LV2_Atom {size, type}, body} each padded to 8 bytes;
/// atom/util.h's LV2_ATOM_SEQUENCE_FOREACH walks the same layout). Plain raw-pointer
/// reads: no allocation, for the render thread.
struct AtomEvents {
    /// The sequence (its LV2_Atom header).
    let start: UnsafeRawPointer

    @_noLocks
    init(start: UnsafeRawPointer) { self.start = start }

    /// An event: its frame in the block (the host's time stamp), its atom type and body.
    struct Event {
        var frame: Int64
        var type: UInt32
        var body: UnsafeRawBufferPointer

        @_noLocks
        init(frame: Int64, type: UInt32, body: UnsafeRawBufferPointer) {
            self.frame = frame
            self.type = type
            self.body = body
        }
    }

    /// Calls `body` with each event in order (the host sorts them by time).
    /// - Thread: render.
    @_noLocks
    func forEach(_ body: (Event) -> Void) {
        let size = Int(start.load(fromByteOffset: 0, as: UInt32.self))
        let end = 8 + size
        var at = 16  // after the atom header and the sequence body's unit and pad
        while at + 16 <= end {
            let frames = (start + at).load(as: Int64.self)
            let bodySize = Int((start + at).load(fromByteOffset: 8, as: UInt32.self))
            let type = (start + at).load(fromByteOffset: 12, as: UInt32.self)
            guard at + 16 + bodySize <= end else { return }
            body(Event(frame: frames, type: type, body: UnsafeRawBufferPointer(start: start + at + 16, count: bodySize)))
            at += (16 + bodySize + 7) & ~7
        }
    }
}

/// An atom:Object's body read in place (atom.h: LV2_Atom_Object_Body {id, otype}, then
/// properties LV2_Atom_Property_Body {key, context, value atom {size, type, body}}, each
/// padded to 8 bytes; atom/util.h's LV2_ATOM_OBJECT_FOREACH walks the same layout): what
/// patch:Set/Get (`PatchMessage`) and time:Position (`TimePosition`) come as.
enum AtomObject {
    /// The object's otype (its class: patch:Set, time:Position…); 0 for a short body.
    @_noLocks
    static func otype(_ body: UnsafeRawBufferPointer) -> UInt32 {
        body.count >= 8 ? body.loadUnaligned(fromByteOffset: 4, as: UInt32.self) : 0
    }

    /// Calls `property` with each property's key, its value's atom type and the value's
    /// body, in order. False: a short body, or a property that runs past it (the ones
    /// before it were given).
    /// - Thread: render.
    @_noLocks
    static func forEachProperty(_ body: UnsafeRawBufferPointer, _ property: (UInt32, UInt32, UnsafeRawBufferPointer) -> Void) -> Bool {
        guard body.count >= 8, let base = body.baseAddress else { return false }
        var at = 8
        while at + 16 <= body.count {
            let key = body.loadUnaligned(fromByteOffset: at, as: UInt32.self)
            let size = Int(body.loadUnaligned(fromByteOffset: at + 8, as: UInt32.self))
            let type = body.loadUnaligned(fromByteOffset: at + 12, as: UInt32.self)
            guard at + 16 + size <= body.count else { return false }
            property(key, type, UnsafeRawBufferPointer(start: base + at + 16, count: size))
            at += (16 + size + 7) & ~7
        }
        return true
    }
}

/// An atom:Sequence a plugin writes into its output port's buffer (atom.h; the host
/// sets the atom's size to the buffer's room before run). Events go in frame order;
/// one that does not fit is dropped and counted.
struct AtomSequenceWriter {
    let start: UnsafeMutableRawPointer
    /// Bytes of the buffer the sequence may fill (its atom header included).
    let capacity: Int
    var used = 16
    var dropped = 0

    /// Starts an empty sequence (frames as its time unit) over the host's buffer.
    /// - Thread: render.
    @_noLocks
    init(_ port: UnsafeMutableRawPointer, sequenceType: UInt32) {
        start = port
        capacity = 8 + Int(port.load(fromByteOffset: 0, as: UInt32.self))
        port.storeBytes(of: UInt32(8), toByteOffset: 0, as: UInt32.self)
        port.storeBytes(of: sequenceType, toByteOffset: 4, as: UInt32.self)
        port.storeBytes(of: UInt64(0), toByteOffset: 8, as: UInt64.self)
    }

    /// Appends an event of `count` bytes at `frame`, its body written by `fill`.
    /// - Thread: render.
    @_noLocks
    mutating func append(frame: Int, type: UInt32, count: Int, _ fill: (UnsafeMutableRawPointer) -> Void) {
        let padded = (16 + count + 7) & ~7
        guard used + padded <= capacity else { dropped += 1; return }
        let at = start + used
        at.storeBytes(of: Int64(frame), as: Int64.self)
        at.storeBytes(of: UInt32(count), toByteOffset: 8, as: UInt32.self)
        at.storeBytes(of: type, toByteOffset: 12, as: UInt32.self)
        fill(at + 16)
        used += padded
        start.storeBytes(of: UInt32(used - 8), toByteOffset: 0, as: UInt32.self)
    }
}
