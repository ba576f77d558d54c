// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl

/// What run() asks the worker for and what the worker answers (worker.h: plain bytes the
/// host copies; nothing in them is freed by the host). Little-endian fields at fixed
/// offsets, written and read in place: no allocation on the audio thread.
///
/// Request: kind (UInt32); the control ports' values when it was asked (Float32 each):
/// tone note, scale root, pad pitch map, octaves, rounding, rounding time (ms); the
/// path's byte count (UInt32), the path's bytes.
/// Response `scaleLoaded`: kind, the path's byte count, the `KeyboardTuning` (its bytes),
/// the path's bytes. Response `toneLoaded`: kind, the path's byte count, the path's bytes
/// (the sound itself went to the mixer: `Mixer.replace`). Response `tonesCollected`: kind
/// only. A file that does not load gets no response (the worker logged why).
enum WorkMessage {
    /// Load the scale file at the path (patch:Set of the scale parameter).
    static var loadScale: UInt32 { @_noLocks get { 1 } }
    /// Make the keys again from the scale loaded last, for a new tone note or root.
    static var retune: UInt32 { @_noLocks get { 2 } }
    /// The keys of a loaded scale, for the render thread.
    static var scaleLoaded: UInt32 { @_noLocks get { 3 } }
    /// Serve the web pad with the settings of the request (again, when it is served).
    static var webStart: UInt32 { @_noLocks get { 4 } }
    /// Stop serving it.
    static var webStop: UInt32 { @_noLocks get { 5 } }
    /// Load the tone file or SFZ instrument at the path (patch:Set of the tone parameter)
    /// and hand it to the mixer.
    static var loadTone: UInt32 { @_noLocks get { 6 } }
    /// A tone handed to the mixer: its path, for the render thread to say.
    static var toneLoaded: UInt32 { @_noLocks get { 7 } }
    /// Free the tones the mixer gave back (no voice plays them any more).
    static var collectTones: UInt32 { @_noLocks get { 8 } }
    /// They are freed: run() may ask again.
    static var tonesCollected: UInt32 { @_noLocks get { 9 } }

    /// Longest path taken, bytes (a longer one is refused with a log line).
    static var maximumPath: Int { @_noLocks get { 4096 } }
    static var requestHeader: Int { @_noLocks get { 32 } }
    static var responseHeader: Int { @_noLocks get { 8 } }
    static var tuningBytes: Int { @_noLocks get { MemoryLayout<KeyboardTuning>.size } }

    /// Writes a request into `buffer` (room for `requestHeader + maximumPath` bytes).
    /// Returns its byte count.
    @_noLocks
    static func writeRequest(_ kind: UInt32, controls: (Float, Float, Float, Float, Float, Float), path: UnsafeRawBufferPointer,
                             into buffer: UnsafeMutableRawPointer) -> Int {
        let n = min(path.count, maximumPath)
        buffer.storeBytes(of: kind, toByteOffset: 0, as: UInt32.self)
        buffer.storeBytes(of: controls.0, toByteOffset: 4, as: Float.self)
        buffer.storeBytes(of: controls.1, toByteOffset: 8, as: Float.self)
        buffer.storeBytes(of: controls.2, toByteOffset: 12, as: Float.self)
        buffer.storeBytes(of: controls.3, toByteOffset: 16, as: Float.self)
        buffer.storeBytes(of: controls.4, toByteOffset: 20, as: Float.self)
        buffer.storeBytes(of: controls.5, toByteOffset: 24, as: Float.self)
        buffer.storeBytes(of: UInt32(n), toByteOffset: 28, as: UInt32.self)
        if n > 0, let base = path.baseAddress { (buffer + requestHeader).copyMemory(from: base, byteCount: n) }
        return requestHeader + n
    }

    /// The kind of a message (request or response), 0 for a short one.
    @_noLocks
    static func kind(_ data: UnsafeRawBufferPointer) -> UInt32 {
        data.count >= 4 ? data.loadUnaligned(fromByteOffset: 0, as: UInt32.self) : 0
    }
}

/// A request as the worker reads it.
struct WorkRequest {
    var kind: UInt32
    var pad: WebPadSettings
    var path: String

    /// nil for a short request.
    init?(_ data: UnsafeRawBufferPointer) {
        guard data.count >= WorkMessage.requestHeader else { return nil }
        func float(_ at: Int) -> Double { Double(data.loadUnaligned(fromByteOffset: at, as: Float.self)) }
        kind = data.loadUnaligned(fromByteOffset: 0, as: UInt32.self)
        pad = WebPadSettings(toneNote: float(4), pitchMap: Int(float(12)), octaves: min(max(float(16), 0.1), 8), scaleRoot: max(float(8), 0),
                          round: Int(float(20)), roundRate: min(max(float(24), 1), 2000) / 1000)
        let count = min(Int(data.loadUnaligned(fromByteOffset: 28, as: UInt32.self)), data.count - WorkMessage.requestHeader)
        path = String(decoding: UnsafeRawBufferPointer(rebasing: data[WorkMessage.requestHeader..<(WorkMessage.requestHeader + count)]), as: UTF8.self)
    }
}
