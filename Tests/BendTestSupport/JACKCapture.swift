// SPDX-License-Identifier: GPL-3.0-or-later
import CJack
import Dispatch
import Glibc

/// A JACK client of the test's own that records two input ports (`in_L`, `in_R`) into
/// memory from its activation on (an unconnected input reads silence), and connects
/// them to other ports as soon as those are registered (the port-registration callback
/// wakes the test thread; no sleeping).
public final class JACKCapture: @unchecked Sendable {
    private let client: OpaquePointer
    private let state: UnsafeMutablePointer<State>
    private let registered = DispatchSemaphore(value: 0)

    struct State {
        var left: OpaquePointer
        var right: OpaquePointer
        var bufferL: UnsafeMutablePointer<Float>
        var bufferR: UnsafeMutablePointer<Float>
        var capacity: Int
        var frames: Int
        var periods: Int
    }

    /// - Parameter seconds: frames kept at the server's rate (later ones are dropped).
    public init(name: String = "capture", seconds: Double = 10) throws {
        var status = jack_status_t(0)
        guard let c = cjack_client_open(name, JackNoStartServer, &status) else {
            throw JACKTestError("capture: jack_client_open failed, status 0x\(String(status.rawValue, radix: 16))")
        }
        client = c
        let audio = cjack_default_audio_type()
        guard let l = jack_port_register(c, "in_L", audio, UInt(JackPortIsInput.rawValue), 0),
              let r = jack_port_register(c, "in_R", audio, UInt(JackPortIsInput.rawValue), 0) else {
            jack_client_close(c)
            throw JACKTestError("capture: jack_port_register failed")
        }
        let capacity = Int(seconds * Double(jack_get_sample_rate(c)))
        state = .allocate(capacity: 1)
        state.initialize(to: State(left: l, right: r, bufferL: .allocate(capacity: capacity), bufferR: .allocate(capacity: capacity),
                                   capacity: capacity, frames: 0, periods: 0))
        jack_set_process_callback(c, { nframes, arg in
            let s = arg!.assumingMemoryBound(to: State.self)
            let n = min(Int(nframes), s.pointee.capacity - s.pointee.frames)
            if n > 0 {
                let l = jack_port_get_buffer(s.pointee.left, nframes)!.assumingMemoryBound(to: Float.self)
                let r = jack_port_get_buffer(s.pointee.right, nframes)!.assumingMemoryBound(to: Float.self)
                (s.pointee.bufferL + s.pointee.frames).update(from: l, count: n)
                (s.pointee.bufferR + s.pointee.frames).update(from: r, count: n)
                s.pointee.frames += n
            }
            s.pointee.periods += 1
            return 0
        }, UnsafeMutableRawPointer(state))
        jack_set_port_registration_callback(c, { _, _, arg in
            Unmanaged<DispatchSemaphore>.fromOpaque(arg!).takeUnretainedValue().signal()
        }, Unmanaged.passUnretained(registered).toOpaque())
        guard jack_activate(c) == 0 else {
            jack_client_close(c)
            throw JACKTestError("capture: jack_activate failed")
        }
    }

    /// Waits until every port in `ports` exists (woken by each registration), `seconds`
    /// at most; true when they all do.
    public func waitForPorts(_ ports: [String], seconds: Double = 20) -> Bool {
        let deadline = DispatchTime.now() + seconds
        while true {
            if ports.allSatisfy({ jack_port_by_name(client, $0) != nil }) { return true }
            if registered.wait(timeout: deadline) == .timedOut {
                return ports.allSatisfy { jack_port_by_name(client, $0) != nil }
            }
        }
    }

    /// Connects `left` → in_L and `right` → in_R; true when both connections exist.
    public func connect(left: String, right: String) -> Bool {
        let name = String(cString: jack_get_client_name(client))
        let a = jack_connect(client, left, "\(name):in_L"), b = jack_connect(client, right, "\(name):in_R")
        return (a == 0 || a == EEXIST) && (b == 0 || b == EEXIST)
    }

    /// Frames recorded so far (read while it records: approximate). - Thread: any.
    public var frameCount: Int { state.pointee.frames }

    /// Deactivates and closes the client; returns what was recorded (left, right).
    public func finish() -> (left: [Float], right: [Float]) {
        jack_deactivate(client)
        jack_client_close(client)
        let n = state.pointee.frames
        let result = (Array(UnsafeBufferPointer(start: state.pointee.bufferL, count: n)),
                      Array(UnsafeBufferPointer(start: state.pointee.bufferR, count: n)))
        state.pointee.bufferL.deallocate()
        state.pointee.bufferR.deallocate()
        state.deallocate()
        return result
    }
}
