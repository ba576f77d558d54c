import BendControl
import Synchronization

/// Every touch and tilt of every source as one MPE message stream (`--midi-out`,
/// `--record-midi`): an observer of the ports (`ControlEventObserver`) that runs an
/// `MPEEncoder` under a lock and hands each message, with the stream frame its event
/// takes effect at, to `sink`.
///
/// `sink` is called inside the lock, so it is a single producer even though sources call
/// from their own threads: it may push into an `SPSCRing` that the JACK process callback
/// drains. It must not call back into the stream.
/// - Thread: `observe` from any source thread; `configure`/`finish` from any thread.
public final class MPEStream: ControlEventObserver, @unchecked Sendable {
    public typealias Sink = (MIDIMessage, UInt64) -> Void
    private struct State {
        var encoder: MPEEncoder
        var lastFrame: UInt64 = 0
        var finished = false
    }
    private let state: Mutex<State>
    private let sink: Sink

    /// - Parameters:
    ///   - toneNote: MIDI note of the tone's pitch (`--tone-note`).
    ///   - pitchMap: the pad's x → ratio (the ports' map).
    ///   - sink: receives each message and its stream frame, in order; called under the lock.
    /// The zone set-up is not sent here: call `configure(atFrame:)` first.
    public init(toneNote: Int = 69, pitchMap: PitchMap, sink: @escaping Sink) {
        state = Mutex(State(encoder: MPEEncoder(toneNote: toneNote, pitchMap: pitchMap)))
        self.sink = sink
    }

    /// Sends the zone set-up (MCM, bend ranges): at start, and again whenever a receiver
    /// connects (so it is configured before its first note).
    public func configure(atFrame frame: UInt64) {
        state.withLock { s in
            guard !s.finished else { return }
            let f = max(frame, s.lastFrame)
            s.encoder.configuration { sink($0, f) }
        }
    }

    public func observe(_ event: ControlEvent, source: UInt32, streamFrame: UInt64) {
        state.withLock { s in
            guard !s.finished else { return }
            let f = max(streamFrame, s.lastFrame)
            s.lastFrame = f
            var encoder = s.encoder
            encoder.encode(event, source: source) { sink($0, f) }
            s.encoder = encoder
        }
    }

    /// Note-offs for every touch still held, at the last event's frame; later events are
    /// ignored.
    public func finish() {
        state.withLock { s in
            guard !s.finished else { return }
            s.finished = true
            let f = s.lastFrame
            s.encoder.releaseAll { sink($0, f) }
        }
    }
}
