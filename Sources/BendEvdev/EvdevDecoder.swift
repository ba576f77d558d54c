// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl

/// Decodes one input device's events into control events, frame by frame: the same
/// code for a live device (`EvdevReadLoop`) and a recording (`EvdevReplay`).
///
/// Events are collected until SYN_REPORT, then the frame is applied at once: touch
/// ups first (in slot or contact order), then downs and moves. Codes the device did not
/// declare are ignored (RW-09's undeclared ABS 0x1d). Touch ids are the decoder's own,
/// 1, 2, 3… — one per touch instance, never the device's tracking ids.
///
/// SYN_DROPPED (the kernel's buffer overflowed): the frame collected so far is
/// discarded, and the events that follow are taken as the device's current state —
/// what libevdev's sync mode delivers live (`LIBEVDEV_READ_FLAG_SYNC`) and what
/// evemu-record (which reads through libevdev) writes after a drop. A touch whose
/// finger lifted during the drop ends there (its slot's sync says tracking id −1).
///
/// - Thread: one thread at a time (a value type; each device has its own decoder).
public struct EvdevDecoder: Sendable {
    public let device: EvdevDeviceDescription
    public let kind: EvdevDeviceKind
    public let mapping: EvdevMapping
    private var pending: [InputEvent] = []
    private var ids = TouchIDs()
    private var slots: SlotTracker?
    private var contacts: ContactMatcher?
    private var single: SingleTouchTracker?
    private var tilt: TiltFilter?
    /// SYN_DROPPED events seen.
    public private(set) var drops = 0
    /// Frames applied (SYN_REPORTs).
    public private(set) var frames = 0

    public init(device: EvdevDeviceDescription, mapping: EvdevMapping = EvdevMapping()) {
        self.device = device
        self.mapping = mapping
        kind = EvdevDeviceKind.classify(device)
        typealias C = EvdevCode
        func axes(_ x: UInt16, _ y: UInt16) -> PositionMap {
            PositionMap(device: device, xAxis: device.absolute[x] ?? AbsInfo(minimum: 0, maximum: 1),
                        yAxis: device.absolute[y] ?? AbsInfo(minimum: 0, maximum: 1), mapping: mapping)
        }
        switch kind {
        case .touch(_, .slots):
            slots = SlotTracker(device: device, map: axes(C.absMTPositionX, C.absMTPositionY), onlySlotZero: false)
        case .touch(_, .semiMTSlots):
            slots = SlotTracker(device: device, map: axes(C.absMTPositionX, C.absMTPositionY), onlySlotZero: true)
        case .touch(_, .contacts):
            contacts = ContactMatcher(device: device, map: axes(C.absMTPositionX, C.absMTPositionY))
        case .touch(_, .single):
            let (x, y) = EvdevQuirks.singleTouchAxes(device)
            single = SingleTouchTracker(xCode: x, yCode: y, map: axes(x, y))
        case .accelerometer:
            tilt = TiltFilter(device: device, mapping: mapping)
        case .skipped:
            break
        }
    }

    /// Touches down now, by the decoder's ids.
    public var activeTouches: [UInt32] {
        (slots?.active ?? []) + (contacts?.active ?? []) + (single?.active ?? [])
    }

    /// Takes one event; at SYN_REPORT returns the frame's control events (often none).
    public mutating func feed(_ e: InputEvent) -> [ControlEvent] {
        if e.type == EvdevCode.evSyn {
            switch e.code {
            case EvdevCode.synReport:
                let frame = pending
                pending.removeAll(keepingCapacity: true)
                frames += 1
                return apply(frame)
            case EvdevCode.synDropped:
                pending.removeAll(keepingCapacity: true)
                drops += 1
            case EvdevCode.synMTReport:
                pending.append(e)
            default: break
            }
            return []
        }
        let declared: Bool
        switch e.type {
        case EvdevCode.evAbs: declared = device.absolute[e.code] != nil
        case EvdevCode.evKey: declared = device.keys.contains(e.code)
        default: declared = false  // the decoder uses only ABS and KEY
        }
        if declared { pending.append(e) }
        return []
    }

    /// The device is gone (unplugged, ENODEV) or its recording ended: every touch ends.
    /// The decoder starts from nothing afterwards.
    public mutating func deviceRemoved() -> [ControlEvent] {
        pending.removeAll()
        var out: [ControlEvent] = []
        if slots != nil { out += slots!.releaseAll() }
        if contacts != nil { out += contacts!.releaseAll() }
        if single != nil { out += single!.releaseAll() }
        return out
    }

    private mutating func apply(_ frame: [InputEvent]) -> [ControlEvent] {
        if slots != nil { return slots!.frame(frame, ids: &ids) }
        if contacts != nil { return contacts!.frame(frame, ids: &ids) }
        if single != nil { return single!.frame(frame, ids: &ids) }
        if tilt != nil { return tilt!.frame(frame) }
        return []
    }
}

/// Per-device fixes, the way libinput's quirks files key them by bus/vendor/product.
public enum EvdevQuirks {
    /// The single-touch position axes: ABS_X/ABS_Y, except for devices known to
    /// report elsewhere — eGalax 0eef:0001 on USB, whose generic HID mapping puts the
    /// touch on ABS_Z (x) and ABS_RX (y) while ABS_X/ABS_Y never move (RW-14).
    public static func singleTouchAxes(_ d: EvdevDeviceDescription) -> (x: UInt16, y: UInt16) {
        if d.vendor == 0x0eef && d.product == 0x0001 && d.hasAbs(EvdevCode.absZ) && d.hasAbs(EvdevCode.absRX) {
            return (EvdevCode.absZ, EvdevCode.absRX)
        }
        return (EvdevCode.absX, EvdevCode.absY)
    }
}
