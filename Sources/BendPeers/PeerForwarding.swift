// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendSystem

/// A controller's side of the peers' input: local control events (the pad, a touch
/// script, evdev devices) go to the instrument as TOUCH and TILT.
extension PeerMessage {
    /// The message for one local control event, stamped `timestamp` (monotonic ns), and
    /// how it goes: downs and ups reliably, moves and tilt unreliably (the newest wins).
    /// Coordinates are clamped to the protocol's ranges (x, y 0…1, tilt −1…1; NaN → 0).
    /// The protocol carries pad positions: a pitched touch (a MIDI file's) goes as the x
    /// the linear pitch map gives its ratio (ratio/2: exact up to ratio 2 on an instrument
    /// with the default map) and its gain as y.
    /// Nil for sustain, timbre and sends: the protocol has no message for them yet (a remote's
    /// sustain stays on the remote, its touches' timbre does not go).
    public static func forwarding(_ event: ControlEvent, timestamp: UInt64) -> (message: PeerMessage, mode: SendMode)? {
        switch event {
        case let .touch(id, phase, x, y):
            let clamp = { (v: Double) in Float(min(max(v.isNaN ? 0 : v, 0), 1)) }
            return (.touch(id: id, phase: phase, x: clamp(x), y: clamp(y), timestamp: timestamp),
                    phase == .move ? .unreliable : .reliable)
        case let .pitched(id, phase, ratio, gain, _):
            return forwarding(.touch(id: id, phase: phase, x: PitchMap.linear.x(ratio: ratio.isNaN ? 0 : ratio), y: gain),
                              timestamp: timestamp)
        case let .tilt(v):
            return (.tilt(value: Float(min(max(v.isNaN ? 0 : v, -1), 1)), timestamp: timestamp), .unreliable)
        case .sustain, .timbre, .send:
            return nil
        }
    }
}

extension PeerSession {
    /// Sends one local control event to every connected peer (`PeerMessage.forwarding`),
    /// stamped now. Returns how many peers it was handed to.
    /// - Thread: any.
    @discardableResult
    public func forward(_ event: ControlEvent) -> Int {
        guard let (message, mode) = PeerMessage.forwarding(event, timestamp: MonotonicClock.nanos()) else { return 0 }
        return send(message, mode: mode)
    }
}
