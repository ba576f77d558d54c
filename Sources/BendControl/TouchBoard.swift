// SPDX-License-Identifier: GPL-3.0-or-later
import Synchronization

/// Every touch the instrument plays now, from every source, for a pad to show: a
/// `ControlEventObserver` on every port (as the touch recorder and MIDI out are), each
/// source marked by a character (`W` web, `O` OSC, `E` evdev, `P` peers…).
/// - Thread: any (under its lock).
public final class TouchBoard: ControlEventObserver, @unchecked Sendable {
    /// One touch sounding: its source (port index), id, pad point and the source's mark.
    public struct Touch: Sendable, Equatable {
        public var source: UInt32
        public var id: UInt32
        /// Pad coordinates, 0…1 (a pitched touch's x through the pitch map's inverse).
        public var x: Double
        public var y: Double
        public var mark: Character
        /// Stream frames it starts and ends at (a script queues its events ahead: an up
        /// is seen long before it takes effect).
        public var start: UInt64
        public var end: UInt64?
    }

    private struct State {
        var marks: [UInt32: Character] = [:]
        var touches: [UInt64: Touch] = [:]
    }
    private let state = Mutex(State())
    private let pitchMap: PitchMap

    public init(pitchMap: PitchMap) { self.pitchMap = pitchMap }

    /// Marks `source`'s touches with `mark`. - Thread: setup.
    public func mark(source: UInt32, as mark: Character) {
        state.withLock { $0.marks[source] = mark }
    }

    public func observe(_ event: ControlEvent, source: UInt32, streamFrame: UInt64) {
        guard let (id, phase) = event.touchPhase else { return }
        let key = UInt64(source) << 32 | UInt64(id)
        state.withLock { s in
            let start = phase == .down ? streamFrame : s.touches[key]?.start ?? streamFrame
            switch (event, phase) {
            case (_, .up):
                s.touches[key]?.end = streamFrame
            case let (.touch(_, _, x, y), _):
                s.touches[key] = Touch(source: source, id: id, x: x, y: y, mark: s.marks[source] ?? "?", start: start)
            case let (.pitched(_, _, ratio, gain, _), _):
                let x = min(max(pitchMap.x(ratio: ratio), 0), 1)
                s.touches[key] = Touch(source: source, id: id, x: x.isFinite ? x : 0, y: gain, mark: s.marks[source] ?? "?", start: start)
            default:
                break
            }
        }
    }

    /// A script stopped early: `source`'s touches queued to start after `frame` are
    /// dropped, and those queued to end after it end at `frame` (the ups of the others
    /// follow), so the pad shows nothing of what the stop cut.
    public func cut(source: UInt32, atFrame frame: UInt64) {
        state.withLock { s in
            s.touches = s.touches.filter { $0.value.source != source || $0.value.start <= frame }
            for (key, t) in s.touches where t.source == source {
                if let end = t.end, end > frame { s.touches[key]?.end = frame }
            }
        }
    }

    /// `source`'s touches not ended (a pad's own, for the pitch each sounds at: the port's
    /// rounding moves it), by id.
    public func touches(of source: UInt32) -> [UInt32: Touch] {
        state.withLock { s in
            var mine: [UInt32: Touch] = [:]
            for t in s.touches.values where t.source == source && t.end == nil { mine[t.id] = t }
            return mine
        }
    }

    /// The touches sounding at stream frame `position`, but `source`'s (the pad's own),
    /// by source and id; those ended by then are forgotten.
    public func touches(excluding source: UInt32?, at position: UInt64 = .max) -> [Touch] {
        state.withLock { s in
            s.touches = s.touches.filter { $0.value.end.map { $0 > position } ?? true }
            return s.touches.values.filter { $0.source != source && $0.start <= position }
                .sorted { ($0.source, $0.id) < ($1.source, $1.id) }
        }
    }
}
