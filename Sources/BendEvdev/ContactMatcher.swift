// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl

/// Multitouch protocol A: each frame lists every contact (SYN_MT_REPORT after each);
/// contacts are matched to the previous frame's by nearest distance (greedy), so a
/// change of order is not a new touch. While BTN_TOUCH is 0 (when the device has it)
/// there are no touches: touchpads report hovering contacts (RW-05). A frame without
/// any SYN_MT_REPORT keeps the contacts as they were.
struct ContactMatcher {
    struct Contact {
        var touch: UInt32
        var x: Int32
        var y: Int32
        var sent: PadPoint
    }
    var contacts: [Contact] = []
    var reported: [(x: Int32, y: Int32)] = []
    var touching: Bool
    var map: PositionMap

    init(device: EvdevDeviceDescription, map: PositionMap) {
        touching = !device.hasKey(EvdevCode.btnTouch)
        self.map = map
    }

    var active: [UInt32] { contacts.map(\.touch) }

    mutating func frame(_ events: [InputEvent], ids: inout TouchIDs) -> [ControlEvent] {
        var x: Int32?, y: Int32?, tool: Int32 = 0
        var list: [(x: Int32, y: Int32)] = []
        var sawReport = false
        for e in events {
            switch (e.type, e.code) {
            case (EvdevCode.evAbs, EvdevCode.absMTPositionX): x = e.value
            case (EvdevCode.evAbs, EvdevCode.absMTPositionY): y = e.value
            case (EvdevCode.evAbs, EvdevCode.absMTToolType): tool = e.value
            case (EvdevCode.evKey, EvdevCode.btnTouch): touching = e.value != 0
            case (EvdevCode.evSyn, EvdevCode.synMTReport):
                sawReport = true
                if let x, let y, tool != EvdevCode.mtToolPalm { list.append((x, y)) }
                (x, y, tool) = (nil, nil, 0)
            default: break
            }
        }
        if sawReport { reported = list }
        return match(touching ? reported : [], ids: &ids)
    }

    private mutating func match(_ new: [(x: Int32, y: Int32)], ids: inout TouchIDs) -> [ControlEvent] {
        var pairs: [(old: Int, new: Int, d: Double)] = []
        for (i, c) in contacts.enumerated() {
            for (j, n) in new.enumerated() {
                let dx = Double(c.x) - Double(n.x), dy = Double(c.y) - Double(n.y)
                pairs.append((i, j, dx * dx + dy * dy))
            }
        }
        pairs.sort { $0.d < $1.d || ($0.d == $1.d && ($0.old, $0.new) < ($1.old, $1.new)) }
        var oldTaken = Array(repeating: false, count: contacts.count)
        var newOwner: [Int?] = Array(repeating: nil, count: new.count)
        for p in pairs where !oldTaken[p.old] && newOwner[p.new] == nil {
            oldTaken[p.old] = true
            newOwner[p.new] = p.old
        }
        var out: [ControlEvent] = []
        for (i, c) in contacts.enumerated() where !oldTaken[i] {
            out.append(.touch(id: c.touch, phase: .up, x: 0, y: 0))
        }
        var next: [Contact] = []
        for (j, n) in new.enumerated() {
            let p = map.pad(n.x, n.y)
            if let i = newOwner[j] {
                let c = contacts[i]
                if c.sent != p { out.append(.touch(id: c.touch, phase: .move, x: p.x, y: p.y)) }
                next.append(Contact(touch: c.touch, x: n.x, y: n.y, sent: p))
            } else {
                let id = ids.make()
                out.append(.touch(id: id, phase: .down, x: p.x, y: p.y))
                next.append(Contact(touch: id, x: n.x, y: n.y, sent: p))
            }
        }
        contacts = next
        return out
    }

    mutating func releaseAll() -> [ControlEvent] {
        defer { contacts = []; reported = [] }
        return contacts.map { .touch(id: $0.touch, phase: .up, x: 0, y: 0) }
    }
}
