// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl

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
        /// ABS_MT_PRESSURE, and the timbre last sent (`EvdevMapping.pressure`).
        var pressure: Int32?
        var sentPressure: Double?
    }
    var slots: [Slot]
    var current: Int
    var map: PositionMap
    /// Semi-MT: only slot 0 plays (see `TouchProtocol.semiMTSlots`).
    let onlySlotZero: Bool
    /// The pressure axis when touches' pressure goes as their timbre (nil: it does not).
    let pressureAxis: AbsInfo?

    init(device: EvdevDeviceDescription, map: PositionMap, onlySlotZero: Bool) {
        let maxSlot = Int(device.absolute[EvdevCode.absMTSlot]?.maximum ?? 0)
        slots = Array(repeating: Slot(), count: min(max(maxSlot + 1, 1), 64))
        // A current slot beyond the ones tracked (more than 64) waits for an ABS_MT_SLOT.
        current = device.currentSlot >= 0 && Int(device.currentSlot) < slots.count ? Int(device.currentSlot) : -1
        // A device opened while touched: its touches start at the first frame.
        for (i, state) in device.slots.prefix(slots.count).enumerated() where state.trackingID >= 0 {
            slots[i].trackingID = state.trackingID
            slots[i].x = state.x
            slots[i].y = state.y
            slots[i].tool = state.toolType
        }
        self.map = map
        self.onlySlotZero = onlySlotZero
        let axis = device.absolute[EvdevCode.absMTPressure]
        pressureAxis = map.mapping.pressure && (axis.map { $0.maximum > $0.minimum } ?? false) ? axis : nil
    }

    /// Slot `i`'s pressure as a timbre (0…1 over the axis), when it changed since last sent.
    mutating func timbre(_ i: Int) -> ControlEvent? {
        guard let axis = pressureAxis, let p = slots[i].pressure, let id = slots[i].touch else { return nil }
        let value = min(max(Double(p - axis.minimum) / Double(axis.maximum - axis.minimum), 0), 1)
        guard value != slots[i].sentPressure else { return nil }
        slots[i].sentPressure = value
        return .timbre(id: id, value: value)
    }

    var active: [UInt32] { slots.compactMap(\.touch) }

    mutating func frame(_ events: [InputEvent], ids: inout TouchIDs) -> [ControlEvent] {
        var out: [ControlEvent] = []
        func end(_ i: Int) {
            if let t = slots[i].touch { out.append(.touch(id: t, phase: .up, x: 0, y: 0)) }
            slots[i].touch = nil
            slots[i].sent = nil
            slots[i].sentPressure = nil
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
            case EvdevCode.absMTPressure: slots[current].pressure = e.value
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
            if let t = timbre(i) { out.append(t) }
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
