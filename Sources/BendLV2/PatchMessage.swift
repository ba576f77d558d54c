// SPDX-License-Identifier: GPL-3.0-or-later
/// patch:Set and patch:Get messages in atoms (patch.h, atom.h): what a host sends to set
/// a file parameter (`patch:writable`) or ask for its value, and what the plugin sends
/// back. An atom:Object's body is {id, otype} then properties {key, context, value atom
/// {size, type, body}}, each padded to 8 bytes (eg-sampler reads and writes the same
/// with the forge). Read and written in place: no allocation, for the render thread.
struct PatchMessage {
    /// patch:Set or patch:Get (the object's otype).
    var otype: UInt32 = 0
    /// patch:property's URID (0: none).
    var property: UInt32 = 0
    /// patch:value's atom type, and its body (an atom:Path's bytes, NUL included).
    var valueType: UInt32 = 0
    var value = UnsafeRawBufferPointer(start: nil, count: 0)

    @_noLocks
    init() {}

    /// The message in an atom:Object's body, or nil for a short one.
    @_noLocks
    static func read(_ body: UnsafeRawBufferPointer, urids: PluginURIDs) -> PatchMessage? {
        var m = PatchMessage()
        m.otype = AtomObject.otype(body)
        let whole = AtomObject.forEachProperty(body) { key, type, value in
            if key == urids.patchProperty && type == urids.atomURID && value.count >= 4 {
                m.property = value.loadUnaligned(as: UInt32.self)
            } else if key == urids.patchValue {
                m.valueType = type
                m.value = value
            }
        }
        return whole ? m : nil
    }

    /// The bytes of an atom:Path or atom:String body, without its NUL.
    @_noLocks
    static func pathBytes(_ value: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        var n = value.count
        while n > 0 && value[n - 1] == 0 { n -= 1 }
        return UnsafeRawBufferPointer(rebasing: value[0..<n])
    }

    /// Bytes of a patch:Set of a property to an atom:Path of `pathCount` bytes, as an
    /// event's atom:Object body: {id, otype}, the property (16 + a URID padded to 8), the
    /// value's header (16) and the path with its NUL.
    @_noLocks
    static func setBytes(pathCount: Int) -> Int { 8 + 16 + 8 + 16 + pathCount + 1 }

    /// Writes a patch:Set (property → atom:Path `path`) as an atom:Object body at `out`.
    @_noLocks
    static func writeSet(property: UInt32, path: UnsafeRawBufferPointer, urids: PluginURIDs, into out: UnsafeMutableRawPointer) {
        out.storeBytes(of: UInt32(0), toByteOffset: 0, as: UInt32.self)                 // id: blank
        out.storeBytes(of: urids.patchSet, toByteOffset: 4, as: UInt32.self)            // otype
        out.storeBytes(of: urids.patchProperty, toByteOffset: 8, as: UInt32.self)       // key
        out.storeBytes(of: UInt32(0), toByteOffset: 12, as: UInt32.self)                // context
        out.storeBytes(of: UInt32(4), toByteOffset: 16, as: UInt32.self)                // atom:URID
        out.storeBytes(of: urids.atomURID, toByteOffset: 20, as: UInt32.self)
        out.storeBytes(of: property, toByteOffset: 24, as: UInt32.self)
        out.storeBytes(of: UInt32(0), toByteOffset: 28, as: UInt32.self)                // padding
        out.storeBytes(of: urids.patchValue, toByteOffset: 32, as: UInt32.self)
        out.storeBytes(of: UInt32(0), toByteOffset: 36, as: UInt32.self)
        out.storeBytes(of: UInt32(path.count + 1), toByteOffset: 40, as: UInt32.self)   // atom:Path, NUL included
        out.storeBytes(of: urids.atomPath, toByteOffset: 44, as: UInt32.self)
        if let base = path.baseAddress { (out + 48).copyMemory(from: base, byteCount: path.count) }
        (out + 48 + path.count).storeBytes(of: UInt8(0), as: UInt8.self)
    }
}
