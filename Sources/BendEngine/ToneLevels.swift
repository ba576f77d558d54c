/// The band-limited levels of a tone ("mip levels") for `Interpolation.bandLimited`, as
/// made at load (BendAudio's `ToneLevelMaker`, by FFT): level k is the tone
/// oversampled `oversampling` times and low-passed so that it cannot alias at pitch
/// ratios up to `aliasFreeRatio[k]`. Level 0 is the whole tone (alias-free up to ratio
/// 1); each next level is narrower. A ratio above the last level's limit reads the last
/// level alone.
///
/// Between level k and k + 1 lies a crossfade zone of ratios,
/// `crossfadeStart[k]…aliasFreeRatio[k]`: a voice whose ratio is inside it reads both
/// levels and blends them linearly in the ratio, so a slow glide across the boundary
/// has no step. Below the zone a voice reads level k alone, above it level k + 1 alone.
/// The zones must not overlap: `aliasFreeRatio[k − 1] < crossfadeStart[k] <
/// aliasFreeRatio[k]`.
///
/// Plain arrays, given to `ToneTable(samples:rate:levels:)` at setup; the engine copies
/// them into its rows.
public struct ToneLevels: Sendable, Equatable {
    /// Table frames per tone frame (4: the polynomial is Niemitalo's optimal one for
    /// 4× oversampling).
    public static let oversampling = 4
    /// One loop of each level at `oversampling` × the output rate: exactly
    /// `oversampling` · (tone length) frames each; at least 2 levels.
    public var samples: [[Float]]
    /// Largest ratio level k serves without aliasing (ratio); increasing, the first is 1.
    public var aliasFreeRatio: [Double]
    /// Ratio where the crossfade from level k to k + 1 starts (one fewer than levels).
    public var crossfadeStart: [Double]

    public init(samples: [[Float]], aliasFreeRatio: [Double], crossfadeStart: [Double]) {
        self.samples = samples
        self.aliasFreeRatio = aliasFreeRatio
        self.crossfadeStart = crossfadeStart
    }
}

/// The engine's copy of a tone's band-limited levels: each level's loop of table frames
/// through the droop compensation (`compensated`), repeated past its end, as Float
/// samples (4 bytes a table frame); the voice evaluates Niemitalo's optimal 4-point,
/// 3rd-order polynomial for 4× oversampled input (`optimal4x`) from the 4 samples
/// around its position as it reads them (`VoiceBlock.optimal`). Samples rather than
/// precomputed polynomial rows (16 bytes a table frame, as `ToneTable.cubicRows`): a
/// voice at ratio 1 steps 4 table frames a frame, so rows made it read a 64-byte cache
/// line every frame (4× the cubic kernel's memory traffic, and 4× the tables' size);
/// the polynomial's coefficients cost 13 more vector operations per 8 frames. The
/// crossfade zones are fixed-point increments. Immutable after `init`; read-only on
/// the render thread.
struct LevelTable {
    /// Levels (count, ≥ 2).
    let count: Int
    /// Bytes from one level's samples to the next's (a multiple of 64).
    let stride: Int
    /// Level k's samples at `rows + k·stride`: sample i is table frame (i − 1) mod the
    /// level's length, through the droop compensation, for i in 0 ..< `ToneTable.loopFrames`
    /// · 4 + `guardRows` + 3, so the 4 samples of the polynomial between table frames i
    /// and i + 1 (frames i − 1 … i + 2) are samples i … i + 3, 64-byte aligned.
    let rows: UnsafeMutableRawPointer
    /// Zone k (between levels k and k + 1) starts at increment `zoneStart[k]` and ends at
    /// `zoneEnd[k]` (fixed-point increments, `Mixer.fractionBits`); `count − 1` zones, then
    /// a sentinel `Int32.max` in both.
    let zoneStart: UnsafeMutablePointer<Int32>
    let zoneEnd: UnsafeMutablePointer<Int32>
    /// 1 / (zoneEnd[k] − zoneStart[k]), per increment unit.
    let zoneInverse: UnsafeMutablePointer<Float>

    /// Table frames readable past the loop: one 8-frame block at
    /// `EngineLimits.maximumRatio` (8 · 8 tone frames = 256 table frames) plus the
    /// polynomial's 4 taps.
    static var guardRows: Int { ToneLevels.oversampling * 8 * Int(EngineLimits.maximumRatio) + 4 }

