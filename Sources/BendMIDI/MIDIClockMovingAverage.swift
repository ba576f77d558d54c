// SPDX-License-Identifier: GPL-3.0-or-later

/// The tempo of a MIDI clock as the mean of its last 24 intervals: what many followers
/// do, and what `MIDIClockEstimator` is measured against (its tests and the bench). Not
/// used to play: the mean of N intervals is the time across them over N, so it reads
/// only two clocks' arrival times and keeps their jitter (±2 ms at 120 BPM: ±0.5 BPM),
/// and after a step it blends the two tempos for all of its 24 clocks (120 → 90 reads
/// 103 BPM half a beat on). A longer mean is steadier and slower still.
/// - Thread: one thread at a time.
public struct MIDIClockMovingAverage: Sendable {
    /// Intervals in the mean.
    public static let intervals = 24

    /// Timing clocks per quarter note (24 in MIDI).
    public let ppqn: Int
    /// Arrival times of the last `intervals + 1` clocks, seconds, at i % (intervals + 1).
    private var times = InlineArray<25, Double>(repeating: 0)
    /// Clocks received since init.
    private var received = 0

    /// - Parameter ppqn: timing clocks per quarter note.
    /// - Thread: any.
    public init(ppqn: Int = 24) {
        precondition(ppqn > 0, "ppqn must be positive")
        self.ppqn = ppqn
    }

    /// A timing clock arrived at `seconds`.
    /// - Thread: the one feeding thread.
    @_noLocks
    public mutating func clock(at seconds: Double) {
        times[received % (Self.intervals + 1)] = seconds
        received += 1
    }

    /// Tempo, quarter notes per minute, from the intervals so far (24 at most); nil
    /// before the second clock or when they came at once.
    public var bpm: Double? {
        @_noLocks get {
            let n = min(received - 1, Self.intervals)
            guard n >= 1 else { return nil }
            let span = times[(received - 1) % (Self.intervals + 1)] - times[(received - 1 - n) % (Self.intervals + 1)]
            guard span > 0 else { return nil }
            return 60 * Double(n) / (span * Double(ppqn))
        }
    }
}
