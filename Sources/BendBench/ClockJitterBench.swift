// SPDX-License-Identifier: GPL-3.0-or-later
import BendMIDI
import Foundation

/// `bendsynth-bench --clock`: the MIDI clock's tempo estimator (`MIDIClockEstimator`, a
/// least-squares fit with step detection) beside the mean of the last 24 intervals
/// (`MIDIClockMovingAverage`, what users complain of), on the same clocks in one run.
///
/// Method: a 120 BPM clock (24 ppqn) whose every arrival time is moved by uniform random
/// jitter of ±J (J = 0, 1, 2 and 5 ms), for `bars` bars, then a step to 90 BPM for 4 bars.
/// Each estimate is read after every clock. The tempo error is over the steady clocks
/// after the first bar (RMS and largest, BPM); the settling time is the clocks at the new
/// tempo until the estimate stays within ±0.5 BPM of 90 to the end of the run (24 clocks
/// are a beat), the median and the worst of the runs. Each run has its own seed (1…runs),
/// shared by both: the figures are the same on every machine.
public enum ClockJitterBench {
    /// One follower's figures at one jitter.
    public struct Figures: Sendable {
        /// Tempo error after the first bar at a steady 120 BPM, BPM.
        public var rmsError: Double
        public var maxError: Double
        /// Clocks at 90 BPM until the estimate stays within ±0.5 BPM: the median and the
        /// worst of the runs; nil where a run never did within the 4 bars.
        public var medianSettling: Int?
        public var worstSettling: Int?
    }

    public struct Result: Sendable {
        /// Jitter, ± milliseconds (uniform).
        public var jitter: Double
        public var estimator: Figures
        public var movingAverage: Figures
        /// Tempo changes the estimator detected at the steady tempo, over all runs (each
        /// one a false alarm that shortened its fit).
        public var falseChanges: Int
    }

    /// Settled: within this of the new tempo, BPM.
    public static let settledWithin = 0.5
    static let before = 120.0, after = 90.0
    static let barsAfter = 4

    /// Both followers at each jitter (ms).
    /// - Thread: any.
    public static func measure(jitters: [Double] = [0, 1, 2, 5], runs: Int = 20, bars: Int = 16) -> [Result] {
        jitters.map { j in
            var estimator = Tally(), average = Tally()
            var falseChanges = 0
            for run in 1...runs {
                let clocks = Clocks(jitter: j / 1000, seed: UInt64(run), steady: bars * 96)
                var e = MIDIClockEstimator()
                falseChanges += follow(&e, clocks, into: &estimator, changes: { $0.tempoChanges })
                var m = MIDIClockMovingAverage()
                _ = follow(&m, clocks, into: &average, changes: { _ in 0 })
            }
            return Result(jitter: j, estimator: estimator.figures, movingAverage: average.figures, falseChanges: falseChanges)
        }
    }

    /// The figures as a Markdown table with a line of method above it.
    /// - Thread: any.
    public static func run(runs: Int = 20, bars: Int = 16) -> String {
        let results = measure(runs: runs, bars: bars)
        var text = "MIDI clock at 120 BPM (24 ppqn), each clock's arrival moved by uniform random jitter of ±J, "
            + "\(runs) runs (seeds 1…\(runs)) of \(bars) bars, then a step to 90 BPM for \(barsAfter) bars; "
            + "each estimate read after every clock. Error: at 120 BPM after the first bar. "
            + "Settling: clocks at 90 BPM until the estimate stays within ±0.5 BPM (24 clocks = 1 beat), median / worst run\n\n"
        text += "| jitter | fit: RMS error | fit: max error | fit: settling | fit: false tempo changes "
            + "| 24-clock mean: RMS error | 24-clock mean: max error | 24-clock mean: settling |\n"
        text += "|---:|---:|---:|---:|---:|---:|---:|---:|\n"
        for r in results {
            text += String(format: "| ±%.0f ms | %.3f BPM | %.3f BPM | %@ | %d | %.3f BPM | %.3f BPM | %@ |\n",
                           r.jitter, r.estimator.rmsError, r.estimator.maxError, settling(r.estimator), r.falseChanges,
                           r.movingAverage.rmsError, r.movingAverage.maxError, settling(r.movingAverage))
        }
        return text
    }

    static func settling(_ f: Figures) -> String {
        let median = f.medianSettling.map { "\($0)" } ?? "—"
        let worst = f.worstSettling.map { String(format: "%d clocks (%.2f beats)", $0, Double($0) / 24) } ?? "not within \(barsAfter) bars"
        return "\(median) / \(worst)"
    }

    /// One run's clock: arrival times, seconds, `steady` clocks at 120 BPM then 4 bars
    /// at 90, each moved by uniform jitter of ±`jitter` seconds.
    struct Clocks {
        var times: [Double] = []
        let steady: Int

        init(jitter: Double, seed: UInt64, steady: Int) {
            self.steady = steady
            var random = SplitMix64(seed: seed)
            let p120 = 60 / (before * 24), p90 = 60 / (after * 24)
            for i in 0..<(steady + barsAfter * 96) {
                let nominal = i < steady ? Double(i) * p120 : Double(steady - 1) * p120 + Double(i - steady + 1) * p90
                times.append(nominal + jitter * (2 * random.unit() - 1))
            }
        }
    }

    /// The errors and settling times of one follower over the runs.
    struct Tally {
        var squares = 0.0, count = 0, maxError = 0.0
        var settling: [Int?] = []

        var figures: Figures {
            let known = settling.compactMap { $0 }.sorted()
            let all = known.count == settling.count
            return Figures(rmsError: (squares / Double(max(count, 1))).squareRoot(), maxError: maxError,
                           medianSettling: settling.count > 0 && known.count * 2 > settling.count ? known[settling.count / 2] : nil,
                           worstSettling: all ? known.last : nil)
        }
    }

    /// Feeds `clocks` to `follower` and adds its errors and settling time to `tally`;
    /// returns `changes` of the follower after the steady clocks.
    static func follow<F: TempoFollower>(_ follower: inout F, _ clocks: Clocks, into tally: inout Tally,
                                         changes: (F) -> Int) -> Int {
        var steadyChanges = 0
        var settled = 0  // the clock after the last one outside ±0.5 BPM
        for (i, t) in clocks.times.enumerated() {
            follower.clock(at: t)
            let bpm = follower.bpm ?? 0
            if i < clocks.steady {
                if i + 1 >= 96 {
                    let e = abs(bpm - before)
                    tally.squares += e * e
                    tally.count += 1
                    tally.maxError = max(tally.maxError, e)
                }
                if i + 1 == clocks.steady { steadyChanges = changes(follower) }
            } else if abs(bpm - after) > settledWithin {
                settled = i - clocks.steady + 2
            }
        }
        tally.settling.append(settled > barsAfter * 96 ? nil : settled)
        return steadyChanges
    }
}

/// What the bench feeds and reads: both followers.
protocol TempoFollower {
    mutating func clock(at seconds: Double)
    var bpm: Double? { get }
}

extension MIDIClockEstimator: TempoFollower {}
extension MIDIClockMovingAverage: TempoFollower {}

/// SplitMix64, seeded: the bench's jitter is the same in every run of it.
struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}
