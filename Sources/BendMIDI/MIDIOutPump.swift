// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendSystem
import Foundation
import Synchronization

/// `play -a jack --midi-out`: every touch from every source, as MPE on JACK's
/// `midi_out` — one sink of the control layer's touch stream (a `ControlEventObserver` of
/// every port, as the touch recorder and the MIDI recorder are). It queues each event
/// with the stream frame it takes effect at (a script's are queued long before they
/// sound); its event loop ("bendsynth midi-out"), on a timer every half period, takes
/// them in frame order as their frame comes, encodes them (BendMIDI's `MPEEncoder`: the encoder's state
/// follows the sound's order) and pushes one packet per message, at the event's frame,
/// to the ring the process callback writes to the port. The MPE configuration (MCM
/// first) goes out at start and again after every connection to `midi_out`.
///
/// MIDI out trails the sound by a fixed `delayFrames` (whole periods, at least 10 ms):
/// the pump is an ordinary thread, and on a loaded machine it can be late by more than
/// the one period a live event is stamped ahead. Whole periods keep every message at its
/// event's offset inside the period; a constant latency beats one that jitters.
///
/// A script stopped early (`ControlPort.releaseAll`): its events queued for after the
/// stop are dropped (`cut`), as the engine drops them, so nothing it had queued goes out
/// after the stop, and every note it started gets its note-off. For that the pump takes
/// only events whose frame has come (the stream frame of now, from the clock): a stop is
/// stamped one period ahead of now, so an event already sent is never one the stop cuts
/// (unless the stopping thread stalls for a whole period between its stamp and the cut).
public final class MIDIOutPump: ControlEventObserver, @unchecked Sendable {
    private let queue: MIDIPortQueue
    private let status: any MIDIPortStatus
    private let rate: Double
    /// Events not yet encoded, per source (each source's frames never decrease).
    private let queued = Mutex<[UInt32: Pending]>([:])
    private var encoder: MPEEncoder
    private var loop: EventLoop?
    /// The frame of the last packet pushed: packets go out in frame order.
    private var lastFrame: UInt64 = 0
    private var configuredFor = -1
    /// How far MIDI out trails the sound, frames (whole periods, ≥ `minimumDelaySeconds`).
    private var delayFrames: UInt64 = 0
    static let minimumDelaySeconds = 0.010

    struct Pending {
        var events: [(frame: UInt64, event: ControlEvent)] = []
        var head = 0
        var next: UInt64? { head < events.count ? events[head].frame : nil }
    }

    /// - Parameters:
    ///   - queue: the port's outgoing queue (`midi_out`); `status` its counters.
    ///   - toneNote: the tone's MIDI note (ratio 1); `pitchMap`: pad x → ratio, for pad touches.
    public init(queue: MIDIPortQueue, status: any MIDIPortStatus, rate: Double, toneNote: Double, pitchMap: PitchMap) {
        self.queue = queue
        self.status = status
        self.rate = rate
        encoder = MPEEncoder(toneNote: toneNote, pitchMap: pitchMap)
    }

    /// - Thread: any source's thread.
    public func observe(_ event: ControlEvent, source: UInt32, streamFrame: UInt64) {
        queued.withLock { $0[source, default: Pending()].events.append((streamFrame, event)) }
    }

    /// Drops `source`'s events queued for after `frame` (not sent yet: see the type's
    /// note); the ups of its touches at `frame` follow. - Thread: the source's.
    public func cut(source: UInt32, atFrame frame: UInt64) {
        queued.withLock { sources in
            guard var p = sources[source], p.head < p.events.count else { return }
            if let first = p.events[p.head...].firstIndex(where: { $0.frame > frame }) {
                p.events.removeSubrange(first...)
            }
            sources[source] = p
        }
    }

    /// Starts the pump.
    /// - Parameters:
    ///   - position: the stream position (the mixer's, frames rendered).
    ///   - horizon: the stream frame of now (events before it may go out; the stream
    ///     clock's `frameOfNow`, or the position without a clock).
    /// - Throws: `SystemError` when its loop cannot start. - Thread: setup.
    public func start(position: @escaping @Sendable () -> UInt64, horizon: @escaping @Sendable () -> UInt64) throws {
        let period = UInt64(max(status.periodFrames, 1))
        let periods = max(1, (UInt64((Self.minimumDelaySeconds * rate).rounded(.up)) + period - 1) / period)
        delayFrames = periods * period
        let loop = try EventLoop(name: "bendsynth midi-out")
        // A round every half period (the JACK server's, which may change), each on its
        // own schedule: a late round is not made up by bunching the next ones.
        @Sendable func round(_ due: UInt64) {
            pump(now: position(), horizon: horizon())
            let half = UInt64(Double(max(status.periodFrames, 1)) / rate * 5e8)
            let next = max(due &+ half, MonotonicClock.nanos() &- half)
            loop.schedule(at: next) { round(next) }
        }
        let now = MonotonicClock.nanos()
        loop.schedule(at: now) { round(now) }
        try loop.start()
        self.loop = loop
    }

    /// One round: the configuration when a receiver connected (or at start), then every
    /// queued event due before `horizon`, in frame order. - Thread: the pump's.
    private func pump(now: UInt64, horizon: UInt64) {
        let connections = status.outputConnections
        if connections != configuredFor {
            configuredFor = connections
            encoder.configuration { send($0, at: now) }
        }
        while let (frame, event, source) = takeNext(before: horizon) {
            encoder.encode(event, source: source) { send($0, at: frame) }
        }
    }

    private func takeNext(before horizon: UInt64) -> (UInt64, ControlEvent, UInt32)? {
        queued.withLock { sources in
            var best: (source: UInt32, frame: UInt64)?
            for (source, p) in sources {
                if let f = p.next, f < horizon, f < best?.frame ?? .max { best = (source, f) }
            }
            guard let best, var p = sources[best.source] else { return nil }
            let e = p.events[p.head]
            p.head += 1
            if p.head >= 1024 && p.head * 2 >= p.events.count { p.events.removeFirst(p.head); p.head = 0 }
            sources[best.source] = p
            return (e.frame, e.event, best.source)
        }
    }

    private func send(_ m: MIDIMessage, at frame: UInt64) {
        lastFrame = max(lastFrame, frame)
        queue.push(frame: lastFrame &+ delayFrames, count: m.length, m.status, m.data1, m.data2)
    }

    /// Ends the MIDI out while the output still runs: the pump stops, every queued event
    /// (the sources' last releases) is sent, then a note-off for any touch still held;
    /// waits (200 ms at most) until the process callback has written them all.
    /// - Thread: setup, after the sources stopped and the voices faded.
    public func finish(position: UInt64, running: () -> Bool) {
        guard let loop else { return }
        loop.stop()  // its last round is done: the rest is this thread's
        self.loop = nil
        pump(now: position, horizon: .max)
        encoder.releaseAll { send($0, at: position) }
        // The process callback (a render thread: no system calls) empties the queue and
        // cannot signal: re-checked every millisecond on a Wakeup deadline.
        _ = Wakeup.recheck("midi out", until: { queue.count == 0 || !running() }, every: 1_000_000,
                           deadline: MonotonicClock.nanos() + 200_000_000)
    }

    /// One line for the end of play.
    public var summary: String {
        "MIDI out: \(status.eventsSent) JACK events, \(String(format: "%.1f", Double(delayFrames) / rate * 1000)) ms after the sound" + (status.eventsSentLate > 0 ? ", \(status.eventsSentLate) after their frame" : "")
            + (queue.dropped > 0 ? ", \(queue.dropped) dropped (ring full)" : "")
    }
}
