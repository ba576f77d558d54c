// SPDX-License-Identifier: GPL-3.0-or-later
/// One absolute axis as the device declares it (`struct input_absinfo`).
public struct AbsInfo: Sendable, Equatable {
    /// The axis value now (live devices; 0 when a recording does not say).
    public var value: Int32
    public var minimum: Int32
    public var maximum: Int32
    public var fuzz: Int32
    public var flat: Int32
    /// Units per mm (units per g for an accelerometer); 0 when the device does not say.
    public var resolution: Int32

    public init(value: Int32 = 0, minimum: Int32, maximum: Int32, fuzz: Int32 = 0, flat: Int32 = 0, resolution: Int32 = 0) {
        self.value = value
        self.minimum = minimum
        self.maximum = maximum
        self.fuzz = fuzz
        self.flat = flat
        self.resolution = resolution
    }

    /// `v` mapped to 0…1 by the declared range, clamped (values outside the range
    /// are normal on real devices, RW-06); 0.5 for an empty range.
    public func normalised(_ v: Int32) -> Double {
        guard maximum > minimum else { return 0.5 }
        let n = (Double(v) - Double(minimum)) / (Double(maximum) - Double(minimum))
        return min(max(n, 0), 1)
    }
}

/// What an input device says about itself: from libevdev (live) or an evemu
/// recording's N:, I:, P:, B:, A: lines.
public struct EvdevDeviceDescription: Sendable, Equatable {
    /// The kernel's device name (UTF-8; may be a user-chosen Bluetooth alias).
    public var name: String
    public var bus: UInt16 = 0
    public var vendor: UInt16 = 0
    public var product: UInt16 = 0
    public var version: UInt16 = 0
    /// INPUT_PROP_* bits set.
    public var properties: Set<UInt16> = []
    /// Event types (EV_*) the device sends.
    public var eventTypes: Set<UInt16> = []
    /// EV_KEY codes (keys and buttons).
    public var keys: Set<UInt16> = []
    /// EV_REL codes.
    public var relative: Set<UInt16> = []
    /// EV_ABS axes by code.
    public var absolute: [UInt16: AbsInfo] = [:]
    /// The multitouch slot current when decoding starts (libevdev: the device's; a
    /// recording: 0, as evemu replays it).
    public var currentSlot: Int32 = 0
    /// Each multitouch slot's state when decoding starts: live devices opened while
    /// touched (libevdev's values); empty for recordings (all slots free).
    public var slots: [SlotState] = []

    public init(name: String) { self.name = name }

    public func hasAbs(_ code: UInt16) -> Bool { absolute[code] != nil }
    public func hasKey(_ code: UInt16) -> Bool { keys.contains(code) }
    public func hasProperty(_ p: UInt16) -> Bool { properties.contains(p) }

    /// "bus 0x0003 vendor 0x1b96 product 0x0001".
    public var idText: String {
        func h(_ v: UInt16) -> String { "0x" + String(v, radix: 16).leftPadded(to: 4) }
        return "bus \(h(bus)) vendor \(h(vendor)) product \(h(product))"
    }
}

/// One multitouch slot's values.
public struct SlotState: Sendable, Equatable {
    /// −1: no touch.
    public var trackingID: Int32
    public var x: Int32
    public var y: Int32
    /// ABS_MT_TOOL_TYPE (0 finger, 2 palm).
    public var toolType: Int32

    public init(trackingID: Int32, x: Int32, y: Int32, toolType: Int32 = 0) {
        self.trackingID = trackingID
        self.x = x
        self.y = y
        self.toolType = toolType
    }
}

extension String {
    func leftPadded(to n: Int, with c: Character = "0") -> String {
        count >= n ? self : String(repeating: c, count: n - count) + self
    }
}
