// SPDX-License-Identifier: GPL-3.0-or-later

/// The tempo and the beat position of a MIDI clock: timing clocks (0xF8, `ppqn` per
/// quarter note) and the transport that moves the position (Start, Stop, Continue, Song
/// Position Pointer). A pure value fed with each message's arrival time; nothing is
/// allocated after init (the clocks are kept in an `InlineArray`), so it can be fed and
/// read on the render thread.
///
/// The tempo is a least-squares line through the arrival times of the last clocks
/// against their count: its slope is the time of one clock. A fit over N clocks lets
/// each clock's jitter into the slope only as 1/N^1.5 (a mean of the last N intervals
/// reads only its two end clocks, 1/N), so 96 clocks (a bar of 4/4) keep a 120 BPM clock
/// with ±2 ms of jitter within ±0.11 BPM (0.024 RMS), where a 24-clock mean wanders by
/// ±1 BPM (0.39 RMS; `bendsynth-bench --clock`). A
/// long window alone would follow a tempo change late, so each clock is first compared
/// with where the line says it should be: its innovation, in units of its expected
/// spread (the clocks' jitter, measured as the fit's residuals, widened by the line's own
/// uncertainty). Two cumulative sums (Page's CUSUM), one of late and one of early
/// clocks, add up innovations beyond one σ, each clipped to 6 σ; when one passes 12 σ
/// the tempo has changed, and the window restarts at the last clock where that sum was
/// zero: the last clock on the old line. A step of 120 → 90 BPM is seen at the third
/// clock after it (three clocks 6 σ late at ±2 ms) and the fit then holds only clocks
/// of the new tempo; it grows back to 96 clocks as they come. One late clock (a USB
/// burst, a busy sender) adds at most 5 to the sum, which then drains: it is no change.
/// A pause longer than 4 clocks (a sender that stops its clock while stopped) starts
/// the window afresh at the next clock, keeping the last tempo until 3 new clocks.
///
/// The beat follows the MIDI spec's transport: after Start the next clock is beat 0;
/// each further clock while playing moves the position by 1/`ppqn` beat; Stop holds the
/// beat where it is, Continue resumes at the next clock from the position after the
/// last one; a Song Position Pointer (in sixteenths, 6 clocks each at 24 ppqn) sets the
/// position the next clock lands on. Between clocks the beat moves at the fitted tempo
/// from the fitted time of the last clock (the line, not the jittered arrival), never
/// past the position the next clock will bring: the beat is as steady as the tempo.
/// - Thread: one thread at a time (the thread that reads the MIDI input, or render).
public struct MIDIClockEstimator: Sendable {
    /// Clocks in the longest fit: one bar of 4/4 at 24 ppqn.
    public static let longestFit = 96
    /// Clocks in a fit before `bpm` is known (two intervals).
    public static let shortestFit = 3
    /// The floor of the measured jitter, seconds RMS: a clock without jitter (an
    /// internally generated one) still gets a tolerance of rounding and scheduling.
    public static let jitterFloor = 0.000_1
    /// The CUSUM's drift, clip and alarm level, in σ of an innovation.
    static let drift = 1.0, clip = 6.0, alarm = 12.0
    /// The longest time between clocks, seconds, before a tempo is known (5 BPM at 24
    /// ppqn); afterwards 4 clocks of the estimate. A longer pause starts a new fit.
    public static let longestInterval = 0.5
    /// The shortest pause, seconds, whatever the tempo: a fit gone wrong (a burst read
    /// as a fast tempo) must not take every clock for a pause.
    public static let shortestPause = 0.1

    /// Timing clocks per quarter note (24 in MIDI).
    public let ppqn: Int

    /// Arrival time of clock i, seconds, at i % `longestFit`: the last `longestFit` clocks.
    private var times = InlineArray<96, Double>(repeating: 0)
    /// Clocks received since init: the index of the next clock.
    private var received = 0
    /// Index of the fit's first clock (the last tempo change or pause).
    private var fitStart = 0
    /// The fit: clock i is expected at `lineTime + period · (i − lineIndex)`, seconds.
    private var lineIndex = 0
    private var lineTime = 0.0
    /// Seconds per clock; 0 until the first fit.
    private var period = 0.0
    /// The clocks' jitter, seconds RMS: the residuals of the last fit of 16 clocks or more.
    public private(set) var jitter = jitterFloor
    /// A fit of 16 clocks has measured `jitter`: until then no change is looked for (the
    /// first fit just grows), and after a change the last measure is kept.
    private var jitterKnown = false
    /// The CUSUMs of late and early innovations (σ) and the clock each was last zero at.
    private var lateSum = 0.0, earlySum = 0.0
    private var lateZero = 0, earlyZero = 0
    /// Tempo changes detected since init (the bench counts false ones under jitter).
    public private(set) var tempoChanges = 0

    /// Start or Continue came and no Stop since.
    private var running = false
    /// The transport runs and a clock has come since Start or Continue: the beat moves.
    public private(set) var playing = false
    /// Song position (clocks since the song's start) the next clock lands on while running.
    private var nextPosition = 0
    /// Song position of the last clock while playing, and that clock's index.
    private var position = 0
    private var positionIndex = 0
    /// The beat while not playing, quarter notes.
    private var heldBeat = 0.0

