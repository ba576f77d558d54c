// SPDX-License-Identifier: GPL-3.0-or-later

/// Plays a touch script into a `ScriptTarget`, the one player of every front end: each
/// event is stamped at stream frame `startFrame + round(t · rate)`, so it lands on the
/// same frame live and offline, whatever the device's pacing. The caller decides how far
/// ahead it goes (`queue(before:)`):
/// - live (`play --script`: `prefill`, then `advance` from the source's loop): every
///   event queued ahead (the render thread holds each until its frame); when the
///   source's ring is full the player waits for room;
/// - offline (`render`), period by period: the events due before the period's end;
/// - paced by a clock (`remote --script`, rate 1e9: frames are nanoseconds): the events
///   due by now, each sent as it comes due.
///
/// With `hold` rounding the player ticks its target a millisecond of the stream apart
/// between events (offline, up to each period's end too): the live ticker's ticks come
/// at the latest frame queued, too late for the script's resting touches.
public final class ScriptPlayer: @unchecked Sendable {
    public let script: TouchScript
    private let target: any ScriptTarget
    private let rate: Double
    private let position: @Sendable () -> UInt64

    /// - Parameters:
    ///   - port: this source's port (the player is its one producer).
    ///   - rate: frames per second of the stream.
    ///   - position: the mixer's stream position (frames rendered so far), for `advance`.
    public convenience init(script: TouchScript, port: ControlPort, rate: Double, position: @escaping @Sendable () -> UInt64) {
        self.init(script: script, target: port, rate: rate, position: position)
    }

    /// - Parameters:
    ///   - target: where the events go (the player is its one producer).
    ///   - rate: frames per second of the stream (1e9 for a clock in nanoseconds).
    ///   - position: the stream position (frames played so far), for `advance` alone.
    public init(script: TouchScript, target: any ScriptTarget, rate: Double, position: @escaping @Sendable () -> UInt64 = { 0 }) {
        self.script = script
        self.target = target
        self.rate = rate
        self.position = position
    }

    private var next = 0
    private var startFrame: UInt64 = 0
    private var lastFrame: UInt64 = 0
    /// The frame of the next tick of `hold` rounding.
    private var nextTick: UInt64 = 0
    /// One millisecond of the stream, frames (at least 1).
    private var tickFrames: UInt64 { UInt64(max(1, (rate / 1000).rounded())) }

    /// Sets the script's start at stream frame `startFrame`: its first entry is played
    /// again from there. - Thread: the player's.
    public func start(atFrame startFrame: UInt64) {
        self.startFrame = startFrame
        lastFrame = startFrame
        nextTick = startFrame
        next = 0
    }

    /// The stream frame of entry `index`: `startFrame + round(t · rate)`.
    public func frame(ofEntry index: Int) -> UInt64 {
        startFrame + UInt64(max(0, (script.entries[index].time * rate).rounded()))
    }

    /// The frame of the next entry not yet queued; nil once every entry is.
    public var nextFrame: UInt64? { next < script.entries.count ? frame(ofEntry: next) : nil }

    /// True once every entry is queued.
    public var isQueued: Bool { next == script.entries.count }

    /// The frame of the script's end (`TouchScript.duration`: its `end` line, or its last event).
    public var endFrame: UInt64 { startFrame + UInt64(max(0, (script.duration * rate).rounded())) }

    /// Queues, in order, the entries due before stream frame `end` that are not queued
    /// yet, each after `hold` rounding's ticks before it; with `tickingToEnd`, the ticks
    /// before `end` too (offline: up to the period's end). Never blocks.
    /// - Returns: false when the target had no room (what is left goes on the next call).
    /// - Thread: the player's.
    @discardableResult
    public func queue(before end: UInt64 = .max, tickingToEnd: Bool = false) -> Bool {
        while next < script.entries.count {
            let frame = frame(ofEntry: next)
            guard frame < end else { break }
            guard tick(before: frame), target.offer(script.entries[next].event, atFrame: frame) else { return false }
            lastFrame = frame
            next += 1
        }
        return !tickingToEnd || tick(before: end)
    }

    /// Sets the script's start at stream frame `startFrame` and queues as many events
    /// as the ring holds (all of them for scripts up to the ring's capacity), so a
    /// script's first events are in place before the first period renders.
    /// - Thread: the source's setup (before `run`), then only `run`.
    public func prefill(startFrame: UInt64) {
        start(atFrame: startFrame)
        queue()
    }

    /// Where the script stands after `advance`.
    public enum Progress: Sendable, Equatable {
        /// Events are left and the ring is full: try again once the render thread made room.
        case ringFull
        /// Every event is queued; the stream is this many frames short of the last one
        /// (or of the script's end, when that is later).
        case waiting(frames: UInt64)
        /// Every event is queued and the stream has passed the last one and the script's end.
        case done
    }

    /// Queues the events `prefill` could not, as far as the ring has room, and says what
    /// is left. Never blocks: the caller's loop calls it again (after a millisecond when
    /// the ring is full; about when the stream passes the last event when waiting).
    /// - Thread: the source's own thread (after `prefill`).
    public func advance() -> Progress {
        guard queue() else { return .ringFull }
        // The script lasts to its end (`TouchScript.end`) when that is after its last event.
        let endFrame = max(lastFrame, self.endFrame)
        let now = position()
        return now > endFrame ? .done : .waiting(frames: endFrame - now + 1)
    }

    /// `hold` rounding's ticks before stream frame `frame`; false when the target is full
    /// (the rest are ticked when there is room).
    private func tick(before frame: UInt64) -> Bool {
        while target.needsTicks && nextTick < frame {
            guard target.offerTick(atFrame: nextTick) else { return false }
            nextTick += tickFrames
        }
        return true
    }
}
