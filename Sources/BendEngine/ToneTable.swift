/// A looping mono tone at the output rate, laid out for 4-point interpolation without
/// any wrap test: `storage[i]` is frame `(i − 1) mod length` of the tone for every
/// `i` in `0 ..< loopFrames + 1 + guardFrames`. The loop is repeated to `loopFrames`
/// (a whole multiple of `length`, ≥ 128), so the mixer wraps its phase at most once per
/// 8-frame block, and reads up to `guardFrames` past the loop end without a test.
/// Reading frame `p mod loopFrames` is reading frame `p mod length`: the sound is the same.
///
/// Immutable after `init`; shared read-only by every voice.
public struct ToneTable: @unchecked Sendable {
    /// Loop length in frames (the tone's real frame count at the output rate), ≥ 1.
    public let length: Int
    /// Frames per second of the samples (the output rate).
    public let rate: Double
    /// Frames the mixer's phase wraps at: `length` repeated to at least 128 frames.
    let loopFrames: Int
    /// Frames readable past `loopFrames` (one 8-frame block at ratio 8, plus 4 taps).
    static let guardFrames = 68
    let storage: UnsafeMutablePointer<Float>

    /// - Parameters:
    ///   - samples: one loop of the tone, mono, at `rate`; at least 1 frame, all finite.
    ///   - rate: sample rate in frames per second.
    /// - Thread: setup.
    public init(samples: [Float], rate: Double) {
        precondition(!samples.isEmpty, "a tone needs at least one frame")
        length = samples.count
        self.rate = rate
        loopFrames = length * ((128 + length - 1) / length)
        let count = loopFrames + 1 + ToneTable.guardFrames
        storage = .allocate(capacity: count)
        for i in 0..<count { storage[i] = samples[(i + length - 1) % length] }
    }

    /// Frame `i` of the loop, 0 ≤ i < length.
    public subscript(i: Int) -> Float { storage[i + 1] }

    /// Frees the samples. - Thread: setup, after the render thread stopped.
    public func deallocate() { storage.deallocate() }
}
