// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendEngine
import CJack

/// The MIDI ports' render-thread half, run by the JACK process callback before each
/// period is rendered: `midi_in`'s events go raw into `received` (a packet per ≤ 3 bytes,
/// stamped with the stream frame they arrived at: the period's first frame plus their
/// offset), and the packets of `outgoing` due in this period are written to `midi_out`,
/// one JACK event per message, at their frame's offset (a late one at the first free
/// offset). The MIDI meaning of the bytes is the control thread's business (BendMIDI).
/// Plain values and pointers, no class reference.
struct JACKMIDISink {
    /// `midi_in` and `midi_out` (`jack_port_t *`), nil when not asked for.
    let input: OpaquePointer?
    let output: OpaquePointer?
    /// Render → control: what `midi_in` received. Its producer is this callback.
    let received: SPSCRing<MIDIPacket>
    /// Control → render: whole messages for `midi_out`, in frame order. Its consumer is
    /// this callback.
    let outgoing: SPSCRing<MIDIPacket>
    let counters: JACKCounters

    /// - Thread: render (JACK's process thread).
    @_noLocks
    func process(frames nframes: jack_nframes_t, periodStart: UInt64) {
        if let input { read(input, nframes, periodStart) }
        if let output { write(output, nframes, periodStart) }
    }

    /// Clears `midi_out` for a period when nothing renders (JACK wants each output
    /// port's buffer written every cycle). - Thread: render.
    @_noLocks
    func silence(frames nframes: jack_nframes_t) {
        guard let output else { return }
        // jack_port_get_buffer, jack_midi_clear_buffer: libjack's own buffer bookkeeping.
        _unsafePerformance { if let b = jack_port_get_buffer(output, nframes) { jack_midi_clear_buffer(b) } }
    }

    @_noLocks
    private func read(_ port: OpaquePointer, _ nframes: jack_nframes_t, _ periodStart: UInt64) {
        // jack_port_get_buffer, jack_midi_get_event_count, jack_midi_event_get: reads of
        // the port's buffer in shared memory (no lock, no allocation).
        guard let buffer = _unsafePerformance({ jack_port_get_buffer(port, nframes) }) else { return }
        let count = _unsafePerformance { jack_midi_get_event_count(buffer) }
        var event = jack_midi_event_t()
        var i: UInt32 = 0
        while i < count {
            let got = _unsafePerformance { jack_midi_event_get(&event, buffer, i) }
            i += 1
            guard got == 0, let data = event.buffer else { continue }
            counters.add(.midiInEvents)
            let frame = periodStart &+ UInt64(event.time)
            var at = 0
            while at < event.size {
                let n = min(3, event.size - at)
                received.push(MIDIPacket(frame: frame, count: n, data[at], n > 1 ? data[at + 1] : 0, n > 2 ? data[at + 2] : 0))
                at += n
            }
        }
    }

    @_noLocks
    private func write(_ port: OpaquePointer, _ nframes: jack_nframes_t, _ periodStart: UInt64) {
        guard let buffer = _unsafePerformance({ jack_port_get_buffer(port, nframes) }) else { return }
        _unsafePerformance { jack_midi_clear_buffer(buffer) }
        let end = periodStart &+ UInt64(nframes)
        var last: UInt32 = 0
        while let p = outgoing.peek(), p.frame < end {
            var offset: UInt32 = 0
            if p.frame >= periodStart { offset = UInt32(truncatingIfNeeded: p.frame &- periodStart) } else { counters.add(.midiOutLate) }
            if offset < last { offset = last }  // JACK keeps a port's events in time order
            // jack_midi_event_reserve: room for one message in the port's buffer, or nil
            // when the buffer is full (the rest waits for the next period).
            guard let room = _unsafePerformance({ jack_midi_event_reserve(buffer, offset, Int(p.count)) }) else {
                counters.add(.midiOutDeferred)
                return
            }
            room[0] = p.byte0
            if p.count > 1 { room[1] = p.byte1 }
            if p.count > 2 { room[2] = p.byte2 }
            outgoing.pop()
            counters.add(.midiOutEvents)
            last = offset
        }
    }
}

/// What the control side of `--midi-in` and `--midi-out` reaches: the rings of the
/// JACK MIDI ports and their counters. A plain struct of pointers. - Thread: see each.
public struct JACKMIDIRings: MIDIPortStatus, @unchecked Sendable {
    /// Packets `midi_in` received, stamped with the stream frame they arrived at; nil
    /// without `midi_in`. - Thread: one control consumer.
    public let received: MIDIPortQueue?
    /// Whole messages (one per packet) for `midi_out`, each at the stream frame it is
    /// due, pushed in frame order; nil without `midi_out`. - Thread: one control producer.
    public let outgoing: MIDIPortQueue?
    let counters: JACKCounters

    /// The period the process callback was last given, frames: the latency live MIDI
    /// input is planned with. - Thread: any.
    public var periodFrames: Int { counters.get(.periodFrames) }
    /// Connections made to `midi_out` so far (JACK's port-connect callback): each asks
    /// for the MPE configuration again. - Thread: any.
    public var outputConnections: Int { counters.get(.midiOutConnections) }
    /// JACK events `midi_in` received. - Thread: any.
    public var eventsReceived: Int { counters.get(.midiInEvents) }
    /// Connections to `midi_in` now; the port-connect callbacks that changed them so far,
    /// and the stream frame of the next period at the last. - Thread: any.
    public var inputConnections: Int { counters.get(.midiInConnections) }
    public var inputConnectionChanges: Int { counters.get(.midiInConnectionChanges) }
    public var inputChangedAt: UInt64 { UInt64(truncatingIfNeeded: counters.get(.midiInChangedAt)) }
    /// JACK events written to `midi_out`, and those written after their frame. - Thread: any.
    public var eventsSent: Int { counters.get(.midiOutEvents) }
    public var eventsSentLate: Int { counters.get(.midiOutLate) }
}
