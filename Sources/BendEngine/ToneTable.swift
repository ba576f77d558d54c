/// A looping mono tone at the output rate, laid out for 4-point interpolation without
/// any wrap test: `storage[i]` is frame `(i − 1) mod length` of the tone for every
/// `i` in `0 ..< loopFrames + 1 + guardFrames`. The loop is repeated to `loopFrames`
/// (a whole multiple of `length`, ≥ 128), so the mixer wraps its phase at most once per
/// 8-frame block, and reads up to `guardFrames` past the loop end without a test.
/// Reading frame `p mod loopFrames` is reading frame `p mod length`: the sound is the same.
///
/// For the mixer's vector loop the interpolation polynomials are precomputed per frame
/// `i` (0 ≤ i < `loopFrames + guardFrames`) in structure-of-arrays form: `y0`, and
/// `hermite4`'s c1, c2, c3 from frames i−1…i+2, and the linear slope y1 − y0 — the same
/// Float expressions `hermite4` evaluates, so the results are identical; 8 lanes then
/// load 8 scalars from each array instead of transposing 8 four-frame rows.
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
    /// Per-frame polynomial coefficients, `coefficientStride` floats each: y0, c1, c2, c3, slope.
    let coefficients: UnsafeMutablePointer<Float>
    let coefficientStride: Int

    /// - Parameters:
    ///   - samples: one loop of the tone, mono, at `rate`; at least 1 frame, all finite.
    ///   - rate: sample rate in frames per second.
    /// - Thread: setup.
    public init(samples: [Float], rate: Double) {
        precondition(!samples.isEmpty, "a tone needs at least one frame")
        length = samples.count
        self.rate = rate
        loopFrames = length * ((128 + length - 1) / length)
        let count = loopFrames + 1 + ToneTable.guardFrames + 3
        storage = .allocate(capacity: count)
        for i in 0..<count { storage[i] = samples[(i + length - 1) % length] }
        let stride = loopFrames + ToneTable.guardFrames
        coefficientStride = stride
        coefficients = .allocate(capacity: 5 * stride)
        for i in 0..<stride {
            let ym1 = storage[i], y0 = storage[i + 1], y1 = storage[i + 2], y2 = storage[i + 3]
            coefficients[i] = y0
            coefficients[stride + i] = 0.5 * (y1 - ym1)
            coefficients[2 * stride + i] = ym1 - 2.5 * y0 + 2 * y1 - 0.5 * y2
            coefficients[3 * stride + i] = 0.5 * (y2 - ym1) + 1.5 * (y0 - y1)
            coefficients[4 * stride + i] = y1 - y0
        }
    }

    /// Frame `i` of the loop, 0 ≤ i < length.
    public subscript(i: Int) -> Float { storage[i + 1] }

    /// Frees the samples. - Thread: setup, after the render thread stopped.
    public func deallocate() { storage.deallocate(); coefficients.deallocate() }
}
