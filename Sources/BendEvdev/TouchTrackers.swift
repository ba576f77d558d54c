import BendControl

/// Hands out touch ids: one per touch instance, never reused while the decoder lives,
/// so a slot's next tracking id (or a tracking id seen again) is always a new touch.
struct TouchIDs {
    private var next: UInt32 = 1
    mutating func make() -> UInt32 {
        defer { next &+= 1; if next == 0 { next = 1 } }
        return next
    }
}

/// A pad position sent for a touch, to send moves only when it changed.
struct PadPoint: Equatable {
    var x: Double
    var y: Double
}

/// Axis pair → pad point through the declared ranges and the mapping.
struct PositionMap {
    var xAxis: AbsInfo
    var yAxis: AbsInfo
    var mapping: EvdevMapping
    func pad(_ x: Int32, _ y: Int32) -> PadPoint {
        let p = mapping.pad(screenX: xAxis.normalised(x), screenY: yAxis.normalised(y))
        return PadPoint(x: p.x, y: p.y)
    }
}

/// Multitouch protocol B: one touch per slot holding a tracking id.
///
/// A tracking id of −1 ends the slot's touch; a different id without −1 between ends
/// the old touch and starts a new one; a slot whose tool type is MT_TOOL_PALM has no
/// touch; a slot starts playing once its position is known (slot values persist, as in
/// the kernel). Slot numbers outside the declared range are ignored until the next
/// valid ABS_MT_SLOT.
struct SlotTracker {
    struct Slot {
        var trackingID: Int32 = -1
        var x: Int32?
        var y: Int32?
        var tool: Int32 = 0
        var touch: UInt32?
        var sent: PadPoint?
    }
    var slots: [Slot]
    var current: Int
    let map: PositionMap
    /// Semi-MT: only slot 0 plays (see `TouchProtocol.semiMTSlots`).
    let onlySlotZero: Bool

    init(device: EvdevDeviceDescription, map: PositionMap, onlySlotZero: Bool) {
        let maxSlot = Int(device.absolute[EvdevCode.absMTSlot]?.maximum ?? 0)
        slots = Array(repeating: Slot(), count: min(max(maxSlot + 1, 1), 64))
        current = Int(device.currentSlot)
        // A device opened while touched: its touches start at the first frame.
        for (i, state) in device.slots.prefix(slots.count).enumerated() where state.trackingID >= 0 {
            slots[i].trackingID = state.trackingID
            slots[i].x = state.x
            slots[i].y = state.y
            slots[i].tool = state.toolType
        }
        self.map = map
        self.onlySlotZero = onlySlotZero
    }

    var active: [UInt32] { slots.compactMap(\.touch) }

    mutating func frame(_ events: [InputEvent], ids: inout TouchIDs) -> [ControlEvent] {
        var out: [ControlEvent] = []
        func end(_ i: Int) {
            if let t = slots[i].touch { out.append(.touch(id: t, phase: .up, x: 0, y: 0)) }
            slots[i].touch = nil
            slots[i].sent = nil
        }
        for e in events where e.type == EvdevCode.evAbs {
            if e.code == EvdevCode.absMTSlot {
                current = e.value >= 0 && Int(e.value) < slots.count ? Int(e.value) : -1
                continue
            }
            guard current >= 0 else { continue }
            switch e.code {
            case EvdevCode.absMTTrackingID:
                if e.value < 0 || e.value != slots[current].trackingID { end(current) }
                slots[current].trackingID = e.value < 0 ? -1 : e.value
            case EvdevCode.absMTPositionX: slots[current].x = e.value
            case EvdevCode.absMTPositionY: slots[current].y = e.value
            case EvdevCode.absMTToolType: slots[current].tool = e.value
            default: break
            }
        }
        for i in slots.indices {
            let s = slots[i]
            guard !onlySlotZero || i == 0, s.trackingID >= 0, s.tool != EvdevCode.mtToolPalm,
                  let x = s.x, let y = s.y else {
                end(i)
                continue
            }
            let p = map.pad(x, y)
            if s.touch == nil {
                let id = ids.make()
                slots[i].touch = id
                out.append(.touch(id: id, phase: .down, x: p.x, y: p.y))
            } else if s.sent != p {
                out.append(.touch(id: s.touch!, phase: .move, x: p.x, y: p.y))
            }
            slots[i].sent = p
        }
        return out
    }

    mutating func releaseAll() -> [ControlEvent] {
        var out: [ControlEvent] = []
        for i in slots.indices {
            if let t = slots[i].touch { out.append(.touch(id: t, phase: .up, x: 0, y: 0)) }
            slots[i] = Slot()
        }
        return out
    }
}

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
    let map: PositionMap

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

/// One contact: the position axes while BTN_TOUCH is 1. A touch whose position has not
/// arrived yet does not play (no bogus position from the axis minimum, RW-14) until it
/// does.
struct SingleTouchTracker {
    let xCode: UInt16
    let yCode: UInt16
    var x: Int32?
    var y: Int32?
    var touching = false
    var touch: UInt32?
    var sent: PadPoint?
    let map: PositionMap

    var active: [UInt32] { touch.map { [$0] } ?? [] }

    mutating func frame(_ events: [InputEvent], ids: inout TouchIDs) -> [ControlEvent] {
        for e in events {
            if e.type == EvdevCode.evAbs && e.code == xCode { x = e.value }
            if e.type == EvdevCode.evAbs && e.code == yCode { y = e.value }
            if e.type == EvdevCode.evKey && e.code == EvdevCode.btnTouch { touching = e.value != 0 }
        }
        if touching, let x, let y {
            let p = map.pad(x, y)
            defer { sent = p }
            if let t = touch {
                return sent == p ? [] : [.touch(id: t, phase: .move, x: p.x, y: p.y)]
            }
            let id = ids.make()
            touch = id
            return [.touch(id: id, phase: .down, x: p.x, y: p.y)]
        }
        if !touching, touch != nil { return releaseAll() }
        return []
    }

    mutating func releaseAll() -> [ControlEvent] {
        defer { touch = nil; sent = nil }
        return touch.map { [.touch(id: $0, phase: .up, x: 0, y: 0)] } ?? []
    }
}
