// SPDX-License-Identifier: GPL-3.0-or-later
import BendEngine

/// Lays a loaded sound out as the engine's tables (`SoundRegion`): what a held voice
/// reads, what a released one goes on in, and their band-limited levels. Off the render
/// thread (at load, or on a thread of its own for the levels).
///
/// The held signal (`ToneTable`: a prefix, then a period for ever), for a sustain loop
/// s ..< e of direction d:
/// - forward: the attack 0 ..< s, then the loop s ..< e repeated;
/// - backward: the sound up to its turn 0 ..< e − 1, then the loop reversed, e − 1 … s;
/// - alternating: the attack 0 ..< s, then s … e − 2 and e − 1 … s + 1 repeated (each
///   turning frame played once);
/// - a sound without a loop of its own loops whole (prefix 0: what `--tone` has always
///   played); one that must not loop (`noLoop`, `oneShot`) is the sound and
///   `silenceFrames` of silence, then silence.
/// A prefix before the period runs on `junctionFrames` into it, so that the
/// band-limited levels can pass from the prefix's (made from the sound as it plays on
/// into the loop) to the period's (made from the loop alone, exactly periodic) well
/// inside the loop, blended over `blendFrames` (`levels`): the seam the voice reads
/// through is the loop's own, band-limited as a periodic signal, so it cannot click.
///
/// The release signal (`loopSustain` only): the sound from 4 frames before the loop's
/// start to its end, then silence; its levels are those of the whole sound played once.
public enum RegionMaker {
    /// Frames the held prefix runs on into the loop before the period starts.
    static let junctionFrames = 2048
    /// Frames over which the prefix's levels blend into the period's, ending at the
    /// period's start (≤ `junctionFrames`).
    static let blendFrames = 1024
    /// Silence after a sound that plays once (the band-limited levels ring out into it).
    static let silenceFrames = 1024
    /// Frames of context the prefix's levels are made with, past the prefix (the loop
    /// played on): the cut at its end is this far from the frames kept.
    static let contextFrames = 8192
    /// Silence before and after the context (the FFT sees a periodic signal: these keep
    /// its wrap-around away from the frames kept).
    static let paddingFrames = 2048

    /// A sound's tables before they become a `SoundRegion`: the signals and their
    /// layout, one array per channel (1 or 2).
    public struct Layout: Sendable {
        public var held: [[Float]]
        public var heldPrefix: Int
        public var release: [[Float]]?
        public var releasePrefix: Int
        public var mode: SoundRegion.LoopMode
        public var direction: SoundRegion.Direction
        public var loopStart: Int
        public var loopEnd: Int
        public var releaseOrigin: Int
        public var heldEnd: Int?
        public var releaseEnd: Int?
        /// Frames at the loop's end crossfaded into its seam (`SoundRegion.releaseHoldFrames`).
        public var releaseHoldFrames: Int
        /// The whole sound (for the release table's levels).
        var sound: [[Float]]
    }

    /// The loop `start ..< end` of `x` with its last `frames` frames crossfaded into the
    /// `frames` before its start, so the loop's end runs into its start as the sound ran
    /// into it: frame end − frames + i becomes a·x[end − frames + i] + b·x[start − frames
    /// + i], (a, b) the `CrossfadeLaw` for the two stretches' correlation at place
    /// (i + 1) / frames — at the seam the loop's last frame is the one before its start.
    static func crossfadeSeam(_ x: [Float], start s: Int, end e: Int, frames k: Int) -> [Float] {
        var y = x
        let law = CrossfadeLaw(correlation: CrossfadeLaw.correlation(x[(e - k)..<e], x[(s - k)..<s]))
        for i in 0..<k {
            let (a, b) = law.gains(Double(i + 1) / Double(k))
            y[e - k + i] = Float(a * Double(x[e - k + i]) + b * Double(x[s - k + i]))
        }
        return y
    }

