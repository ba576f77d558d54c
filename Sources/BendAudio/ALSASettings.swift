// SPDX-License-Identifier: GPL-3.0-or-later

/// What the device granted when `ALSAOutput` opened it.
public struct ALSASettings: Sendable, Equatable {
    /// Sample format written to the device (interleaved stereo).
    public enum SampleFormat: String, Sendable, Equatable {
        /// 32-bit float, little-endian, −1…+1 (`SND_PCM_FORMAT_FLOAT_LE`).
        case float32 = "FLOAT_LE"
        /// 16-bit signed, little-endian (`SND_PCM_FORMAT_S16_LE`); floats are clamped to
        /// −1…+1 and scaled by 32767.
        case s16 = "S16_LE"

        /// Bytes of one sample.
        public var bytes: Int { self == .float32 ? 4 : 2 }
    }

    /// Frames per second.
    public var rate: Int
    /// Period size, frames: the render loop renders and writes this many at a time.
    public var periodFrames: Int
    /// Ring buffer size, frames (about `periods` × `periodFrames`).
    public var bufferFrames: Int
    public var format: SampleFormat

    public init(rate: Int, periodFrames: Int, bufferFrames: Int, format: SampleFormat) {
        self.rate = rate
        self.periodFrames = periodFrames
        self.bufferFrames = bufferFrames
        self.format = format
    }

    /// Output latency of a full buffer, seconds (bufferFrames / rate).
    public var latencySeconds: Double { Double(bufferFrames) / Double(max(rate, 1)) }

    /// e.g. `48000 Hz, period 256 frames, buffer 768 frames (16.0 ms), FLOAT_LE stereo`.
    public var summary: String {
        let ms = String(format: "%.1f", latencySeconds * 1000)
        return "\(rate) Hz, period \(periodFrames) frames, buffer \(bufferFrames) frames (\(ms) ms), \(format.rawValue) stereo"
    }
}
