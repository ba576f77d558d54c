import BendAudio
import BendControl
import BendEngine
import BendMIDI
import BendSystem
import Synchronization

/// `play -a jack --midi-in`: the control side of JACK's `midi_in` port. The process
/// callback hands over the raw bytes with the stream frame they arrived at (period start
/// + the event's offset); this source's thread ("bendsynth midi-in") runs BendMIDI's
/// interpreter on them (`MIDIInputFeed`) and sends the touches one period later than they arrived, at the
/// same offset: sample-accurate, with one period of latency like the other live
/// sources. The thread drains the ring every half period, so an event is stamped before
/// its period is rendered; one that is not (the thread was held up) takes effect at
/// the start of the next period and is counted as late.
final class JACKMIDIInSource: InputSource, @unchecked Sendable {
    let name = "JACK midi_in"
    let endsPlay = false
    let toneNote: Int
    /// Set by play once the JACK client has its MIDI ports, before `start`.
    var rings: JACKMIDIRings?
    private let stopFlag = Atomic<Bool>(false)
    private var thread: SystemThread?
    private let late = Atomic<Int>(0)
    private let strays = Atomic<Int>(0)

    init(toneNote: Int) {
        self.toneNote = toneNote
    }

    func start(port: ControlPort, context: InputContext, finished: @escaping @Sendable () -> Void) throws {
        guard let rings, let ring = rings.received else { throw AppError.runtime("--midi-in: the JACK client has no midi_in port") }
        let mixer = context.mixer, rate = context.rate, toneNote = self.toneNote
        do {
            thread = try SystemThread(name: "bendsynth midi-in") { [self] in
                let feed = MIDIInputFeed(port: port, toneNote: toneNote)
                let packets = UnsafeMutablePointer<MIDIPacket>.allocate(capacity: 256)
                defer { packets.deallocate() }
                var wake = MonotonicClock.nanos()
                while !stopFlag.load(ordering: .relaxed) {
                    let period = max(rings.periodFrames, 1)
                    while true {
                        let n = ring.read(into: packets, maxCount: 256)
                        for i in 0..<n {
                            let p = packets[i]
                            // One period after it arrived, at the same offset in its period.
                            let frame = p.frame + UInt64(period)
                            if frame < mixer.position { late.add(1, ordering: .relaxed) }
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
    }

    /// One line for the end of play.
    var summary: String {
        let r = rings?.eventsReceived ?? 0, l = late.load(ordering: .relaxed), s = strays.load(ordering: .relaxed)
        return "MIDI in: \(r) JACK events"
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
