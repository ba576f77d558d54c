import BendEngine
import Glibc

/// Plays a touch script into a `ControlPort` as a live input source: each event is
/// stamped at stream frame `startFrame + round(t · rate)`, so it lands on exactly the
/// frame the offline renderer would use, whatever the device's pacing. Events are
/// queued ahead (the render thread holds each until its frame); when the source's ring
/// is full the player waits for room.
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

    /// Sets the script's start at stream frame `startFrame` and queues as many events
    /// as the ring holds (all of them for scripts up to the ring's capacity), so a
    /// script's first events are in place before the first period renders.
    /// - Thread: the source's setup (before `run`), then only `run`.
    public func prefill(startFrame: UInt64) {
        self.startFrame = startFrame
        lastFrame = startFrame
        while next < script.entries.count {
            let entry = script.entries[next]
            let frame = startFrame + UInt64((entry.time * rate).rounded())
            guard port.trySend(entry.event, atFrame: frame) else { return }
            lastFrame = frame
            next += 1
        }
    }

    /// Queues the events `prefill` could not (waiting for room in the ring), then waits
    /// until the stream has passed the last one. Returns early (false) when
    /// `shouldStop` turns true; then the caller ends the touches (`port.releaseAll()`).
    /// - Thread: the source's own thread.
    public func run(shouldStop: () -> Bool) -> Bool {
        while next < script.entries.count {
            let entry = script.entries[next]
            let frame = startFrame + UInt64((entry.time * rate).rounded())
            while !port.trySend(entry.event, atFrame: frame) {
                if shouldStop() { return false }
                usleep(1_000)  // the ring is full: the render thread frees a slot per event applied
            }
            lastFrame = frame
            next += 1
        }
        while position() <= lastFrame {
            if shouldStop() { return false }
            usleep(2_000)
        }
        return true
    }
}
