import Synchronization

/// A looping mono tone at the output rate, laid out for 4-point interpolation without
/// any wrap test: `storage[i]` is frame `(i − 1) mod length` of the tone for every
/// `i` in `0 ..< loopFrames + 1 + guardFrames`. The loop is repeated to `loopFrames`
/// (a whole multiple of `length`, ≥ 128), so the mixer wraps its phase at most once per
/// 8-frame block, and reads up to `guardFrames` past the loop end without a test.
/// Reading frame `p mod loopFrames` is reading frame `p mod length`: the sound is the same.
///
/// For the mixer's vector loop the interpolation polynomials are precomputed per frame
/// `i` (0 ≤ i < `loopFrames + guardFrames`): for cubic, one 16-byte row per frame, the
/// 4-point Hermite polynomial's (y0, c1, c2, c3) from frames i−1…i+2
/// (`hermite4Coefficients`); for linear, one 8-byte pair per frame, y0 and the slope
/// y1 − y0. The mixer loads them as 64-bit pairs (two loads per lane for cubic instead
/// of four scalar ones). Its evaluation may differ in rounding from the reference
/// mixer's (fused multiply-adds under `-D BEND_FMA`), far below −100 dBFS
/// (MixerReferenceTests).
///
/// Immutable after `init`; shared read-only by every voice.
public struct ToneTable: @unchecked Sendable {
    /// Loop length in frames (the tone's real frame count at the output rate), ≥ 1.
    public let length: Int
    /// Frames per second of the samples (the output rate).
    public let rate: Double
    /// Frames the mixer's phase wraps at: `length` repeated to at least 128 frames.
    let loopFrames: Int
    /// Frames readable past `loopFrames`: one 8-frame block at `EngineLimits.maximumRatio`
    /// (8 · 8 frames), plus the interpolation's 4 taps: 68.
    static var guardFrames: Int { 8 * Int(EngineLimits.maximumRatio) + 4 }
    let storage: UnsafeMutablePointer<Float>
    /// Cubic rows: frame i's (y0, c1, c2, c3) at `cubicRows + 4·i`, 16-byte aligned.
    let cubicRows: UnsafeMutablePointer<Float>
    /// Linear pairs: frame i's (y0, y1 − y0) at `linearPairs + 2·i`, 8-byte aligned.
    let linearPairs: UnsafeMutablePointer<Float>
    /// The band-limited levels (`Interpolation.bandLimited`) once installed: the bit
    /// pattern of an `UnsafeMutablePointer<LevelTable>`, 0 until then. Written once by
    /// `install` (release), read by the render thread (acquire): until the levels are
    /// there, a band-limited voice reads the cubic rows.
    let levelSlot: UnsafeMutablePointer<Atomic<Int>>

    /// - Parameters:
    ///   - samples: one loop of the tone, mono, at `rate`; at least 1 frame, all finite.
    ///   - rate: sample rate in frames per second.
    /// - Thread: setup.
    ///   - levels: the tone's band-limited levels (`ToneLevels`, made at load), for
    ///     `Interpolation.bandLimited`; nil for none yet (`install` may add them later).
    public init(samples: [Float], rate: Double, levels: ToneLevels? = nil) {
        precondition(!samples.isEmpty, "a tone needs at least one frame")
        length = samples.count
        self.rate = rate
        loopFrames = length * ((128 + length - 1) / length)
        let count = loopFrames + 1 + ToneTable.guardFrames + 3
        storage = .allocate(capacity: count)
        for i in 0..<count { storage[i] = samples[(i + length - 1) % length] }
        let rowCount = loopFrames + ToneTable.guardFrames
        let rows = UnsafeMutableRawPointer.allocate(byteCount: 16 * rowCount, alignment: 64)
        cubicRows = rows.bindMemory(to: Float.self, capacity: 4 * rowCount)
        linearPairs = UnsafeMutableRawPointer.allocate(byteCount: 8 * rowCount, alignment: 64)
            .bindMemory(to: Float.self, capacity: 2 * rowCount)
        for i in 0..<rowCount {
            let ym1 = storage[i], y0 = storage[i + 1], y1 = storage[i + 2], y2 = storage[i + 3]
            let c = hermite4Coefficients(ym1, y0, y1, y2)
            cubicRows[4 * i] = y0
            cubicRows[4 * i + 1] = c.c1
            cubicRows[4 * i + 2] = c.c2
            cubicRows[4 * i + 3] = c.c3
            linearPairs[2 * i] = y0
            linearPairs[2 * i + 1] = y1 - y0
        }
        levelSlot = .allocate(capacity: 1)
        levelSlot.initialize(to: Atomic(0))
        if let levels { install(levels) }
    }

    /// Adds the band-limited levels: from now on band-limited voices read them (the
    /// render thread sees them at its next span). At most once per table.
    /// - Thread: any but render (setup, or a thread that made the levels while the
    ///   instrument already played).
    public func install(_ levels: consuming ToneLevels) {
        let table = UnsafeMutablePointer<LevelTable>.allocate(capacity: 1)
        table.initialize(to: LevelTable(&levels, length: length, loopFrames: loopFrames))
        let (exchanged, _) = levelSlot.pointee.compareExchange(expected: 0, desired: Int(bitPattern: table), ordering: .releasing)
        precondition(exchanged, "the levels are installed once")
    }

    /// The installed levels, or nil. - Thread: any.
    var levels: LevelTable? {
        @_noLocks @inline(__always) get {
            let bits = levelSlot.pointee.load(ordering: .acquiring)
            return bits == 0 ? nil : UnsafeMutablePointer<LevelTable>(bitPattern: bits).unsafelyUnwrapped.pointee
        }
    }

    /// Whether the band-limited levels are installed. - Thread: any.
    public var hasLevels: Bool { @_noLocks @inline(__always) get { levelSlot.pointee.load(ordering: .acquiring) != 0 } }

    /// Levels of the band-limited tables (0 without them).
    public var levelCount: Int { levels?.count ?? 0 }

    /// Memory the band-limited tables take, bytes (0 without them).
    public var levelBytes: Int { levels?.bytes ?? 0 }

    /// Memory of the samples and the cubic and linear rows, bytes.
    public var baseBytes: Int { 4 * (loopFrames + 4 + ToneTable.guardFrames) + 24 * (loopFrames + ToneTable.guardFrames) }

    /// Frame `i` of the loop, 0 ≤ i < length.
    public subscript(i: Int) -> Float { storage[i + 1] }

    /// Frees the samples. - Thread: setup, after the render thread stopped.
    public func deallocate() {
        storage.deallocate(); UnsafeMutableRawPointer(cubicRows).deallocate(); UnsafeMutableRawPointer(linearPairs).deallocate()
        let bits = levelSlot.pointee.load(ordering: .acquiring)
        if let table = UnsafeMutablePointer<LevelTable>(bitPattern: bits) { table.pointee.deallocate(); table.deallocate() }
        levelSlot.deallocate()
    }
}