    /// Log2 of `ToneLevels.oversampling`: the phase's fraction loses these bits.
    static var shift: Int { @_noLocks @inline(__always) get { 2 } }

    init(_ levels: ToneLevels, length: Int, loopFrames: Int) {
        let k = ToneLevels.oversampling
        precondition(levels.samples.count >= 2, "band-limited tables need at least 2 levels")
        precondition(levels.aliasFreeRatio.count == levels.samples.count && levels.crossfadeStart.count == levels.samples.count - 1)
        count = levels.samples.count
        let sampleCount = loopFrames * k + LevelTable.guardRows + 3
        stride = (4 * sampleCount + 63) & ~63
        rows = .allocate(byteCount: stride * count, alignment: 64)
        let tableLength = length * k
        for (level, samples) in levels.samples.enumerated() {
            precondition(samples.count == tableLength, "a level holds \(samples.count) frames; expected \(tableLength)")
            let out = (rows + level * stride).bindMemory(to: Float.self, capacity: stride / 4)
            // The compensated loop, repeated: out[i] is table frame (i − 1) mod length.
            let flat = LevelTable.compensated(samples)
            var j = tableLength - 1
            for i in 0..<(stride / 4) {
                out[i] = i < sampleCount ? Float(flat[j]) : 0
                j = j + 1 == tableLength ? 0 : j + 1
            }
        }
        let unit = Double(1 << Mixer.fractionBits)
        zoneStart = .allocate(capacity: count)
        zoneEnd = .allocate(capacity: count)
        zoneInverse = .allocate(capacity: count)
        for z in 0..<(count - 1) {
            let start = Int32((levels.crossfadeStart[z] * unit).rounded())
            let end = Int32(min((levels.aliasFreeRatio[z] * unit).rounded(.down), Double(Int32.max - 1)))
            precondition(start < end && (z == 0 || zoneEnd[z - 1] < start), "crossfade zones must be ordered and apart")
            zoneStart[z] = start
            zoneEnd[z] = end
            zoneInverse[z] = Float(1 / Double(end - start))
        }
        zoneStart[count - 1] = .max
        zoneEnd[count - 1] = .max
        zoneInverse[count - 1] = 0
    }

    /// Bytes of the samples and zones.
    var bytes: Int { stride * count + 12 * count }

    func deallocate() { rows.deallocate(); zoneStart.deallocate(); zoneEnd.deallocate(); zoneInverse.deallocate() }

    /// For the increments `low…high` of a span (fixed-point, low ≤ high): the level of
    /// `low` (the first whose zone ends at or above it), and whether every increment of
    /// the span reads that level alone (`high` below its zone).
    @_noLocks @inline(__always)
    func level(low: Int32, high: Int32) -> (level: Int, pure: Bool) {
        var k = 0
        while k < count - 1 && low > zoneEnd[k] { k += 1 }
        return (k, high < zoneStart[k])
    }

    /// The polynomial's pass-band droop compensation, a: the loop (periodic) through the
    /// 3-tap filter (−a, 1 + 2a, −a), gain 1 + 2a(1 − cos ω). The optimal polynomial
    /// droops by 0.21 dB at 0.055 and 0.93 dB at 0.116 of the table rate (its response,
    /// integrated numerically); with a = 0.219 the product stays within ±0.02 dB up to
    /// 0.118 and is −0.03 dB at 0.125 (the top of a 4× table's band, the tone's Nyquist
    /// frequency), so harmonics keep their level.
    static let droopCompensation = 0.219

    /// One level's loop through the droop compensation filter, in Double.
    static func compensated(_ samples: [Float]) -> [Double] {
        let n = samples.count
        let a = droopCompensation
        var out = [Double](repeating: 0, count: n)
        samples.withUnsafeBufferPointer { s in
            out.withUnsafeMutableBufferPointer { o in
                for i in 0..<n {
                    o[i] = (1 + 2 * a) * Double(s[i]) - a * (Double(s[i == 0 ? n - 1 : i - 1]) + Double(s[i + 1 == n ? 0 : i + 1]))
                }
            }
        }
        return out
    }
}
