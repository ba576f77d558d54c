// SPDX-License-Identifier: GPL-3.0-or-later
@testable import BendMIDI
import BendTestSupport
import XCTest

/// The MIDI clock's tempo and beat (issue 36, item 2): steady under jitter, quick on a
/// step, and the transport moving the beat exactly; beside the 24-clock moving average,
/// which fails both (why the estimator is not one).
final class MIDIClockEstimatorTests: XCTestCase {
    /// Seconds per clock at `bpm` (24 ppqn).
    func period(_ bpm: Double) -> Double { 60 / (bpm * 24) }

    /// Arrival times: `steady` clocks at `from` BPM, then `after` clocks at `to` (the
    /// last clock at `from` starts the first interval at `to`), each moved by uniform
    /// jitter of ±`jitter` seconds from `seed`.
    func clocks(from: Double, to: Double? = nil, steady: Int, after: Int = 0, jitter: Double, seed: UInt64) -> [Double] {
        var random = SplitMix(seed: seed)
        return (0..<(steady + after)).map { i in
            let nominal = i < steady ? Double(i) * period(from) : Double(steady - 1) * period(from) + Double(i - steady + 1) * period(to!)
            return 100 + nominal + (jitter > 0 ? Double.random(in: -jitter...jitter, using: &random) : 0)
        }
    }

    /// The largest tempo error of each follower over clocks `range` (1-based counts).
    func worstErrors(_ times: [Double], bpm: Double, clocks range: ClosedRange<Int>) -> (estimator: Double, average: Double) {
        var e = MIDIClockEstimator(), m = MIDIClockMovingAverage()
        var worst = (estimator: 0.0, average: 0.0)
        for (i, t) in times.enumerated() {
            e.clock(at: t)
            m.clock(at: t)
            guard range.contains(i + 1) else { continue }
            worst.estimator = max(worst.estimator, abs((e.bpm ?? 0) - bpm))
            worst.average = max(worst.average, abs((m.bpm ?? 0) - bpm))
        }
        return worst
    }

    func testSteadyUnderTwoMillisecondsOfJitter() {
        // 16 bars at 120 BPM, ±2 ms: within ±0.2 BPM from the end of the first bar on.
        for seed: UInt64 in 1...8 {
            let times = clocks(from: 120, steady: 16 * 96, jitter: 0.002, seed: seed)
            let worst = worstErrors(times, bpm: 120, clocks: 96...times.count)
            XCTAssertLessThanOrEqual(worst.estimator, 0.2, "seed \(seed)")
            // The mean of 24 intervals reads two clocks' jitter: ±0.4 BPM RMS.
            XCTAssertGreaterThan(worst.average, 0.5, "seed \(seed)")
        }
        var e = MIDIClockEstimator()
        for t in clocks(from: 120, steady: 2, jitter: 0, seed: 1) { e.clock(at: t) }
        XCTAssertNil(e.bpm, "two clocks are no tempo yet")
        e.clock(at: 100 + 2 * period(120))
        XCTAssertEqual(e.bpm ?? 0, 120, accuracy: 1e-9)
    }

    func testAStepFrom120To90IsFollowedWithinOneBeat() {
        for seed: UInt64 in 1...8 {
            let times = clocks(from: 120, to: 90, steady: 4 * 96, after: 4 * 96, jitter: 0.002, seed: seed)
            // From the 24th clock at 90 BPM to the end: within ±0.5 BPM.
            let worst = worstErrors(times, bpm: 90, clocks: (4 * 96 + 24)...times.count)
            XCTAssertLessThanOrEqual(worst.estimator, 0.5, "seed \(seed)")
            var e = MIDIClockEstimator()
            for t in times { e.clock(at: t) }
            XCTAssertEqual(e.tempoChanges, 1, "seed \(seed): one change seen, none made up by the jitter")
        }
        // Without jitter the step is seen at its third clock and the fit is exact.
        let times = clocks(from: 120, to: 90, steady: 4 * 96, after: 3, jitter: 0, seed: 1)
        XCTAssertLessThan(worstErrors(times, bpm: 90, clocks: times.count...times.count).estimator, 1e-6)
    }