    /// - Parameter ppqn: timing clocks per quarter note, a multiple of 4 (a sixteenth is
    ///   `ppqn / 4` clocks).
    /// - Thread: any.
    public init(ppqn: Int = 24) {
        precondition(ppqn >= 4 && ppqn % 4 == 0, "ppqn must be a positive multiple of 4")
        self.ppqn = ppqn
    }

    /// Tempo, quarter notes per minute; nil until `shortestFit` clocks have come.
    /// After a pause the last tempo is kept until the new clocks give one.
    public var bpm: Double? {
        @_noLocks get { period > 0 ? 60 / (period * Double(ppqn)) : nil }
    }

    /// Clocks in the fit now (1 … `longestFit`): short just after a tempo change.
    public var fitClocks: Int { @_noLocks get { received - fitStart } }

    /// A timing clock (0xF8) arrived at `seconds` (any monotonic clock; times before
    /// the last clock's count as the last clock's).
    /// - Thread: the one feeding thread.
    @_noLocks
    public mutating func clock(at seconds: Double) {
        guard seconds.isFinite else { return }
        var t = seconds
        if received > 0 {
            let last = times[(received - 1) % Self.longestFit]
            if t < last { t = last }
            let limit = period > 0 ? max(4 * period, Self.shortestPause) : Self.longestInterval
            if t - last > limit { restart(at: received) }
        }
        let n = received - fitStart
        times[received % Self.longestFit] = t
        if n >= Self.shortestFit && period > 0 && jitterKnown { watch(t, fitClocks: n) }
        received += 1
        if received - fitStart > Self.longestFit { fitStart = received - Self.longestFit }
        fit()
        if running {
            position = nextPosition
            positionIndex = received - 1
            nextPosition += 1
            playing = true
        }
    }

    /// Start (0xFA) at `seconds`: the next clock is beat 0.
    /// - Thread: the one feeding thread.
    @_noLocks
    public mutating func start(at seconds: Double) {
        running = true
        playing = false
        nextPosition = 0
        heldBeat = 0
    }

    /// Stop (0xFC) at `seconds`: the beat holds where it is then.
    /// - Thread: the one feeding thread.
    @_noLocks
    public mutating func stop(at seconds: Double) {
        if playing { heldBeat = beat(at: seconds) }
        running = false
        playing = false
    }

    /// Continue (0xFB) at `seconds`: the next clock moves on from the position after the
    /// last clock (or the one a Song Position Pointer set). Ignored while running.
    /// - Thread: the one feeding thread.
    @_noLocks
    public mutating func resume(at seconds: Double) {
        guard !running else { return }
        running = true
        playing = false
    }

    /// Song Position Pointer (0xF2) at `seconds`: `sixteenths` since the song's start
    /// (0…16383; one is `ppqn / 4` clocks), the position the next clock lands on. While
    /// stopped the beat holds there at once.
    /// - Thread: the one feeding thread.
    @_noLocks
    public mutating func songPosition(_ sixteenths: Int, at seconds: Double) {
        nextPosition = max(0, sixteenths) * (ppqn / 4)
        if !playing { heldBeat = Double(nextPosition) / Double(ppqn) }
    }

    /// The beat at `seconds`, quarter notes since the song's start: the last clock's
    /// position plus the time since its fitted time at the fitted tempo, at most one
    /// clock on; while not playing, where Stop, Start or the Song Position Pointer left it.
    /// - Thread: the one feeding thread (or one that reads a copy).
    @_noLocks
    public func beat(at seconds: Double) -> Double {
        guard playing else { return heldBeat }
        var fraction = 0.0
        if period > 0 {
            let fitted = lineTime + period * Double(positionIndex - lineIndex)
            fraction = min(max((seconds - fitted) / period, 0), 1)
        }
        return (Double(position) + fraction) / Double(ppqn)
    }

    // MARK: - The fit

    /// A new fit from clock `index` (the next clock when it is `received`).
    @_noLocks
    private mutating func restart(at index: Int) {
        fitStart = index
        lateSum = 0
        earlySum = 0
        lateZero = index
        earlyZero = index
    }

    /// Clock `t`'s innovation against the fit of the `n` clocks before it, into the
    /// CUSUMs; a sum past the alarm restarts the fit at the last clock of the old tempo.
    @_noLocks
    private mutating func watch(_ t: Double, fitClocks n: Int) {
        let expected = lineTime + period * Double(received - lineIndex)
        let w = Double(n)
        // An innovation's spread: the clock's own jitter and the line's error one clock
        // past its last (1/n + (x − x̄)² / Σ(x − x̄)², x − x̄ = (n + 1)/2).
        let lineSpread = 1 / w + 3 * (w + 1) * (w + 1) / (w * (w * w - 1))
        let sigma = jitter * Self.root(1 + lineSpread)
        let z = min(max((t - expected) / sigma, -Self.clip), Self.clip)
        lateSum = max(0, lateSum + z - Self.drift)
        earlySum = max(0, earlySum - z - Self.drift)
        if lateSum == 0 { lateZero = received }
        if earlySum == 0 { earlyZero = received }
        if lateSum > Self.alarm || earlySum > Self.alarm {
            let from = lateSum > Self.alarm ? lateZero : earlyZero
            // The ring holds this clock and the `longestFit − 1` before it.
            let c = split(from: max(from, received + 1 - Self.longestFit))
            let slope = self.slope(from: c, through: received)
            guard slope > period / 4 && slope < 4 * period else {
                // Clocks held back and let go at once (a stalled sender or driver), no
                // tempo: they stay in the long fit, which they barely move.
                restart(at: fitStart)
                return
            }
            restart(at: c)
            tempoChanges += 1
        }
    }

