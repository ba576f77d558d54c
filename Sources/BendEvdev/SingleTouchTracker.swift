// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl

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
    var map: PositionMap

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
