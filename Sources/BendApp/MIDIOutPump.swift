import BendAudio
import Foundation
import BendControl
import BendEngine
import BendMIDI
import BendSystem
import Synchronization

/// `play -a jack --midi-out`: every touch from every source, as MPE on JACK's
/// `midi_out`. As an observer of every port it queues each event with the stream frame
/// it takes effect at (a script's are queued long before they sound); its thread
/// ("bendsynth midi-out") takes them in frame order as they come within two periods
/// of the stream position, encodes them (BendMIDI's `MPEEncoder`: the encoder's state
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
final class MIDIOutPump: ControlEventObserver, @unchecked Sendable {
    private let ring: SPSCRing<MIDIPacket>
    private let rings: JACKMIDIRings
    private let rate: Double
    /// Events not yet encoded, per source (each source's frames never decrease).
    private let queued = Mutex<[UInt32: Pending]>([:])
    private var encoder: MPEEncoder
    private let stopFlag = Atomic<Bool>(false)
    private var thread: SystemThread?
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

    init(rings: JACKMIDIRings, rate: Double, toneNote: Double, pitchMap: PitchMap) throws {
        guard let ring = rings.outgoing else { throw AppError.runtime("--midi-out: the JACK client has no midi_out port") }
        self.ring = ring
        self.rings = rings
        self.rate = rate
        encoder = MPEEncoder(toneNote: toneNote, pitchMap: pitchMap)
    }

    /// - Thread: any source's thread.
    func observe(_ event: ControlEvent, source: UInt32, streamFrame: UInt64) {
        queued.withLock { $0[source, default: Pending()].events.append((streamFrame, event)) }
    }

    /// Drops `source`'s events queued for after `frame` (not sent yet: see the type's
    /// note); the ups of its touches at `frame` follow. - Thread: the source's.
    func cut(source: UInt32, atFrame frame: UInt64) {
        queued.withLock { sources in
            guard var p = sources[source], p.head < p.events.count else { return }
            if let first = p.events[p.head...].firstIndex(where: { $0.frame > frame }) {
                p.events.removeSubrange(first...)
            }
            sources[source] = p
        }
    }

    /// Starts the pump; `position` is the stream position (the mixer's); `clock` stamps
    /// live events (the stream frame of now is its stamp less a period). - Thread: setup.
    func start(position: @escaping @Sendable () -> UInt64, clock: StreamClock?) throws {
        let period = UInt64(max(rings.periodFrames, 1))
        let periods = max(1, (UInt64((Self.minimumDelaySeconds * rate).rounded(.up)) + period - 1) / period)
        delayFrames = periods * period
        thread = try SystemThread(name: "bendsynth midi-out") { [self] in
            var wake = MonotonicClock.nanos()
            while !stopFlag.load(ordering: .relaxed) {
                let period = max(rings.periodFrames, 1)
                let now = position()
                pump(now: now, horizon: Self.horizon(clock: clock, position: now))
                let half = UInt64(Double(period) / rate * 5e8)
                wake = max(wake &+ half, MonotonicClock.nanos() &- half)
                MonotonicClock.sleep(until: wake)
            }
        }
    }

    /// Events before this frame may go out: the stream frame of now (the clock's stamp
    /// of now less the period it stamps ahead; the position without a clock).
    static func horizon(clock: StreamClock?, position: UInt64) -> UInt64 {
        guard let clock else { return position }
        let stamp = clock.stamp(nanos: MonotonicClock.nanos()), period = UInt64(clock.periodFrames)
        return stamp > period ? stamp - period : 0
    }

    /// One round: the configuration when a receiver connected (or at start), then every
    /// queued event due before `horizon`, in frame order. - Thread: the pump's.
    private func pump(now: UInt64, horizon: UInt64) {
        let connections = rings.outputConnections
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
        ring.push(MIDIPacket(frame: lastFrame &+ delayFrames, count: m.length, m.status, m.data1, m.data2))
    }

    /// Ends the MIDI out while the output still runs: the pump stops, every queued event
    /// (the sources' last releases) is sent, then a note-off for any touch still held;
    /// waits (200 ms at most) until the process callback has written them all.
    /// - Thread: setup, after the sources stopped and the voices faded.
    func finish(position: UInt64, running: () -> Bool) {
        guard let thread else { return }
        stopFlag.store(true, ordering: .relaxed)
        thread.join()
        self.thread = nil
        pump(now: position, horizon: .max)
        encoder.releaseAll { send($0, at: position) }
        let deadline = MonotonicClock.nanos() + 200_000_000
        while ring.count > 0 && running() && MonotonicClock.nanos() < deadline {
            MonotonicClock.sleep(until: MonotonicClock.nanos() + 1_000_000)
        }
    }

    /// One line for the end of play.
    var summary: String {
        "MIDI out: \(rings.eventsSent) JACK events, \(String(format: "%.1f", Double(delayFrames) / rate * 1000)) ms after the sound" + (rings.eventsSentLate > 0 ? ", \(rings.eventsSentLate) after their frame" : "")
            + (ring.dropped > 0 ? ", \(ring.dropped) dropped (ring full)" : "")
    }
}
