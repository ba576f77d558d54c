// SPDX-License-Identifier: GPL-3.0-or-later
/// How a touch device reports its contacts.
public enum TouchProtocol: String, Sendable, Equatable {
    /// Multitouch protocol B: slots with tracking ids; each slot with an id is a touch.
    case slots
    /// Protocol B on an INPUT_PROP_SEMI_MT device: the two slots are the corners of a
    /// bounding box, not fingers. Played as one touch from slot 0 (the documented
    /// choice: stable, never more than one voice from a box corner).
    case semiMTSlots
    /// Multitouch protocol A: anonymous contacts separated by SYN_MT_REPORT, matched
    /// frame to frame by distance; gated by BTN_TOUCH when the device has it.
    case contacts
    /// One contact: ABS_X/ABS_Y while BTN_TOUCH is 1.
    case single
}

/// What a touch device is, for the listing and for `auto`.
public enum TouchSurface: String, Sendable, Equatable {
    case touchscreen
    case touchpad
    /// A mouse (relative motion) with a multitouch surface (Apple Magic Mouse, RW-08).
    case mouseSurface = "mouse touch surface"
    /// A single-touch screen or pen tablet.
    case tablet = "single-touch screen or tablet"
}

/// What bendsynth makes of an input device.
public enum EvdevDeviceKind: Sendable, Equatable {
    case touch(TouchSurface, TouchProtocol)
    case accelerometer
    /// Not an instrument input; the reason, for `bendsynth devices`.
    case skipped(String)

    /// Classifies by properties, axes and buttons (not by INPUT_PROP_DIRECT alone:
    /// older kernels' touchscreens lack it, RW-04).
    public static func classify(_ d: EvdevDeviceDescription) -> EvdevDeviceKind {
        typealias C = EvdevCode
        if d.hasProperty(C.propAccelerometer) {
            for axis in [C.absX, C.absY, C.absZ] where !d.hasAbs(axis) {
                return .skipped("accelerometer without the ABS_X/ABS_Y/ABS_Z axes")
            }
            return .accelerometer
        }
        if d.hasAbs(C.absMTPositionX) && d.hasAbs(C.absMTPositionY) {
            for axis in [C.absMTPositionX, C.absMTPositionY] where d.absolute[axis]!.maximum <= d.absolute[axis]!.minimum {
                return .skipped("multitouch axis 0x\(String(axis, radix: 16)) has an empty range")
            }
            let proto: TouchProtocol = d.hasAbs(C.absMTSlot)
                ? (d.hasProperty(C.propSemiMT) ? .semiMTSlots : .slots) : .contacts
            let surface: TouchSurface
            if d.hasProperty(C.propDirect) {
                surface = .touchscreen
            } else if d.hasProperty(C.propPointer) || d.hasProperty(C.propButtonpad) || d.hasKey(C.btnToolFinger) {
                surface = .touchpad
            } else if d.relative.contains(C.relX) && d.relative.contains(C.relY) {
                surface = .mouseSurface
            } else {
                surface = .touchscreen  // no properties: an older kernel's touchscreen (RW-04)
            }
            return .touch(surface, proto)
        }
        if d.hasAbs(C.absX) && d.hasAbs(C.absY) {
            guard d.hasKey(C.btnTouch) else {
                return .skipped("ABS_X/ABS_Y without BTN_TOUCH (a joystick or similar)")
            }
            return .touch(.tablet, .single)
        }
        return .skipped("no absolute position axes (a keyboard, mouse or button)")
    }

    /// Whether `--evdev auto` takes the device; a mouse's touch surface must be named.
    public var takenByAuto: Bool {
        switch self {
        case .touch(.mouseSurface, _), .skipped: return false
        default: return true
        }
    }

    /// "touchscreen, multitouch protocol B (slots)" and the like.
    public var summary: String {
        switch self {
        case let .touch(surface, proto):
            let p: String
            switch proto {
            case .slots: p = "multitouch protocol B (slots)"
            case .semiMTSlots: p = "semi-multitouch (bounding box): played as one touch from slot 0"
            case .contacts: p = "multitouch protocol A (contacts matched frame to frame)"
            case .single: p = "single touch (BTN_TOUCH + ABS_X/ABS_Y)"
            }
            return "\(surface.rawValue), \(p)" + (surface == .mouseSurface ? "; not taken by 'auto' (name its path to use it)" : "")
        case .accelerometer: return "accelerometer (tilt → pan)"
        case .skipped(let why): return "skipped: \(why)"
        }
    }
}
