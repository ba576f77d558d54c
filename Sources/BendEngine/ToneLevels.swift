// SPDX-License-Identifier: GPL-3.0-or-later
/// The band-limited levels of a tone ("mip levels") for `Interpolation.bandLimited`, as
/// made at load (BendAudio's `ToneLevelMaker`, by FFT): level k is the tone low-passed
/// so that it cannot alias at pitch ratios up to `aliasFreeRatio[k]`, as cubic pieces,
/// `oversampling` per tone frame. Level 0 is the whole tone (alias-free up to ratio
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
    /// Table frames (cubic pieces) per tone frame: 4. (With 2, a tone whose top octave
    /// is as loud as its fundamental read with −64 dB of alias and image energy; with 4,
    /// −86 dB: BandLimitedTests.)
    public static let oversampling = 4
    /// Each level's signal as polynomial rows: for table frame i (0 ..< `oversampling` ·
    /// `ToneTable.length`: the prefix, then one period), 4 Floats (c0, c1, c2, c3) at 4·i:
    /// the level at table position i + t, t in [0, 1), is ((c3·t + c2)·t + c1)·t + c0.
    /// At least 2 levels. (The left channel's, for a stereo tone.) (Empty when the levels
    /// were made as `steps`.)
    public var rows: [[Float]]
    /// A stereo tone's right channel: its rows as `rows`' (the same levels, Float rows
    /// only); nil for mono.
    public var right: [[Float]]?
    /// The rows already as the engine holds them (`quantized()`'s form, in steps of
    /// `stepScale`), from a maker that never holds every level's Float rows at once (a
    /// long tone's take 640 bytes a frame); empty when `rows` holds the levels.
    /// `ToneTable.install` frees each level's steps as it copies them.
    public var steps: [[Int16]] = []
    /// The value of one of `steps`' integers.
    public var stepScale: Float = 1
    /// Levels (`rows`' or `steps`').
    public var count: Int { steps.isEmpty ? rows.count : steps.count }
    /// Largest ratio level k serves without aliasing (ratio); increasing, the first is 1.
    public var aliasFreeRatio: [Double]
    /// Ratio where the crossfade from level k to k + 1 starts (one fewer than levels).
    public var crossfadeStart: [Double]

    /// The rows as the engine holds them: 16-bit integers times one scale for the whole
    /// tone, the largest coefficient's magnitude / 32767 (each coefficient rounded to the
    /// nearest step: at most half a step off, −96 dB below the largest).
    /// (A stereo tone's channels share the scale: the right channel's rows are
    /// `quantizedRight(scale:)`.)
    public func quantized() -> (scale: Float, rows: [[Int16]]) {
        if !steps.isEmpty {
            precondition(right == nil, "a stereo tone's levels are Float rows")
            return (stepScale, steps)
        }
        var largest: Float = 0
        for level in rows + (right ?? []) { level.withUnsafeBufferPointer { for c in $0 { largest = max(largest, abs(c)) } } }
        // (At least the smallest normal Float: a subnormal scale is flushed to 0 on the
        // render thread, and a tone that quiet would play silent.)
        let scale = largest > 0 ? max(largest / 32767, Float.leastNormalMagnitude) : 1
        return (scale, ToneLevels.quantize(rows, scale: scale))
    }

    /// The right channel's rows in the steps of `scale` (`quantized()`'s); nil for mono.
    public func quantizedRight(scale: Float) -> [[Int16]]? { right.map { ToneLevels.quantize($0, scale: scale) } }

    static func quantize(_ rows: [[Float]], scale: Float) -> [[Int16]] {
        let step = Double(scale)
        return rows.map { level in
            [Int16](unsafeUninitializedCapacity: level.count) { out, initialized in
                level.withUnsafeBufferPointer { c in
                    for i in 0..<c.count { out[i] = Int16(max(-32767, min(32767, (Double(c[i]) / step).rounded()))) }
                }
                initialized = level.count
            }
        }
    }

    public init(rows: [[Float]], right: [[Float]]? = nil, aliasFreeRatio: [Double], crossfadeStart: [Double]) {
        self.rows = rows
        self.right = right
        self.aliasFreeRatio = aliasFreeRatio
        self.crossfadeStart = crossfadeStart
    }

    /// Levels made as steps (`steps`, `stepScale`); `rows` stays empty.
    public init(steps: [[Int16]], scale: Float, aliasFreeRatio: [Double], crossfadeStart: [Double]) {
        self.rows = []
        self.steps = steps
        self.stepScale = scale
        self.aliasFreeRatio = aliasFreeRatio
        self.crossfadeStart = crossfadeStart
    }

    /// One level's rows in steps of its own: (its largest coefficient / 32767, at least
    /// the smallest normal Float; 1 for silence), each rounded to the nearest step —
    /// `quantized()`'s rule for one level.
    public static func steps(of rows: [Float]) -> (scale: Float, steps: [Int16]) {
        var largest: Float = 0
        rows.withUnsafeBufferPointer { for c in $0 { largest = max(largest, abs(c)) } }
        let scale = largest > 0 ? max(largest / 32767, Float.leastNormalMagnitude) : 1
        let step = Double(scale)
        return (scale, [Int16](unsafeUninitializedCapacity: rows.count) { out, initialized in
            rows.withUnsafeBufferPointer { c in
                for i in 0..<c.count { out[i] = Int16(max(-32767, min(32767, (Double(c[i]) / step).rounded()))) }
            }
            initialized = rows.count
        })
    }
}

