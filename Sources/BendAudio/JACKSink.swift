// SPDX-License-Identifier: GPL-3.0-or-later
import BendEngine
import CJack
import Glibc
import Synchronization

/// The JACK sink: what the process callback (the render thread, JACK's own) reads. Plain
/// values and pointers allocated at setup, no class reference, so the callback does no
/// reference counting. `JACKOutput` owns it; the callbacks get it as their `arg`.
struct JACKSink {
    /// The output ports `out_L` and `out_R` (`jack_port_t *`).
    let left: OpaquePointer
    let right: OpaquePointer
    /// The period step; nil until `JACKOutput.start` (before `jack_activate`, so the
    /// callback never sees it change).
    var driver: RenderDriver?
    /// Interleaved stereo float scratch, 2 × `bound` samples: what the driver renders
    /// into before deinterleaving to the ports.
    let scratch: UnsafeMutablePointer<Float>
    /// The mixer's period bound, frames: a longer JACK period (the server's buffer size
    /// grew) is rendered in steps of at most this many frames.
    let bound: Int
    /// Counters any thread reads.
    let counters: JACKCounters
    /// The shutdown callback's reason buffer and semaphore.
    let notices: JACKNotices
    /// The client (`jack_client_t *`), for the port-connect callback's lookups.
    let client: OpaquePointer?
    /// The MIDI ports, or nil (set before `jack_activate`).
    var midi: JACKMIDISink?

    /// The process callback's work: `frames` frames into the two ports. Silence before
    /// start and after stop; else the driver's period step, in steps of at most `bound`
    /// frames, each deinterleaved into the ports at its place.
    /// - Thread: render (JACK's process thread).
    @_noLocks
    func process(frames: Int) {
        let nframes = jack_nframes_t(truncatingIfNeeded: frames)
        // jack_port_get_buffer: the port's buffer for this cycle, a pointer lookup in
        // libjack's shared memory (no lock, no allocation).
        let l = _unsafePerformance { jack_port_get_buffer(left, nframes) }
        let r = _unsafePerformance { jack_port_get_buffer(right, nframes) }
        guard let l, let r else { return }
        let leftOut = l.assumingMemoryBound(to: Float.self)
        let rightOut = r.assumingMemoryBound(to: Float.self)
        guard let driver, counters.get(.running) != 0 else {
            leftOut.update(repeating: 0, count: frames)
            rightOut.update(repeating: 0, count: frames)
            if let midi { midi.silence(frames: nframes) }
            return
        }
        if counters.get(.periodFrames) != frames {
            counters.set(.periodFrames, frames)
            // The stamping latency of live events follows the server's period.
            if let clock = driver.clock { clock.setPeriodFrames(frames) }
        }
        // MIDI first: what midi_in received is stamped with this period's frames, and
        // midi_out sends what is due in it.
        if let midi { midi.process(frames: nframes, periodStart: driver.mixer.position) }
        // In steps of the bound; each step publishes when its first frame is due.
        driver.block(frames: frames, left: leftOut, right: rightOut, scratch: scratch, step: bound)
        driver.periodDelivered()
        counters.add(.periods)
    }
}

/// The JACK output's counters and flags (`AtomicCounters`): what the process callback
/// and JACK's other callbacks update and any thread reads.
typealias JACKCounters = AtomicCounters<JACKCounter>

/// The slots of `JACKCounters`.
enum JACKCounter: Int, CaseIterable {
    /// 1 while the process callback renders (between start and stop).
    case running
    /// Xruns JACK reported (its xrun callback).
    case xruns
    /// Periods rendered.
    case periods
    /// Frames of the last period the callback was given.
    case periodFrames
    /// Buffer-size changes the server announced, and its buffer size, frames.
    case bufferChanges, bufferFrames
    /// 1 once the server went away (`jack_on_info_shutdown`).
    case shutdown
    /// Connections made to `midi_out` (the port-connect callback).
    case midiOutConnections
    /// JACK events `midi_in` received.
    case midiInEvents
    /// Connections to `midi_in` now, and the callbacks that changed them (the port-connect
    /// callback); the stream frame of the next period when the last one changed.
    case midiInConnections, midiInConnectionChanges, midiInChangedAt
    /// JACK events written to `midi_out`; written after their frame; left for the
    /// next period because the port's buffer was full.
    case midiOutEvents, midiOutLate, midiOutDeferred
}

extension AtomicCounters where Slot == JACKCounter {
    /// - Thread: any.
    @_noLocks @inline(__always) func add(_ slot: JACKCounter, _ n: Int = 1) { add(at: slot.rawValue, n) }
    /// - Thread: any.
    @_noLocks @inline(__always) func set(_ slot: JACKCounter, _ value: Int) { set(at: slot.rawValue, value) }
    /// - Thread: any.
    @_noLocks @inline(__always) func get(_ slot: JACKCounter) -> Int { get(at: slot.rawValue) }
}
