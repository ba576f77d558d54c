// SPDX-License-Identifier: GPL-3.0-or-later

/// Plays a touch script into a `ControlPort` as a live input source: each event is
/// stamped at stream frame `startFrame + round(t · rate)`, so it lands on exactly the
/// frame the offline renderer would use, whatever the device's pacing. Events are
/// queued ahead (the render thread holds each until its frame); when the source's ring
/// is full the player waits for room. With `hold` rounding the player ticks the port a
/// millisecond apart between its events, as `render` does: the ticker's ticks come at
/// the latest frame queued, too late for the script's resting touches.
public final class ScriptPlayer: @unchecked Sendable {
    public let script: TouchScript
    private let port: ControlPort
    private let rate: Double
    private let position: @Sendable () -> UInt64

    /// - Parameters:
    ///   - port: this source's port (the player is its one producer).
    ///   - rate: frames per second of the stream.
    ///   - position: the mixer's stream position (frames rendered so far).
    public init(script: TouchScript, port: ControlPort, rate: Double, position: @escaping @Sendable () -> UInt64) {
        self.script = script
        self.port = port
        self.rate = rate
        self.position = position
    }

    private var next = 0
    private var startFrame: UInt64 = 0
    private var lastFrame: UInt64 = 0
    /// The frame of the next tick of `hold` rounding.
    private var nextTick: UInt64 = 0
    private var tickFrames: UInt64 { UInt64(max(1, (rate / 1000).rounded())) }

    /// Sets the script's start at stream frame `startFrame` and queues as many events
    /// as the ring holds (all of them for scripts up to the ring's capacity), so a
    /// script's first events are in place before the first period renders.
    /// - Thread: the source's setup (before `run`), then only `run`.
    public func prefill(startFrame: UInt64) {
        self.startFrame = startFrame
        lastFrame = startFrame
        nextTick = startFrame
        while next < script.entries.count {
            let entry = script.entries[next]
            let frame = startFrame + UInt64((entry.time * rate).rounded())
            guard tick(before: frame), port.trySend(entry.event, atFrame: frame) else { return }
            lastFrame = frame
            next += 1
        }
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
        while next < script.entries.count {
            let entry = script.entries[next]
            let frame = startFrame + UInt64((entry.time * rate).rounded())
            guard tick(before: frame), port.trySend(entry.event, atFrame: frame) else { return .ringFull }
            lastFrame = frame
            next += 1
        }
        // The script lasts to its end (`TouchScript.end`) when that is after its last event.
        let endFrame = max(lastFrame, startFrame + UInt64((script.duration * rate).rounded()))
        let now = position()
        return now > endFrame ? .done : .waiting(frames: endFrame - now + 1)
    }

    /// `hold` rounding's ticks before stream frame `frame`; false when the ring is full
    /// (the rest are ticked when there is room).
    private func tick(before frame: UInt64) -> Bool {
        while port.needsTicks && nextTick < frame {
            guard port.ring.count < port.ring.capacity else { return false }
            port.tick(atFrame: nextTick)
            nextTick += tickFrames
        }
        return true
    }
}