    /// The layout of `tone` (its channels and sustain loop, at the output rate) played
    /// in `mode`; nil: a loop of the file's own is a sustain loop (`loopSustain`), a
    /// tone without one loops whole (`loopContinuous`).
    ///
    /// A tone that loops whole (no loop of its own, `mode` nil) and steps at its seam
    /// (`seamSteps`) has the seam crossfaded over `wholeCrossfadeFrames` (at most a
    /// quarter of the sound): the loop is the sound
    /// less its last k frames, which are crossfaded into its first k
    /// (`crossfadeWholeSeam`), so the loop's end runs into its start as the sound ran
    /// into its last k frames.
    public static func layout(_ tone: LoadedTone, mode: SoundRegion.LoopMode? = nil, crossfadeFrames: Int = 0,
                              wholeCrossfadeFrames: Int = 0) -> Layout {
        let k = min(wholeCrossfadeFrames, tone.channels[0].count / 4)
        if !tone.loop.fromFile && mode == nil && k > 0 && tone.channels.contains(where: seamSteps) {
            return layout(channels: tone.channels.map { crossfadeWholeSeam($0, frames: k) }, loop: nil)
        }
        return layout(channels: tone.channels, loop: tone.loop.fromFile ? (tone.loop.start, tone.loop.end, direction(tone.loop.mode)) : nil,
                      mode: mode, crossfadeFrames: crossfadeFrames)
    }

    /// Whether `x` looped whole steps at its seam (last frame → first) further than its
    /// own largest step anywhere else: a seam that meets is left as the file has it.
    static func seamSteps(_ x: [Float]) -> Bool {
        guard x.count > 1 else { return false }
        var own: Float = 0
        for i in 1..<x.count { own = max(own, abs(x[i] - x[i - 1])) }
        return abs(x[0] - x[x.count - 1]) > own
    }

    /// `x` (n frames, looped whole) as a loop of n − k frames whose first k crossfade
    /// from the sound's last k into its first k: frame i < k becomes a·x[n − k + i] +
    /// b·x[i], (a, b) the `CrossfadeLaw` for the two stretches' correlation at place
    /// (i + 1) / k. The loop's last frame x[n − k − 1] runs into x[n − k] (frame 0's
    /// most), and frame k − 1 is x[k − 1] again.
    static func crossfadeWholeSeam(_ x: [Float], frames k: Int) -> [Float] {
        let n = x.count
        var y = Array(x[0..<(n - k)])
        let law = CrossfadeLaw(correlation: CrossfadeLaw.correlation(x[(n - k)..<n], x[0..<k]))
        for i in 0..<k {
            let (a, b) = law.gains(Double(i + 1) / Double(k))
            y[i] = Float(a * Double(x[n - k + i]) + b * Double(x[i]))
        }
        return y
    }

    /// `layout` from the sound's channels and its sustain loop (start, end, direction;
    /// nil: none of its own). `crossfadeFrames` (`--loop-crossfade`): a forward or
    /// backward loop's last frames crossfade into the frames before its start
    /// (`crossfadeSeam`), at most as many as precede the loop.
    public static func layout(channels sound: [[Float]], loop: (start: Int, end: Int, direction: SoundRegion.Direction)?,
                              mode wanted: SoundRegion.LoopMode? = nil, crossfadeFrames: Int = 0) -> Layout {
        var x = sound
        var seam = 0
        if let (s, e, d) = loop, d != .alternating, crossfadeFrames > 0 {
            seam = min(crossfadeFrames, s, (e - s) / 2)
            if seam > 0 { x = x.map { crossfadeSeam($0, start: s, end: e, frames: seam) } }
        }
        let n = x[0].count
        let mode = wanted ?? (loop == nil ? .loopContinuous : .loopSustain)
        let (s, e, d) = loop ?? (0, n, .forward)
        precondition(0 <= s && s < e && e <= n, "the loop lies inside the sound")
        func silence(_ k: Int) -> [Float] { [Float](repeating: 0, count: k) }
        var layout = Layout(held: x, heldPrefix: 0, release: nil, releasePrefix: 0, mode: mode, direction: d, loopStart: s, loopEnd: e,
                            releaseOrigin: 0, heldEnd: nil, releaseEnd: nil, releaseHoldFrames: 0, sound: sound)
        switch mode {
        case .noLoop, .oneShot:
            // The sound once, silence after: a prefix of the sound and the silence, a
            // period of one silent frame.
            layout.held = x.map { $0 + silence(silenceFrames + 1) }
            layout.heldPrefix = n + silenceFrames
            layout.heldEnd = n + silenceFrames
            layout.loopStart = 0
            layout.loopEnd = n
            return layout
        case .loopContinuous, .loopSustain:
            break
        }
        if loop == nil && s == 0 && e == n {
            layout.held = x  // the whole sound loops: no prefix
        } else {
            let (prefix, period) = heldSignal(x, s, e, d)
            // The prefix runs on into the period (`junctionFrames`), which then starts
            // where the prefix left it.
            let a = prefix[0].count
            if a == 0 {
                layout.held = period
            } else {
                let p = period[0].count
                layout.held = (0..<x.count).map { c in
                    var signal = prefix[c]
                    signal.reserveCapacity(a + junctionFrames + p)
                    for i in 0..<(junctionFrames + p) { signal.append(period[c][i % p]) }
                    return signal
                }
                layout.heldPrefix = a + junctionFrames
            }
        }
        if mode == .loopSustain {
            // The release plays the sound as it is (its loop's end not crossfaded: it runs
            // into the tail); a voice is not switched to it inside the crossfade.
            let origin = max(s - 4, 0)
            layout.release = sound.map { Array($0[origin...]) + silence(silenceFrames + 1) }
            layout.releaseHoldFrames = seam
            layout.releasePrefix = n - origin + silenceFrames
            layout.releaseOrigin = origin
            layout.releaseEnd = n - origin + silenceFrames
        }
        return layout
    }

