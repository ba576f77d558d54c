import BendControl

/// What run() asks the worker for and what the worker answers (worker.h: plain bytes the
/// host copies; nothing in them is freed by the host). Little-endian fields at fixed
/// offsets, written and read in place: no allocation on the audio thread.
///
/// Request: kind (UInt32), the tone note and the scale root (Float32 each: the control
/// ports' values when it was asked), the path's byte count (UInt32), the path's bytes.
/// Response `scaleLoaded`: kind, the path's byte count, the `KeyboardTuning` (its bytes),
/// the path's bytes. Response `scaleFailed`: kind only (the worker logged why).
enum WorkMessage {
    /// Load the scale file at the path (patch:Set of the scale parameter).
    static var loadScale: UInt32 { @_noLocks get { 1 } }
    /// Make the keys again from the scale loaded last, for a new tone note or root.
    static var retune: UInt32 { @_noLocks get { 2 } }
    /// The keys of a loaded scale, for the render thread.
    static var scaleLoaded: UInt32 { @_noLocks get { 3 } }

    /// Longest path taken, bytes (a longer one is refused with a log line).
    static var maximumPath: Int { @_noLocks get { 4096 } }
    static var requestHeader: Int { @_noLocks get { 16 } }
    static var responseHeader: Int { @_noLocks get { 8 } }
    static var tuningBytes: Int { @_noLocks get { MemoryLayout<KeyboardTuning>.size } }

    /// Writes a request into `buffer` (room for `requestHeader + maximumPath` bytes).
    /// Returns its byte count.
    @_noLocks
    static func writeRequest(_ kind: UInt32, toneNote: Float, scaleRoot: Float, path: UnsafeRawBufferPointer,
                             into buffer: UnsafeMutableRawPointer) -> Int {
        let n = min(path.count, maximumPath)
        buffer.storeBytes(of: kind, toByteOffset: 0, as: UInt32.self)
        buffer.storeBytes(of: toneNote, toByteOffset: 4, as: Float.self)
        buffer.storeBytes(of: scaleRoot, toByteOffset: 8, as: Float.self)
        buffer.storeBytes(of: UInt32(n), toByteOffset: 12, as: UInt32.self)
        if n > 0, let base = path.baseAddress { (buffer + requestHeader).copyMemory(from: base, byteCount: n) }
        return requestHeader + n
    }

    /// The kind of a message (request or response), 0 for a short one.
    @_noLocks
    static func kind(_ data: UnsafeRawBufferPointer) -> UInt32 {
        data.count >= 4 ? data.loadUnaligned(fromByteOffset: 0, as: UInt32.self) : 0
    }
}
