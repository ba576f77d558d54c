// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendSystem
import Foundation
import Synchronization

/// `play -a jack --midi-in`: the control side of JACK's `midi_in` port. The process
/// callback hands over the raw bytes with the stream frame they arrived at (period start
/// + the event's offset, `MIDIPortQueue`); this source's event loop ("bendsynth midi-in")
/// feeds them through `MIDIInputFeed` (the one path of every live MIDI input into
/// `MIDIInterpreter`) and sends each touch a fixed `latencyFrames` after its event
/// arrived: whole periods (so at the same offset in its period: sample-accurate), at
/// least `minimumLatencySeconds` — one period from 256 frames at 48 kHz up, 4 periods of
/// 64 frames.
///
/// The loop drains the queue on a timer every half period. It asks for real-time
/// scheduling at the lowest SCHED_FIFO priority (1: above every ordinary thread, below
/// JACK's process thread; RTKit when refused), so a loaded machine does not hold it up;
/// and the latency gives it several periods, so a wakeup late by less than that (bursts
/// of periods, a refused priority) still lands every event on its sample. An event that
/// comes after its period was rendered anyway takes effect at the start of the next
/// period and is counted as late (play's last lines: "MIDI in: … events late").
public final class JACKMIDIInSource: InputSource, @unchecked Sendable {
    public let name = "JACK midi_in"
    public let endsPlay = false
    /// Each MIDI key's pitch (`--tone-note`, `--scale`, `--kbm`).
    public let keys: KeyboardTuning
    /// The port's queue and counters, set by the instrument once the JACK client has its
    /// MIDI ports, before `start`.
    public var port: (queue: MIDIPortQueue, status: any MIDIPortStatus)?
    public var wantsOutputMIDI: Bool { true }
    public func takeMIDI(_ queue: MIDIPortQueue, status: any MIDIPortStatus) { port = (queue, status) }
    private var loop: EventLoop?
    private let late = Atomic<Int>(0)
    private let strays = Atomic<Int>(0)
    /// Frames per second (set by `start`).
    private var rate = 48_000.0
    /// Where a note on the loop's priority goes (set before `start`).
    public var log: @Sendable (String) -> Void = { _ in }

    public init(keys: KeyboardTuning) {
        self.keys = keys
    }

    /// The least time from an event's arrival to its sound, seconds.
    public static let minimumLatencySeconds = 0.005

    /// Frames from an event's arrival to its sound: whole periods, at least one and at
    /// least `minimumLatencySeconds`.
    public static func latencyFrames(period: Int, rate: Double) -> UInt64 {
        let p = UInt64(max(period, 1))
        return max(1, (UInt64((minimumLatencySeconds * rate).rounded(.up)) + p - 1) / p) * p
    }

    /// Events that came after their period was rendered (so played late). - Thread: any.
    public var lateEvents: Int? { late.load(ordering: .relaxed) }

    public func start(port control: ControlPort, context: InputContext, finished: @escaping @Sendable () -> Void) throws {
        guard let (queue, status) = port else { throw InstrumentError(.runtime, "--midi-in: the JACK client has no midi_in port") }
        let meters = context.meters, rate = context.rate
        self.rate = rate
        let loop: EventLoop
        do { loop = try EventLoop(name: "bendsynth midi-in") } catch {
            throw InstrumentError(.runtime, "--midi-in: cannot start its event loop: \(error)")
        }
        let feed = MIDIInputFeed(port: control, keys: keys)
        feed.panic = context.panic
        let log = self.log
        let changes = Atomic<Int>(0)
        /// The last connection to midi_in gone (the sender quit or was killed): its notes
        /// end at the period after the change (the first not rendered yet, if that one was).
        @Sendable func watchConnections() {
            let seen = status.inputConnectionChanges
            guard changes.exchange(seen, ordering: .relaxed) != seen else { return }
            let at = status.inputChangedAt
            if let n = feed.senders(.connections(status.inputConnections), atFrame: at) {
                log("note: JACK midi_in: its last connection went (stream frame \(at)); \(n) note\(n == 1 ? "" : "s") ended")
            }
        }
        // Each round drains the queue and comes again half a period later (the period is
        // the JACK server's and may change), on its own schedule: a late round is not
        // made up by bunching the next ones.
        @Sendable func round(_ due: UInt64) {
            let period = max(status.periodFrames, 1)
            let latency = Self.latencyFrames(period: period, rate: rate)
            while queue.drain(maxCount: 256, { frame, bytes in
                // Whole periods after it arrived, at the same offset in its period.
                let at = frame + latency
                if at < meters.position { self.late.add(1, ordering: .relaxed) }
                feed.receive(bytes, atFrame: at)
            }) == 256 {}
            watchConnections()
            self.strays.store(feed.strayBytes, ordering: .relaxed)
            let half = UInt64(Double(period) / rate * 5e8)
            let next = max(due &+ half, MonotonicClock.nanos() &- half)
            loop.schedule(at: next) { round(next) }
        }
        let now = MonotonicClock.nanos()
        loop.schedule(at: now) { round(now) }
        do { try loop.start(priority: 1) } catch {
            throw InstrumentError(.runtime, "--midi-in: cannot start its event loop: \(error)")
        }
        self.loop = loop
        if let note = loop.priorityNote { log("note: MIDI in: \(note.replacingOccurrences(of: "playing at", with: "its thread runs at"))") }
    }

    /// One line for the end of play.
    public var summary: String? {
        let status = port?.status, queue = port?.queue
        let r = status?.eventsReceived ?? 0, l = late.load(ordering: .relaxed), s = strays.load(ordering: .relaxed)
        let latency = Double(Self.latencyFrames(period: status?.periodFrames ?? 0, rate: rate)) / rate * 1000
        return "MIDI in: \(r) JACK events, played \(String(format: "%.1f", latency)) ms after they came"
            + (l > 0 ? ", \(l) events late (after their period was rendered)" : "")
            + (s > 0 ? ", \(s) stray bytes ignored" : "")
            + ((queue?.dropped ?? 0) > 0 ? ", \(queue!.dropped) bytes dropped (ring full)" : "")
    }

    public func stop() {
        loop?.stop()
        loop = nil
    }
}
