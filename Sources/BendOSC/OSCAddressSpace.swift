// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl

/// bendsynth's own OSC addresses (docs/OSC.md), XY pads and `/accxyz`.
extension OSCInterpreter {
    /// Largest XY pad number.
    public static let maxPad: Int64 = 64
    /// An XY pad's z = 1 starts at the last position if that came at most this long
    /// before (TouchOSC sends a touch's z and xy together, in either order), ns.
    static let padPositionFresh: UInt64 = 20_000_000

    /// Handles one non-TUIO message. - Returns: a reply to the sender, if any.
    func handle(_ m: OSCMessage, from sender: String, now: UInt64) -> [UInt8]? {
        let a = m.arguments
        switch m.address {
        case "/bendsynth/touch":
            guard a.count == 3, let id = touchID(a[0]), let x = Self.real(a[1]), let y = Self.real(a[2]) else {
                wrongType(m.address, expected: ",iff (id 0…2147483647, x 0…1, y 0…1)", got: m.types, from: sender); return nil
            }
            downOrMove(TouchOwner(sender: sender, space: .own, id: id), x: x, y: y)
        case "/bendsynth/release":
            guard a.count == 1, let id = touchID(a[0]) else {
                wrongType(m.address, expected: ",i (id)", got: m.types, from: sender); return nil
            }
            up(TouchOwner(sender: sender, space: .own, id: id))
        case "/bendsynth/tilt":
            guard a.count == 1, let t = Self.real(a[0]) else {
                wrongType(m.address, expected: ",f (tilt −1…1)", got: m.types, from: sender); return nil
            }
            if allowed(sender) { emit(.tilt(min(max(t, -1), 1))) }
        case "/bendsynth/send":
            // A touch's send to an effect (docs/EFFECTS.md): the sender's own touch `id`.
            guard a.count == 3, let id = touchID(a[0]), case let .string(bus) = a[1], let level = Self.real(a[2]),
                  let event = ControlEvent.send(id: 0, busNamed: bus, level: level) else {
                wrongType(m.address, expected: ",isf (id, \"reverb\", \"delay\" or \"chorus\", level 0…1)", got: m.types, from: sender); return nil
            }
            if let mapped = touches.id(of: TouchOwner(sender: sender, space: .own, id: id)) { emit(event.withTouchID(mapped)) }
        case "/bendsynth/panic":
            // Any arguments: every touch of every source ends (the instrument's panic),
            // then this interpreter forgets its own, so the senders' next touches start anew.
            guard allowed(sender) else { return nil }
            panic("OSC /bendsynth/panic from \(sender)")
            endAll()
        case "/bendsynth/voices":
            return OSCEncoder.encode("/bendsynth/voices", [
                .int32(Int32(clamping: voices())), .int32(Int32(activeTouches)), .int32(Int32(activeTouches(of: sender))),
            ])
        case "/accxyz":
            guard a.count == 3, let x = Self.real(a[0]), let y = Self.real(a[1]), let z = Self.real(a[2]) else {
                wrongType(m.address, expected: ",fff (acceleration x, y, z)", got: m.types, from: sender); return nil
            }
            let magnitude = (x * x + y * y + z * z).squareRoot()
            guard magnitude > 0, magnitude.isFinite else { return nil }  // free fall: no direction
            if allowed(sender) { emit(.tilt(min(max(x / magnitude, -1), 1))) }
        default:
            if m.address.hasPrefix("/bendsynth/xy/") { xyPad(m, from: sender, now: now) }
            // Anything else (e.g. `/info`, `/ping`, other apps' addresses) is ignored.
        }
        return nil
    }

    /// `/bendsynth/xy/N ,ff x y`, `/bendsynth/xy/N ,fff x y z`, `/bendsynth/xy/N/z ,f z`.
    /// z ≥ 0.5 means touching: the touch starts at the pad's position (the one in the
    /// same message, one at most 20 ms old, or else the next one that comes); z < 0.5
    /// ends it. An xy message while touching moves the touch; while not touching it
    /// only records the position (no sound).
    func xyPad(_ m: OSCMessage, from sender: String, now: UInt64) {
        var parts = m.address.dropFirst("/bendsynth/xy/".count).split(separator: "/", omittingEmptySubsequences: false)
        let isZ = parts.count == 2 && parts[1] == "z"
        if isZ { parts.removeLast() }
        guard parts.count == 1, let n = Int64(parts[0]), (1...Self.maxPad).contains(n) else {
            wrongType("/bendsynth/xy/N", expected: "N in 1…\(Self.maxPad)", from: sender); return
        }
        let owner = TouchOwner(sender: sender, space: .xy, id: n)
        var pad = senders[sender]!.pads[n] ?? XYPadState()
        defer { senders[sender]?.pads[n] = pad }
        let a = m.arguments
        var z: Double?
        if isZ {
            guard a.count == 1, let v = a[0].number, v.isFinite else {
                wrongType("/bendsynth/xy/N/z", expected: ",f (1 touching, 0 released)", got: m.types, from: sender); return
            }
            z = v
        } else {
            guard a.count == 2 || a.count == 3, let x = Self.real(a[0]), let y = Self.real(a[1]) else {
                wrongType("/bendsynth/xy/N", expected: ",ff (x, y) or ,fff (x, y, z)", got: m.types, from: sender); return
            }
            if a.count == 3 {
                guard let v = a[2].number, v.isFinite else {
                    wrongType("/bendsynth/xy/N", expected: ",ff (x, y) or ,fff (x, y, z)", got: m.types, from: sender); return
                }
                z = v
            }
            pad.position = (x, y)
            pad.positionTime = now
        }
        switch z {
        case let v? where v >= 0.5:
            if let p = pad.position, isZ ? now &- pad.positionTime <= Self.padPositionFresh : true {
                downOrMove(owner, x: p.x, y: p.y)
                pad.pending = touches.id(of: owner) == nil   // refused by a limit: the next position tries again
            } else if touches.id(of: owner) == nil {
                pad.pending = true
            }
        case .some:
            pad.pending = false
            up(owner)
        case nil:
            // A position alone: moves a sounding touch, or starts a pending one (z = 1
            // came first, or the touch was ended by silence: it comes back as a new one).
            if touches.id(of: owner) != nil || pad.pending, let p = pad.position {
                downOrMove(owner, x: p.x, y: p.y)
                pad.pending = touches.id(of: owner) == nil
            }
        }
    }

    /// A touch id: an integer 0…2³¹−1 (int32, int64, or a float with an integral value,
    /// as Pure Data sends every number).
    func touchID(_ v: OSCValue) -> Int64? {
        switch v {
        case .int32(let i) where i >= 0: return Int64(i)
        case .int64(let i) where (0...Int64(Int32.max)).contains(i): return i
        case .float, .double:
            guard let d = v.number, d >= 0, d <= Double(Int32.max), d.rounded() == d else { return nil }
            return Int64(d)
        default: return nil
        }
    }

    /// A finite real argument: float or double (an int is accepted too: 0 and 1 are
    /// what a sender of whole numbers means).
    static func real(_ v: OSCValue) -> Double? {
        switch v {
        case .float, .double, .int32, .int64:
            guard let d = v.number, d.isFinite else { return nil }
            return d
        default: return nil
        }
    }
}
