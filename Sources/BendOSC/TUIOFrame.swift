// SPDX-License-Identifier: GPL-3.0-or-later
/// One TUIO frame of cursors, from one bundle: TUIO 1.1 `/tuio/2Dcur` (`source`,
/// `alive`, `set`, `fseq`) or TUIO 2.0 (`/tuio2/frm`, `/tuio2/ptr`, `/tuio2/alv`).
/// Coordinates are TUIO's: x left → right, y top → bottom, 0…1.
struct TUIOFrame: Equatable {
    /// Namespace of the sessions: profile plus the tracker's `source` name ("" if none).
    var source: String
    /// fseq (1.1) or frame id (2.0); nil when the bundle has none.
    var frame: Int64?
    /// The sessions alive after this frame; nil when the bundle has no alive message.
    var alive: [Int64]?
    /// Positions set in this frame, in message order.
    var sets: [(session: Int64, x: Double, y: Double)] = []

    static func == (a: TUIOFrame, b: TUIOFrame) -> Bool {
        a.source == b.source && a.frame == b.frame && a.alive == b.alive
            && a.sets.elementsEqual(b.sets) { $0.session == $1.session && $0.x == $1.x && $0.y == $1.y }
    }

    /// True for addresses of the TUIO profiles (1.1 `/tuio/…`, 2.0 `/tuio2/…`).
    static func isTUIO(_ address: String) -> Bool {
        address.hasPrefix("/tuio/") || address.hasPrefix("/tuio2/")
    }

    /// TUIO's late-frame rule (the 1.1 reference client): a frame number lower than the
    /// last one from the same source, by 100 or less, is a late (reordered) frame.
    /// Frame numbers ≤ 0 (−1: "no frame number") are never late.
    static func isLate(_ frame: Int64, after last: Int64?) -> Bool {
        guard let last, frame > 0, last > 0 else { return false }
        return frame < last && last - frame <= 100
    }

    /// Builds the frames of one bundle's TUIO messages (one per profile: 1.1 cursors and
    /// 2.0 pointers). Objects, blobs and the other profiles are accepted and ignored.
    /// - Parameter wrongTypes: called with (address, expected types) for a cursor
    ///   message whose arguments do not fit; the message is dropped.
    static func frames(of messages: [OSCMessage], wrongTypes: (String, String) -> Void) -> [TUIOFrame] {
        var cur: TUIOFrame?
        var ptr: TUIOFrame?
        for m in messages {
            switch m.address {
            case "/tuio/2Dcur":
                var f = cur ?? TUIOFrame(source: "tuio1:")
                guard case .string(let command)? = m.arguments.first else {
                    wrongTypes(m.address, ",s… (a command: source, alive, set, fseq)")
                    continue
                }
                let rest = m.arguments.dropFirst()
                switch command {
                case "source":
                    guard rest.count == 1, case .string(let name) = rest.first! else { wrongTypes("/tuio/2Dcur source", ",ss"); continue }
                    f.source = "tuio1:" + name
                case "alive":
                    let ids = rest.compactMap(integer)
                    guard ids.count == rest.count else { wrongTypes("/tuio/2Dcur alive", ",si…"); continue }
                    f.alive = ids
                case "set":
                    let a = Array(rest)
                    guard a.count >= 3, let s = integer(a[0]), let x = real(a[1]), let y = real(a[2]) else {
                        wrongTypes("/tuio/2Dcur set", ",sifffff (session, x, y, X, Y, m)"); continue
                    }
                    f.sets.append((s, x, y))
                case "fseq":
                    guard rest.count == 1, let n = integer(rest.first!) else { wrongTypes("/tuio/2Dcur fseq", ",si"); continue }
                    f.frame = n
                default:
                    continue  // unknown commands are ignored, as TUIO clients do
                }
                cur = f
            case "/tuio2/frm":
                var f = ptr ?? TUIOFrame(source: "tuio2:")
                guard let n = m.arguments.first.flatMap(integer) else { wrongTypes(m.address, ",itis (frame, time, dimension, source)"); continue }
                f.frame = n
                if m.arguments.count >= 4, case .string(let name) = m.arguments[3] { f.source = "tuio2:" + name }
                ptr = f
            case "/tuio2/ptr":
                var f = ptr ?? TUIOFrame(source: "tuio2:")
                let a = m.arguments
                guard a.count >= 5, let s = integer(a[0]), let x = real(a[3]), let y = real(a[4]) else {
                    wrongTypes(m.address, ",iiiff… (session, type/user, component, x, y, …)"); continue
                }
                f.sets.append((s, x, y))
                ptr = f
            case "/tuio2/alv":
                var f = ptr ?? TUIOFrame(source: "tuio2:")
                let ids = m.arguments.compactMap(integer)
                guard ids.count == m.arguments.count else { wrongTypes(m.address, ",i…"); continue }
                f.alive = ids
                ptr = f
            default:
                continue  // 2Dobj, 2Dblb, 25D*, 3D*, /tuio2/tok, bnd, sym…: accepted, ignored
            }
        }
        return [cur, ptr].compactMap { $0 }
    }

    /// An integer argument (int32, int64; 2.0 frame ids are unsigned: read as such).
    static func integer(_ v: OSCValue) -> Int64? {
        switch v {
        case .int32(let i): return Int64(i)
        case .int64(let i): return i
        default: return nil
        }
    }

    /// A finite real argument (float, double).
    static func real(_ v: OSCValue) -> Double? {
        switch v {
        case .float(let f) where f.isFinite: return Double(f)
        case .double(let d) where d.isFinite: return d
        default: return nil
        }
    }
}