    /// The held signal's prefix and period per channel (the type's rules).
    static func heldSignal(_ x: [[Float]], _ s: Int, _ e: Int, _ d: SoundRegion.Direction) -> (prefix: [[Float]], period: [[Float]]) {
        switch d {
        case .forward:
            return (x.map { Array($0[0..<s]) }, x.map { Array($0[s..<e]) })
        case .backward:
            return (x.map { Array($0[0..<(e - 1)]) }, x.map { Array($0[s..<e].reversed()) })
        case .alternating:
            guard e - s >= 2 else { return (x.map { Array($0[0..<s]) }, x.map { Array($0[s..<e]) }) }
            return (x.map { Array($0[0..<s]) }, x.map { Array($0[s..<(e - 1)]) + Array($0[(s + 1)..<e].reversed()) })
        }
    }

    static func direction(_ mode: ToneLoop.Mode) -> SoundRegion.Direction {
        switch mode {
        case .forward: .forward
        case .backward: .backward
        case .alternating: .alternating
        }
    }

    /// The band-limited levels of the layout's held and release tables.
    /// - Throws: `ToneLoadError` (with `path`) as `ToneLevelMaker.make`.
    public static func levels(_ layout: Layout, path: String) throws -> (held: ToneLevels, release: ToneLevels?) {
        (try heldLevels(layout, path: path), try releaseLevels(layout, path: path))
    }

    /// Makes the levels of `region`'s tables (laid out as `layout`) and installs them,
    /// each handed over as it is made: nothing else holds them, so `ToneTable.install`
    /// frees each level's steps as it copies them (a long tone's peak memory).
    /// - Throws: `ToneLoadError` (with `path`) as `ToneLevelMaker.make`.
    public static func install(_ layout: Layout, in region: SoundRegion, path: String) throws {
        region.held.install(try heldLevels(layout, path: path))
        if let release = region.release, let levels = try releaseLevels(layout, path: path) { release.install(levels) }
    }

    /// The levels of the layout's held table.
    static func heldLevels(_ layout: Layout, path: String) throws -> ToneLevels {
        if layout.held.count == 1 { return try heldLevels(layout.held[0], prefix: layout.heldPrefix, path: path) }
        return try combined(layout.held.map { try heldLevels($0, prefix: layout.heldPrefix, path: path) })
    }

    /// The levels of the layout's release table (nil without one).
    static func releaseLevels(_ layout: Layout, path: String) throws -> ToneLevels? {
        guard layout.release != nil else { return nil }
        let origin = layout.releaseOrigin, count = layout.releasePrefix
        return try combined(layout.sound.map { sound in
            try onceLevels(sound, keep: origin..<(origin + count), path: path)
        })
    }

    /// A stereo table's channels as one `ToneLevels` (the left's rows and the right's, as
    /// Float rows: they share one scale in the engine).
    static func combined(_ channels: [ToneLevels]) -> ToneLevels {
        guard channels.count == 2 else { return channels[0] }
        return ToneLevels(rows: floatRows(channels[0]), right: floatRows(channels[1]), aliasFreeRatio: channels[0].aliasFreeRatio,
                          crossfadeStart: channels[0].crossfadeStart)
    }

    /// The levels' rows as Floats (`ToneLevelMaker` makes them as 16-bit steps).
    static func floatRows(_ levels: ToneLevels) -> [[Float]] {
        guard !levels.steps.isEmpty else { return levels.rows }
        let scale = levels.stepScale
        return levels.steps.map { $0.map { Float($0) * scale } }
    }

