// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem

/// How far an offline render is, for a progress line.
public struct RenderProgress: Sendable, Equatable {
    /// Frames rendered so far.
    public var frames: Int
    /// The script's length in frames (its last event); the render ends at most
    /// `OfflineRenderer.tailLimitSeconds` (BendInstrument) later.
    public var scriptFrames: Int
    /// Wall-clock seconds since the render started.
    public var elapsed: Double
    /// Output rate, frames per second.
    public var rate: Double
    /// True for the last report, when the file is complete.
    public var done: Bool

    /// 0…1 of the script rendered.
    public var fraction: Double { done ? 1 : scriptFrames > 0 ? min(1, Double(frames) / Double(scriptFrames)) : 0 }
    /// Audio seconds rendered per wall-clock second.
    public var speed: Double { elapsed > 0 ? Double(frames) / rate / elapsed : 0 }
    /// Seconds left at the speed so far.
    public var secondsLeft: Double { speed > 0 ? max(0, Double(scriptFrames - frames)) / rate / speed : 0 }

    /// Calls `report` at most every `interval` seconds of wall-clock time.
    struct Meter {
        static let interval = 0.1
        let scriptFrames: Int
        let rate: Double
        let report: ((RenderProgress) -> Void)?
        let start = MonotonicClock.nanos()
        var frames = 0
        var last = -1.0

        init(scriptFrames: Int, rate: Double, report: ((RenderProgress) -> Void)?) {
            self.scriptFrames = scriptFrames
            self.rate = rate
            self.report = report
        }

        mutating func advance(_ n: Int) {
            frames += n
            guard let report else { return }
            let now = Double(MonotonicClock.nanos() - start) / 1e9
            if last < 0 || now - last >= Meter.interval {
                last = now
                report(RenderProgress(frames: frames, scriptFrames: scriptFrames, elapsed: now, rate: rate, done: false))
            }
        }

        func finish() {
            report?(RenderProgress(frames: frames, scriptFrames: scriptFrames, elapsed: Double(MonotonicClock.nanos() - start) / 1e9, rate: rate, done: true))
        }
    }
}