    func testTheMovingAverageFailsTheStep() {
        // Half a beat after the step it still blends the tempos: 24 intervals, 12 of each.
        let half = clocks(from: 120, to: 90, steady: 4 * 96, after: 12, jitter: 0, seed: 1)
        let blended = 60 * 24 / (24 * (12 * period(120) + 12 * period(90)))
        var m = MIDIClockMovingAverage()
        for t in half { m.clock(at: t) }
        XCTAssertEqual(m.bpm ?? 0, blended, accuracy: 1e-6)
        XCTAssertGreaterThan(blended - 90, 12)
        XCTAssertLessThan(worstErrors(half, bpm: 90, clocks: half.count...half.count).estimator, 1e-6)
        // Under ±2 ms of jitter it does not stay within ±0.5 BPM after the beat.
        var failed = 0
        for seed: UInt64 in 1...8 {
            let times = clocks(from: 120, to: 90, steady: 4 * 96, after: 4 * 96, jitter: 0.002, seed: seed)
            if worstErrors(times, bpm: 90, clocks: (4 * 96 + 24)...times.count).average > 0.5 { failed += 1 }
        }
        XCTAssertEqual(failed, 8)
    }

    func testTransportMovesTheBeat() {
        let p = period(120)
        var e = MIDIClockEstimator()
        var t = 100.0
        func tick(_ n: Int = 1) { for _ in 0..<n { e.clock(at: t); t += p } }
        // Clocks while stopped give the tempo; the beat holds at 0.
        tick(48)
        XCTAssertFalse(e.playing)
        XCTAssertEqual(e.beat(at: t), 0)
        XCTAssertEqual(e.bpm ?? 0, 120, accuracy: 1e-9)
        // Start between clocks: the next clock is beat 0 (not the Start message).
        e.start(at: t - p / 2)
        XCTAssertFalse(e.playing)
        XCTAssertEqual(e.beat(at: t - p / 4), 0)
        let first = t
        tick()
        XCTAssertTrue(e.playing)
        XCTAssertEqual(e.beat(at: first), 0, accuracy: 1e-9)
        XCTAssertEqual(e.beat(at: first + p / 2), 1.0 / 48, accuracy: 1e-9)
        XCTAssertEqual(e.beat(at: first + 5 * p), 1.0 / 24, accuracy: 1e-9, "never past the next clock's position")
        tick(24)  // the 25th clock after Start: beat 1
        XCTAssertEqual(e.beat(at: t - p), 1, accuracy: 1e-9)
        tick(23)  // clocks at beats 0 … 47/24
        // Stop halfway to the next clock: the beat holds there, clocks or not.
        e.stop(at: t - p / 2)
        let held = 47.5 / 24
        XCTAssertFalse(e.playing)
        XCTAssertEqual(e.beat(at: t - p / 2), held, accuracy: 1e-9)
        tick(10)
        XCTAssertEqual(e.beat(at: t), held, accuracy: 1e-9)
        // Continue: the next clock is the one after the last played, beat 2.
        e.resume(at: t - p / 2)
        let resumed = t
        tick()
        XCTAssertEqual(e.beat(at: resumed), 2, accuracy: 1e-9)
        tick(5)
        XCTAssertEqual(e.beat(at: t - p), 2 + 5.0 / 24, accuracy: 1e-9)
        // Song position 16 sixteenths while stopped: beat 4 at once and at the next clock.
        e.stop(at: t - p / 2)
        e.songPosition(16, at: t - p / 2)
        XCTAssertEqual(e.beat(at: t), 4)
        tick(3)
        XCTAssertEqual(e.beat(at: t), 4, "stopped: clocks do not move it")
        e.resume(at: t - p / 2)
        let located = t
        tick()
        XCTAssertEqual(e.beat(at: located), 4, accuracy: 1e-9)
        tick()
        XCTAssertEqual(e.beat(at: located + p), 4 + 1.0 / 24, accuracy: 1e-9)
        // While playing, a song position is where the next clock lands.
        e.songPosition(64, at: t - p / 2)
        let relocated = t
        tick()
        XCTAssertEqual(e.beat(at: relocated), 16, accuracy: 1e-9)
        // Start again: the next clock is beat 0.
        e.start(at: t - p / 2)
        XCTAssertEqual(e.beat(at: t - p / 4), 0)
        let restarted = t
        tick()
        XCTAssertEqual(e.beat(at: restarted), 0, accuracy: 1e-9)
    }

    func testAPauseInTheClockKeepsTheTempo() {
        // A sender that stops its clock for 2 s: the tempo is kept, and the first interval
        // after the pause is no tempo.
        var e = MIDIClockEstimator()
        for t in clocks(from: 120, steady: 96, jitter: 0, seed: 1) { e.clock(at: t) }
        e.clock(at: 110)
        XCTAssertEqual(e.bpm ?? 0, 120, accuracy: 1e-9)
        XCTAssertEqual(e.fitClocks, 1)
        for i in 1...3 { e.clock(at: 110 + Double(i) * period(90)) }
        XCTAssertEqual(e.bpm ?? 0, 90, accuracy: 1e-9)
        XCTAssertEqual(e.tempoChanges, 0)
    }
}
