/// A looping mono tone at the output rate, laid out for 4-point interpolation without
/// any wrap test: `storage[0]` is the last frame, `storage[1...length]` the tone, and
/// `storage[length+1...length+3]` repeat its first three frames (guard points).
///
/// Immutable after `init`; shared read-only by every voice.
public struct ToneTable: @unchecked Sendable {
    /// Loop length in frames (the tone's real frame count at the output rate), ≥ 1.
    public let length: Int
    /// Frames per second of the samples (the output rate).
    public let rate: Double
    let storage: UnsafeMutablePointer<Float>

    /// - Parameters:
    ///   - samples: one loop of the tone, mono, at `rate`; at least 1 frame, all finite.
    ///   - rate: sample rate in frames per second.
    /// - Thread: setup.
    public init(samples: [Float], rate: Double) {
        precondition(!samples.isEmpty, "a tone needs at least one frame")
        length = samples.count
        self.rate = rate
        storage = .allocate(capacity: length + 4)
        storage[0] = samples[length - 1]
        for i in 0..<length { storage[i + 1] = samples[i] }
        for g in 0..<3 { storage[length + 1 + g] = samples[g % length] }
    }

    /// Frame `i` of the loop, 0 ≤ i < length.
    public subscript(i: Int) -> Float { storage[i + 1] }

    /// Frees the samples. - Thread: setup, after the render thread stopped.
    public func deallocate() { storage.deallocate() }
}
