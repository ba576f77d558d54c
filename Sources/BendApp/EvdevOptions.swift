// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem
import BendEvdev

/// Options for input devices (`play --evdev`) and how their coordinates and tilt map
/// onto the pad (`play`, `replay`).
struct EvdevOptions {
    var mapping = EvdevMapping()
    /// "auto" and/or /dev/input/eventN paths, in the order given.
    var devices: [String] = []
    var grab = false

    static let mappingSpecs: [OptionSpec] = [
        OptionSpec("rotate", value: "DEG", help: "input devices: rotate coordinates 0, 90, 180 or 270 degrees clockwise (a screen mounted turned)"),
        OptionSpec("invert-x", help: "input devices: mirror x (after --rotate)"),
        OptionSpec("invert-y", help: "input devices: mirror y (after --rotate)"),
        OptionSpec("axis-range", value: "RANGE", help: "input devices: the position axes' ranges, XMIN:XMAX,YMIN:YMAX in device units (VVVV:PPPP=… for one device), or 'auto' (widen to the values sent) for a screen that never reaches its declared ends; repeatable"),
        OptionSpec("tilt-axis", value: "AXIS", help: "accelerometers: the axis whose tilt pans, 'x' (default) or 'y'"),
        OptionSpec("invert-tilt", help: "accelerometers: pan the other way"),
    ]

    static let deviceSpecs: [OptionSpec] = [
        OptionSpec("evdev", value: "DEV", help: "play from input devices: 'auto' (every touchscreen, touchpad, tablet, accelerometer; hot-plug) or /dev/input/eventN; repeatable"),
        OptionSpec("grab", help: "take --evdev devices exclusively (EVIOCGRAB), so the desktop does not also act on the touches"),
    ]

    /// Applies one parsed option; returns false when it is not one of these.
    /// - Throws: `AppError.usage` naming the option and the expected values.
    mutating func apply(_ name: String, _ value: String?) throws -> Bool {
        switch name {
        case "rotate":
            guard let v = value.flatMap(Int.init), let r = EvdevMapping.Rotation(rawValue: v) else {
                throw AppError.usage("option '--rotate': expected 0, 90, 180 or 270, got '\(value ?? "")'")
            }
            mapping.rotation = r
        case "invert-x": mapping.invertX = true
        case "invert-y": mapping.invertY = true
        case "axis-range":
            do { try mapping.calibration.add(value ?? "") } catch { throw AppError.usage("option '--axis-range': \(error)") }
        case "tilt-axis":
            guard let v = value, let a = EvdevMapping.TiltAxis(rawValue: v) else {
                throw AppError.usage("option '--tilt-axis': expected 'x' or 'y', got '\(value ?? "")'")
            }
            mapping.tiltAxis = a
        case "invert-tilt": mapping.invertTilt = true
        case "evdev":
            guard let v = value, v == "auto" || v.hasPrefix("/") else {
                throw AppError.usage("option '--evdev': expected 'auto' or a device path such as /dev/input/event3, got '\(value ?? "")'")
            }
            devices.append(v)
        case "grab": grab = true
        default: return false
        }
        return true
    }

    /// Options that only make sense together: --grab needs --evdev (as --allow needs
    /// --bluetooth).
    func validate() throws {
        if grab && devices.isEmpty {
            throw AppError.usage("option '--grab' applies to --evdev devices only; give --evdev DEV too")
        }
    }
}
