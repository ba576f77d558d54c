// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendEngine
import BendMIDI
import Synchronization

/// A source's touches as MPE for a plugin host's output (the phone pad's, inside the
/// LV2 plugin): an observer of the source's port (its events, with the stream frame each
/// takes effect at) that encodes them with BendMIDI's `MPEEncoder` — the zone set-up
/// first — and pushes one packet per message, at that frame, to the ring the host's
/// audio thread empties (`HostRender.nextOutgoing`: in the block that holds the frame, at
/// its offset). MIDI the host sends in is not echoed: it is on the host's track already.
/// Made by `InstrumentCore.mpeOut`.
/// - Thread: the pad's threads (its source and the worker), serialised by its lock; the
///   ring's one producer.
final class HostMIDIOut: ControlEventObserver, @unchecked Sendable {
    let ring: SPSCRing<MIDIPacket>
    private let encoder: Mutex<MPEEncoder>

    init(ring: SPSCRing<MIDIPacket>, toneNote: Double, pitchMap: PitchMap) {
        self.ring = ring
        encoder = Mutex(MPEEncoder(toneNote: toneNote, pitchMap: pitchMap))
    }

    func observe(_ event: ControlEvent, source: UInt32, streamFrame: UInt64) {
        let ring = self.ring
        encoder.withLock { e in
            e.encode(event, source: source) { m in _ = ring.push(MIDIPacket(frame: streamFrame, count: m.length, m.status, m.data1, m.data2)) }
        }
    }

    /// The zone set-up (the MCM first), at `frame`: a recording starts with it.
    func configure(atFrame frame: UInt64) {
        let ring = self.ring
        encoder.withLock { e in
            e.configuration { m in _ = ring.push(MIDIPacket(frame: frame, count: m.length, m.status, m.data1, m.data2)) }
        }
    }
}
