import BendAudio
import BendControl
import BendEngine
import BendMIDI
import BendSystem
import Synchronization

/// `play -a jack --midi-in`: the control side of JACK's `midi_in` port. The process
/// callback hands over the raw bytes with the stream frame they arrived at (period start
/// + the event's offset); this source's thread ("bendsynth midi-in") runs BendMIDI's
/// interpreter on them (`MIDIInputFeed`) and sends each touch a fixed `latencyFrames`
/// after its event arrived: whole periods (so at the same offset in its period:
/// sample-accurate), at least `minimumLatencySeconds` — one period from 256 frames at
/// 48 kHz up, 4 periods of 64 frames.
///
/// The thread drains the ring every half period. It asks for real-time scheduling at
/// the lowest SCHED_FIFO priority (1: above every ordinary thread, below JACK's process
/// thread; RTKit when refused), so a loaded machine does not hold it up; and the
/// latency gives it several periods, so a wakeup late by less than that (bursts of
/// periods, a refused priority) still lands every event on its sample. An event that
/// comes after its period was rendered anyway takes effect at the start of the next
/// period and is counted as late (play's last lines: "MIDI in: … events late").
final class JACKMIDIInSource: InputSource, @unchecked Sendable {
    let name = "JACK midi_in"
    let endsPlay = false
    /// Each MIDI key's pitch (`--tone-note`, `--scale`, `--kbm`).
    let keys: KeyboardTuning
    /// Set by play once the JACK client has its MIDI ports, before `start`.
    var rings: JACKMIDIRings?
    private let stopFlag = Atomic<Bool>(false)
    private var thread: SystemThread?
    private let late = Atomic<Int>(0)
    private let strays = Atomic<Int>(0)
    /// Frames per second (set by `start`).
    private var rate = 48_000.0

    init(keys: KeyboardTuning) {
        self.keys = keys
    }

    /// The least time from an event's arrival to its sound, seconds.
    static let minimumLatencySeconds = 0.005

    /// Frames from an event's arrival to its sound: whole periods, at least one and at
    /// least `minimumLatencySeconds`.
    static func latencyFrames(period: Int, rate: Double) -> UInt64 {
        let p = UInt64(max(period, 1))
        return max(1, (UInt64((minimumLatencySeconds * rate).rounded(.up)) + p - 1) / p) * p
    }

    /// Events that came after their period was rendered (so played late). - Thread: any.
    var lateEvents: Int { late.load(ordering: .relaxed) }

    func start(port: ControlPort, context: InputContext, finished: @escaping @Sendable () -> Void) throws {
        guard let rings, let ring = rings.received else { throw AppError.runtime("--midi-in: the JACK client has no midi_in port") }
        let meters = context.meters, rate = context.rate, keys = self.keys
        self.rate = rate
        do {
            thread = try SystemThread(name: "bendsynth midi-in", priority: 1) { [self] in
                let feed = MIDIInputFeed(port: port, keys: keys)
                let packets = UnsafeMutablePointer<MIDIPacket>.allocate(capacity: 256)
                defer { packets.deallocate() }
                var wake = MonotonicClock.nanos()
                while !stopFlag.load(ordering: .relaxed) {
                    let period = max(rings.periodFrames, 1)
                    let latency = Self.latencyFrames(period: period, rate: rate)
                    while true {
                        let n = ring.read(into: packets, maxCount: 256)
                        for i in 0..<n {
                            let p = packets[i]
                            // Whole periods after it arrived, at the same offset in its period.
                            let frame = p.frame + latency
                            if frame < meters.position { late.add(1, ordering: .relaxed) }
                            feed.receive(p.bytes, atFrame: frame)
                        }
                        if n < 256 { break }
                    }
                    strays.store(feed.strayBytes, ordering: .relaxed)
                    let half = UInt64(Double(period) / rate * 5e8)
                    wake = max(wake &+ half, MonotonicClock.nanos() &- half)
                    MonotonicClock.sleep(until: wake)
                }
            }
        } catch {
            throw AppError.runtime("--midi-in: cannot start its thread: \(error)")
        }
        if let note = thread?.note { printErr("bendsynth: note: MIDI in: \(note.replacingOccurrences(of: "playing at", with: "its thread runs at"))") }
    }

    /// One line for the end of play.
    var summary: String {
        let r = rings?.eventsReceived ?? 0, l = late.load(ordering: .relaxed), s = strays.load(ordering: .relaxed)
        let latency = Double(Self.latencyFrames(period: rings?.periodFrames ?? 0, rate: rate)) / rate * 1000
        return "MIDI in: \(r) JACK events, played \(String(format: "%.1f", latency)) ms after they came"
            + (l > 0 ? ", \(l) events late (after their period was rendered)" : "")
            + (s > 0 ? ", \(s) stray bytes ignored" : "")
            + ((rings?.received?.dropped ?? 0) > 0 ? ", \(rings!.received!.dropped) bytes dropped (ring full)" : "")
    }

    func stop() {
        guard let thread else { return }
        stopFlag.store(true, ordering: .relaxed)
        thread.join()
        self.thread = nil
    }
}
