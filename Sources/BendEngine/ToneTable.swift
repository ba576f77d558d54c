// SPDX-License-Identifier: GPL-3.0-or-later
import Synchronization

/// One sampled sound at the output rate, laid out for 4-point interpolation without any
/// wrap test: a prefix played once from frame 0 (`prefixFrames`, 0 for a tone that loops
/// whole), then a period that repeats for ever (`periodFrames`). Its signal — the "held"
/// signal, what a voice reads — is held(i) = signal[i] for i < length = prefix + period,
/// and the period again after that: held(i) = held(i − period).
///
/// Every way a sound repeats is such a table: a tone that loops whole (prefix 0); a
/// sustain loop, forward (prefix = the attack, period = the loop), backward (prefix up to
/// the loop's end, period = the loop reversed) or alternating (period = the loop forward
/// and back); a one-shot sound (prefix = the sound and a run of silence, period = silence).
/// The voice only ever reads forward (`MixerKernel.swift`).
///
/// `storage[i]` (per channel) is held(i − 1) for every `i` in 0 ..< `wrapFrames` + 1 +
/// `guardFrames` + 3, held(−1) being the period's last frame (a whole loop) or 0 (a
/// prefix: silence before the sound). The period is repeated to `loopFrames` (a whole
/// multiple of it, ≥ 128), so the mixer wraps its phase at most once per 8-frame block —
/// at `wrapFrames` (`loopFrames`, or after a prefix one period more than prefix +
/// `loopFrames`), back by `loopFrames` — and reads up to
/// `guardFrames` past it without a test. Reading frame p ≥ prefix is reading held(p):
/// the sound is the same.
///
/// For the mixer's vector loop the interpolation polynomials are precomputed per frame
/// `i` (0 ≤ i < `wrapFrames + guardFrames`): for cubic, one 16-byte row per frame, the
/// 4-point Hermite polynomial's (y0, c1, c2, c3) from frames i−1…i+2
/// (`hermite4Coefficients`); for linear, one 8-byte pair per frame, y0 and the slope
/// y1 − y0. The mixer loads them as 64-bit pairs (two loads per lane for cubic instead
/// of four scalar ones). Its evaluation may differ in rounding from the reference
/// mixer's (fused multiply-adds under `-D BEND_FMA`), far below −100 dBFS
/// (MixerReferenceTests). A stereo table holds the right channel's rows and pairs at
/// `channelBytes` past the left's.
///
/// Immutable after `init`; shared read-only by every voice.
public struct ToneTable: @unchecked Sendable {
    /// Frames of one pass of the signal: the prefix and one period, ≥ 1.
    public let length: Int
    /// Frames per second of the samples (the output rate).
    public let rate: Double
    /// Frames played once before the period repeats (0: the whole signal loops).
    public let prefixFrames: Int
    /// Frames of the repeating part, ≥ 1.
    public let periodFrames: Int
    /// Channels: 1 (mono) or 2 (left, right).
    public let channels: Int
    /// The period repeated to at least 128 frames: what the phase wraps back by.
    let loopFrames: Int
    /// Where a phase wraps back by `loopFrames`: `loopFrames` for a tone that loops whole;
    /// `prefixFrames + periodFrames + loopFrames` after a prefix, so that a wrapped phase
    /// lands at least one period past the prefix, where the interpolation's left tap is
    /// the period's own frame, not the prefix's last.
    let wrapFrames: Int
    /// Frames readable past `wrapFrames`: one 8-frame block at `EngineLimits.maximumRatio`
    /// (8 · 8 frames), plus the interpolation's 4 taps: 68.
    static var guardFrames: Int { 8 * Int(EngineLimits.maximumRatio) + 4 }
    /// Samples, held(i − 1) at index i; channel c's at `storage + c · storageStride`.
    let storage: UnsafeMutablePointer<Float>
    let storageStride: Int
    /// Cubic rows: frame i's (y0, c1, c2, c3) at `cubicRows + 4·i`, 16-byte aligned.
    let cubicRows: UnsafeMutablePointer<Float>
    /// Linear pairs: frame i's (y0, y1 − y0) at `linearPairs + 2·i`, 8-byte aligned.
    let linearPairs: UnsafeMutablePointer<Float>
    /// Bytes from the left channel's cubic rows to the right's (0 for mono); the linear
    /// pairs' are half of it.
    let channelBytes: Int
    /// The band-limited levels (`Interpolation.bandLimited`) once installed: the bit
    /// pattern of an `UnsafeMutablePointer<LevelTable>`, 0 until then. Written once by
    /// `install` (release), read by the render thread (acquire): until the levels are
    /// there, a band-limited voice reads the cubic rows.
    let levelSlot: UnsafeMutablePointer<Atomic<Int>>