    /// One channel's held levels: the period's as a periodic signal; the prefix's from
    /// the sound as it plays on (silence before it, the loop played on after it for
    /// `contextFrames`), blended into the period's over the prefix's last
    /// `blendFrames` frames (a weighted sum of two cubic rows is the cubic of the
    /// weighted sum).
    static func heldLevels(_ held: [Float], prefix a: Int, path: String) throws -> ToneLevels {
        let p = held.count - a
        let periodic = try ToneLevelMaker.make(Array(held[a...]), path: path)
        guard a > 0 else { return periodic }
        let k = ToneLevels.oversampling
        // The held signal up to `contextFrames` past the prefix, padded with silence.
        var context = [Float](repeating: 0, count: paddingFrames)
        context.reserveCapacity(2 * paddingFrames + a + contextFrames)
        for i in 0..<(a + contextFrames) { context.append(held[i < a ? i : a + (i - a) % p]) }
        context += [Float](repeating: 0, count: paddingFrames)
        let once = try ToneLevelMaker.make(context, path: path)
        var rows: [[Float]] = []
        let onceRows = floatRows(once)
        for (level, periodicRows) in floatRows(periodic).enumerated() {
            var out = [Float](repeating: 0, count: 4 * k * (a + p))
            let source = onceRows[level], first = 4 * k * paddingFrames
            for i in 0..<(k * a) {
                // Table frame i of the prefix: its rows from `once`, blended towards the
                // period's rows at the same place of the loop near the prefix's end.
                let t = Double(i - k * (a - blendFrames)) / Double(k * blendFrames)
                let w = Float(t <= 0 ? 0 : t >= 1 ? 1 : t * t * (3 - 2 * t))
                let j = ((i - k * a) % (k * p) + k * p) % (k * p)  // the period's row for this frame
                for m in 0..<4 {
                    let x = source[first + 4 * i + m], y = periodicRows[4 * j + m]
                    out[4 * i + m] = x + (y - x) * w
                }
            }
            for i in 0..<(4 * k * p) { out[4 * k * a + i] = periodicRows[i] }
            rows.append(out)
        }
        return ToneLevels(rows: rows, aliasFreeRatio: periodic.aliasFreeRatio, crossfadeStart: periodic.crossfadeStart)
    }

    /// One channel's levels of a table that plays `keep` (frames of the sound; past its
    /// end, silence) once, then a silent period of one frame: the sound's levels as it
    /// plays once, silence around it.
    static func onceLevels(_ sound: [Float], keep: Range<Int>, path: String) throws -> ToneLevels {
        let k = ToneLevels.oversampling
        var context = [Float](repeating: 0, count: paddingFrames)
        context += sound
        context += [Float](repeating: 0, count: max(0, keep.upperBound - sound.count) + paddingFrames)
        let once = try ToneLevelMaker.make(context, path: path)
        let rows = floatRows(once).map { level -> [Float] in
            Array(level[(4 * k * (paddingFrames + keep.lowerBound))..<(4 * k * (paddingFrames + keep.upperBound))])
                + [Float](repeating: 0, count: 4 * k)  // the silent period's rows
        }
        return ToneLevels(rows: rows, aliasFreeRatio: once.aliasFreeRatio, crossfadeStart: once.crossfadeStart)
    }

    /// The region, its tables at `rate` with `levels` (or none yet: `install` them later).
    /// - Thread: setup.
    public static func region(_ layout: Layout, rate: Double, levels: (held: ToneLevels, release: ToneLevels?)? = nil,
                              pan: Float = 0, releaseFades: Bool = true) -> SoundRegion {
        let held = ToneTable(channels: layout.held, prefixFrames: layout.heldPrefix, rate: rate, levels: levels?.held)
        let release = layout.release.map { ToneTable(channels: $0, prefixFrames: layout.releasePrefix, rate: rate, levels: levels?.release) }
        return SoundRegion(held: held, release: release, mode: layout.mode, direction: layout.direction, loopStart: layout.loopStart,
                           loopEnd: layout.loopEnd, releaseOrigin: layout.releaseOrigin, heldEnd: layout.heldEnd,
                           releaseEnd: layout.releaseEnd, pan: pan, releaseFades: releaseFades, releaseHoldFrames: layout.releaseHoldFrames)
    }
}