/// The engine's copy of a tone's band-limited levels: each level's polynomial rows
/// (`ToneLevels.rows`, 4 table frames per tone frame) laid out as the tone's frames are
/// (`ToneTable`: the prefix, the period repeated past its end), as
/// 16-bit integers (`ToneLevels.quantized`: 8 bytes a row) times the tone's `scale`.
/// The voice reads them as the cubic rows are, one 64-bit load per lane where a float
/// row takes two (`VoiceBlock.levelPolynomial`), and evaluates the same cubic.
///
/// Why this layout: plain samples (4 bytes a table frame at 4× oversampling) with
/// Niemitalo's optimal polynomial computed as they were read cost 16 vector operations
/// more per 8 frames than a row; Float rows cost nothing more to evaluate but read 64
/// bytes per tone frame, four times the cubic rows'. 16-bit rows read 32 bytes per tone
/// frame, with 8 loads, 2 inserts and 2 shuffles per 8 frames where float rows take 16,
/// 4 and 4. The 16-bit steps stay 96 dB below the tone's largest coefficient (as
/// 16-bit audio: a tone's quietest stretches keep that floor, not one of their own).
/// The crossfade zones are fixed-point increments. Immutable after `init`; read-only on
/// the render thread.
struct LevelTable {
    /// Levels (count, ≥ 2).
    let count: Int
    /// Bytes from one level's rows to the next's (a multiple of 64).
    let stride: Int
    /// Level k's rows at `rows + k·stride` (channel c's at `c · channelBytes` more): row
    /// i (8 bytes, c0…c3 as Int16) is table frame i of the prefix (i < 4 · prefix) or of
    /// the period repeated, for i in 0 ..< `ToneTable.wrapFrames` · 4 + `guardRows`,
    /// 64-byte aligned.
    let rows: UnsafeMutableRawPointer
    /// Bytes from the left channel's rows to the right's: `count · stride` (0 for mono).
    let channelBytes: Int
    /// The value of one step of the rows' integers.
    let scale: Float
    /// Zone k (between levels k and k + 1) starts at increment `zoneStart[k]` and ends at
    /// `zoneEnd[k]` (fixed-point increments, `Mixer.fractionBits`); `count − 1` zones, then
    /// a sentinel `Int32.max` in both.
    let zoneStart: UnsafeMutablePointer<Int32>
    let zoneEnd: UnsafeMutablePointer<Int32>
    /// 1 / (zoneEnd[k] − zoneStart[k]), per increment unit.
    let zoneInverse: UnsafeMutablePointer<Float>

    /// Table frames readable past the loop: one 8-frame block at
    /// `EngineLimits.maximumRatio` (8 · 8 tone frames = 256 table frames) plus one.
    static var guardRows: Int { ToneLevels.oversampling * 8 * Int(EngineLimits.maximumRatio) + 1 }

    /// Log2 of `ToneLevels.oversampling`: the phase's fraction loses these bits.
    static var shift: Int { @_noLocks @inline(__always) get { 2 } }

    /// Copies `levels` in, laid out as `tone`'s frames are; steps made as steps
    /// (`ToneLevels.steps`) are freed one level at a time as they are copied, so a long
    /// tone's steps and table are not both whole at once (when the caller holds no other
    /// copy).
    init(_ levels: inout ToneLevels, tone: ToneTable) {
        let k = ToneLevels.oversampling
        precondition(1 << LevelTable.shift == k, "shift is log2 of the oversampling")
        count = levels.count
        precondition(count >= 2, "band-limited tables need at least 2 levels")
        precondition(levels.aliasFreeRatio.count == count && levels.crossfadeStart.count == count - 1)
        precondition((levels.right != nil) == (tone.channels == 2), "a stereo tone's levels have a right channel, a mono tone's none")
        let rowCount = tone.wrapFrames * k + LevelTable.guardRows
        stride = (8 * rowCount + 63) & ~63
        channelBytes = tone.channels == 2 ? stride * count : 0
        rows = .allocate(byteCount: stride * count * tone.channels, alignment: 64)
        let prefix = tone.prefixFrames * k, period = tone.periodFrames * k
        let scale: Float
        var quantized: [[Int16]]
        (scale, quantized) = levels.quantized()
        levels.steps = []  // `quantized` holds them alone now
        self.scale = scale
        var right = levels.quantizedRight(scale: scale)
        for c in 0..<tone.channels {
            for level in 0..<count {
                let source = c == 0 ? quantized[level] : right.unsafelyUnwrapped[level]
                defer { if c == 0 { quantized[level] = [] } else { right![level] = [] } }
                precondition(source.count == 4 * (prefix + period), "a level holds \(source.count / 4) rows; expected \(prefix + period)")
                let out = (rows + c * channelBytes + level * stride).bindMemory(to: Int16.self, capacity: stride / 2)
                // The prefix's rows, then the period's, repeated; zeros after.
                for i in 0..<(stride / 8) {
                    let row = i < prefix ? i : prefix + (i - prefix) % period
                    for m in 0..<4 { out[4 * i + m] = i < rowCount ? source[4 * row + m] : 0 }
                }
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

    /// Bytes of the rows and zones.
    var bytes: Int { stride * count * (channelBytes == 0 ? 1 : 2) + 12 * count }

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
}