    /// A mono tone that loops whole.
    /// - Parameters:
    ///   - samples: one loop of the tone, mono, at `rate`; at least 1 frame, all finite.
    ///   - rate: sample rate in frames per second.
    ///   - levels: the tone's band-limited levels (`ToneLevels`, made at load), for
    ///     `Interpolation.bandLimited`; nil for none yet (`install` may add them later).
    /// - Thread: setup.
    public init(samples: [Float], rate: Double, levels: ToneLevels? = nil) {
        self.init(channels: [samples], prefixFrames: 0, rate: rate, levels: levels)
    }

    /// - Parameters:
    ///   - signal: one array per channel (1 or 2, equally long, all finite): the prefix
    ///     and then one period; at least `prefixFrames` + 1 frames.
    ///   - prefixFrames: frames played once before the rest repeats (≥ 0).
    ///   - rate: sample rate in frames per second.
    ///   - levels: band-limited levels of this signal (`ToneLevels`, one row set per
    ///     table frame of the prefix and one period), or nil.
    /// - Thread: setup.
    public init(channels signal: [[Float]], prefixFrames: Int, rate: Double, levels: ToneLevels? = nil) {
        precondition(signal.count == 1 || signal.count == 2, "a tone has 1 or 2 channels")
        precondition(signal.allSatisfy { $0.count == signal[0].count }, "the channels are equally long")
        precondition(prefixFrames >= 0 && signal[0].count > prefixFrames, "a tone needs at least one frame after its prefix")
        length = signal[0].count
        self.rate = rate
        self.prefixFrames = prefixFrames
        periodFrames = length - prefixFrames
        channels = signal.count
        loopFrames = periodFrames * ((128 + periodFrames - 1) / periodFrames)
        wrapFrames = prefixFrames == 0 ? loopFrames : prefixFrames + periodFrames + loopFrames
        let count = wrapFrames + 1 + ToneTable.guardFrames + 3
        storageStride = count
        storage = .allocate(capacity: count * channels)
        let rowCount = wrapFrames + ToneTable.guardFrames
        let rowBytes = (16 * rowCount + 63) & ~63
        channelBytes = channels == 2 ? rowBytes : 0
        cubicRows = UnsafeMutableRawPointer.allocate(byteCount: rowBytes * channels, alignment: 64)
            .bindMemory(to: Float.self, capacity: rowBytes / 4 * channels)
        linearPairs = UnsafeMutableRawPointer.allocate(byteCount: rowBytes / 2 * channels, alignment: 64)
            .bindMemory(to: Float.self, capacity: rowBytes / 8 * channels)
        let (prefix, period) = (prefixFrames, periodFrames)
        for (c, samples) in signal.enumerated() {
            let s = storage + c * count
            for i in 0..<count {
                let frame = i - 1
                if frame < 0 {
                    s[i] = prefix == 0 ? samples[length - 1] : 0
                } else {
                    s[i] = samples[frame < length ? frame : prefix + (frame - prefix) % period]
                }
            }
            let rows = cubicRows + c * rowBytes / 4, pairs = linearPairs + c * rowBytes / 8
            for i in 0..<rowCount {
                let ym1 = s[i], y0 = s[i + 1], y1 = s[i + 2], y2 = s[i + 3]
                let h = hermite4Coefficients(ym1, y0, y1, y2)
                rows[4 * i] = y0
                rows[4 * i + 1] = h.c1
                rows[4 * i + 2] = h.c2
                rows[4 * i + 3] = h.c3
                pairs[2 * i] = y0
                pairs[2 * i + 1] = y1 - y0
            }
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
        table.initialize(to: LevelTable(&levels, tone: self))
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
    public var baseBytes: Int { channels * (4 * storageStride + 24 * (wrapFrames + ToneTable.guardFrames)) }

    /// Frame `i` of the signal (channel 0), 0 ≤ i < length.
    public subscript(i: Int) -> Float { storage[i + 1] }

    /// Frame `i` of channel `c`, 0 ≤ i < length.
    public subscript(channel c: Int, i: Int) -> Float { storage[c * storageStride + i + 1] }

    /// Frees the samples. - Thread: setup, after the render thread stopped.
    public func deallocate() {
        storage.deallocate(); UnsafeMutableRawPointer(cubicRows).deallocate(); UnsafeMutableRawPointer(linearPairs).deallocate()
        let bits = levelSlot.pointee.load(ordering: .acquiring)
        if let table = UnsafeMutablePointer<LevelTable>(bitPattern: bits) { table.pointee.deallocate(); table.deallocate() }
        levelSlot.deallocate()
    }
}
