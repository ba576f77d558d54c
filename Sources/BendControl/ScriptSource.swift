// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem

/// A touch script played live, stamped by stream frames: `play --script FILE.jsonl`, and
/// `replay RECORDING` (a decoded evdev recording) to ALSA. A `ScriptPlayer` on its own
/// event loop ("bendsynth script"): its events are queued ahead at setup; what does not
/// fit in the ring is queued by a timer as the render thread makes room, and play is
/// told the script ended once the stream has passed its last event (and its end, when
/// the script lasts longer: a MIDI file's End-of-Track, an `end` line).
public final class ScriptSource: InputSource, @unchecked Sendable {
    public let name: String
    public let endsPlay = false
    public var queuesAhead: Bool { true }
    public let script: TouchScript
    private var loop: EventLoop?

    /// Loads the script at `path`.
    /// - Throws: `InputSourceError(.input)` naming the file, line and field.
    public init(path: String) throws {
        name = "script '\(path)'"
        do { script = try TouchScript.load(path: path) } catch {
            throw InputSourceError(.input, "\(error)")
        }
    }

    public init(name: String, script: TouchScript) {
        self.name = name
        self.script = script
    }

    /// Queues the script's first events (before the first period renders), then the
    /// rest on the script's loop. - Throws: `InputSourceError(.runtime)`.
    public func start(port: ControlPort, context: InputContext, finished: @escaping @Sendable () -> Void) throws {
        let meters = context.meters, rate = context.rate
        let player = ScriptPlayer(script: script, port: port, rate: rate, position: { meters.position })
        player.prefill(startFrame: meters.position)
        let loop: EventLoop
        do { loop = try EventLoop(name: "bendsynth script") } catch {
            throw InputSourceError(.runtime, "cannot play \(name): \(error)")
        }
        @Sendable func step() {
            switch player.advance() {
            case .ringFull:
                loop.schedule(after: 1_000_000, step)  // the render thread frees a slot per event applied
            case .waiting(let frames):
                // Until the stream passes the last event; looked at again at least every 50 ms.
                let nanos = UInt64(min(Double(frames) / rate * 1e9, 50e6))
                loop.schedule(after: max(nanos, 1_000_000), step)
            case .done:
                finished()
            }
        }
        loop.execute(step)
        do { try loop.start() } catch {
            throw InputSourceError(.runtime, "cannot play \(name): \(error)")
        }
        self.loop = loop
    }

    /// Stops the script (at once: its loop is woken and joined); the caller's
    /// `port.releaseAll()` ends its touches.
    public func stop() {
        loop?.stop()
        loop = nil
    }
}