    /// Where the tempo changed among clocks `from` … this one (`received`, stored): the
    /// clock c for which the clocks before it lie best on the old line and c … this one
    /// on a line of their own (least squares of both). The CUSUM's last zero alone can be
    /// a few clocks early (jitter that happened to lean the same way), and each clock of
    /// the old tempo left in the new fit pulls it back by a share of the step.
    @_noLocks
    private func split(from: Int) -> Int {
        var best = from, bestSquares = Double.infinity
        var oldSquares = 0.0
        var c = from
        while c <= received - 2 {  // the new line through 3 clocks at least
            let squares = oldSquares + residualSquares(from: c, through: received)
            if squares < bestSquares { best = c; bestSquares = squares }
            let r = times[c % Self.longestFit] - lineTime - period * Double(c - lineIndex)
            oldSquares += r * r
            c += 1
        }
        return best
    }

    /// The slope of the least-squares line through clocks `first` … `last`, seconds per clock.
    @_noLocks
    private func slope(from first: Int, through last: Int) -> Double { line(from: first, through: last).slope }

    /// The sum of squared residuals of the least-squares line through clocks `first` …
    /// `last`, seconds².
    @_noLocks
    private func residualSquares(from first: Int, through last: Int) -> Double { line(from: first, through: last).squares }

    /// The least-squares line through clocks `first` … `last`: its slope (seconds per
    /// clock) and the sum of its squared residuals (seconds²).
    @_noLocks
    private func line(from first: Int, through last: Int) -> (slope: Double, squares: Double) {
        let n = last - first + 1
        let t0 = times[first % Self.longestFit]
        var sumY = 0.0, sumXY = 0.0, sumYY = 0.0
        for k in 0..<n {
            let y = times[(first + k) % Self.longestFit] - t0
            sumY += y
            sumXY += Double(k) * y
            sumYY += y * y
        }
        let w = Double(n)
        let meanX = (w - 1) / 2, meanY = sumY / w
        let sxx = w * (w * w - 1) / 12
        let sxy = sumXY - w * meanX * meanY
        return (sxy / sxx, max(0, sumYY - w * meanY * meanY - sxy * sxy / sxx))
    }

    /// The least-squares line through the fit's clocks (time against index), when it
    /// holds `shortestFit` or more; otherwise the line goes through the last clock at
    /// the last tempo. 96 clocks at most: a few hundred operations.
    @_noLocks
    private mutating func fit() {
        let n = received - fitStart
        let last = received - 1
        guard n >= Self.shortestFit else {
            lineIndex = last
            lineTime = times[last % Self.longestFit]
            return
        }
        // Times relative to the first clock: the sums keep their precision on a clock
        // that has run for days.
        let t0 = times[fitStart % Self.longestFit]
        var sumY = 0.0, sumXY = 0.0
        for k in 0..<n {
            let y = times[(fitStart + k) % Self.longestFit] - t0
            sumY += y
            sumXY += Double(k) * y
        }
        let w = Double(n)
        let meanX = (w - 1) / 2, meanY = sumY / w
        let sxx = w * (w * w - 1) / 12
        let slope = (sumXY - w * meanX * meanY) / sxx
        // Clocks that came together (a burst stamped at once) give no tempo.
        guard slope > 60 / (1_000 * Double(ppqn)) else {
            lineIndex = last
            lineTime = times[last % Self.longestFit]
            return
        }
        period = slope
        lineIndex = last
        lineTime = t0 + meanY + slope * (w - 1 - meanX)
        guard n >= 16 else { return }
        var squares = 0.0
        for k in 0..<n {
            let r = times[(fitStart + k) % Self.longestFit] - t0 - meanY - slope * (Double(k) - meanX)
            squares += r * r
        }
        jitter = max(Self.jitterFloor, Self.root(squares / (w - 2)))
        jitterKnown = true
    }

    /// √x for x ≥ 0 (the standard library's is a call the real-time checker cannot see
    /// into): halving the exponent bits is within 6 %, and each Newton step squares the
    /// error, so four steps reach the last bit.
    @_noLocks
    static func root(_ x: Double) -> Double {
        guard x > 0 else { return 0 }
        var r = Double(bitPattern: (x.bitPattern >> 1) &+ 0x1FF8_0000_0000_0000)
        for _ in 0..<4 { r = 0.5 * (r + x / r) }
        return r
    }
}
