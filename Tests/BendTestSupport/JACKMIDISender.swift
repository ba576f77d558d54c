// SPDX-License-Identifier: GPL-3.0-or-later
import CJack
import Dispatch
import Glibc
import Synchronization

/// A JACK client of the test's own with one MIDI output port (`out`) that sends a list of
/// messages at exact frames, counted from the first cycle after `arm()`, one JACK event
/// per message. Its cycles and every other client's share the server's frame grid, so
/// a message's offset in its cycle is its frame modulo the period.
public final class JACKMIDISender: @unchecked Sendable {
    private let client: OpaquePointer
    private let state: UnsafeMutablePointer<State>
    /// Signalled by the process callback once every message is written.
    public let done = DispatchSemaphore(value: 0)
    public let name: String

    struct State {
        var port: OpaquePointer
        var frames: UnsafeMutablePointer<Int>
        var bytes: UnsafeMutablePointer<UInt8>  // every message's, one after another
        var starts: UnsafeMutablePointer<Int>   // where each message's bytes start
        var lengths: UnsafeMutablePointer<Int>
        var count: Int
        var next: Int
        var armed: UnsafeMutablePointer<Atomic<Bool>>
        var elapsed: Int
        var done: Unmanaged<DispatchSemaphore>
    }

    /// - Parameter messages: (frame after arming, the message's bytes: 1…3, or a whole
    ///   SysEx F0 … F7), in frame order.
    public init(name: String = "sender", messages: [(frame: Int, bytes: [UInt8])]) throws {
        self.name = name
        var status = jack_status_t(0)
        guard let c = cjack_client_open(name, JackNoStartServer, &status) else {
            throw JACKTestError("sender: jack_client_open failed, status 0x\(String(status.rawValue, radix: 16))")
        }
        client = c
        guard let port = jack_port_register(c, "out", cjack_default_midi_type(), UInt(JackPortIsOutput.rawValue), 0) else {
            jack_client_close(c)
            throw JACKTestError("sender: jack_port_register failed")
        }
        let n = messages.count
        let frames = UnsafeMutablePointer<Int>.allocate(capacity: max(n, 1))
        let bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: max(messages.reduce(0) { $0 + $1.bytes.count }, 1))
        let starts = UnsafeMutablePointer<Int>.allocate(capacity: max(n, 1))
        let lengths = UnsafeMutablePointer<Int>.allocate(capacity: max(n, 1))
        var at = 0
        for (i, m) in messages.enumerated() {
            frames[i] = m.frame
            starts[i] = at
            lengths[i] = m.bytes.count
            for b in m.bytes { bytes[at] = b; at += 1 }
        }
        let armed = UnsafeMutablePointer<Atomic<Bool>>.allocate(capacity: 1)
        armed.initialize(to: Atomic(false))
        state = .allocate(capacity: 1)
        state.initialize(to: State(port: port, frames: frames, bytes: bytes, starts: starts, lengths: lengths, count: n, next: 0,
                                   armed: armed, elapsed: 0, done: Unmanaged.passRetained(done)))
        jack_set_process_callback(c, { nframes, arg in
            let s = arg!.assumingMemoryBound(to: State.self)
            let buffer = jack_port_get_buffer(s.pointee.port, nframes)!
            jack_midi_clear_buffer(buffer)
            guard s.pointee.armed.pointee.load(ordering: .acquiring) else { return 0 }
            let start = s.pointee.elapsed, end = start + Int(nframes)
            while s.pointee.next < s.pointee.count, s.pointee.frames[s.pointee.next] < end {
                let i = s.pointee.next
                let offset = max(s.pointee.frames[i] - start, 0)
                jack_midi_event_write(buffer, jack_nframes_t(offset), s.pointee.bytes + s.pointee.starts[i], s.pointee.lengths[i])
                s.pointee.next += 1
                if s.pointee.next == s.pointee.count { s.pointee.done.takeUnretainedValue().signal() }
            }
            s.pointee.elapsed = end
            return 0
        }, UnsafeMutableRawPointer(state))
        guard jack_activate(c) == 0 else {
            jack_client_close(c)
            throw JACKTestError("sender: jack_activate failed")
        }
    }

    /// Connects `out` to `port` (e.g. "bendsynth:midi_in").
    public func connect(to port: String) -> Bool {
        let r = jack_connect(client, "\(name):out", port)
        return r == 0 || r == EEXIST
    }

    /// Frame 0 is the first cycle from now on.
    public func arm() { state.pointee.armed.pointee.store(true, ordering: .releasing) }

    /// Deactivates and closes the client.
    public func close() {
        jack_deactivate(client)
        jack_client_close(client)
        state.pointee.done.release()
        state.pointee.frames.deallocate()
        state.pointee.bytes.deallocate()
        state.pointee.starts.deallocate()
        state.pointee.lengths.deallocate()
        state.pointee.armed.deallocate()
        state.deallocate()
    }
}

