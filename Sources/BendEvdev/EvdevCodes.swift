// SPDX-License-Identifier: GPL-3.0-or-later
/// The evdev codes the decoder uses, as in linux/input-event-codes.h (a test checks
/// them against the kernel header). Kept as `UInt16` so the pure decoder needs no C.
public enum EvdevCode {
    // Event types.
    public static let evSyn: UInt16 = 0x00
    public static let evKey: UInt16 = 0x01
    public static let evRel: UInt16 = 0x02
    public static let evAbs: UInt16 = 0x03
    public static let evMax: UInt16 = 0x1f
    // EV_SYN codes.
    public static let synReport: UInt16 = 0
    public static let synMTReport: UInt16 = 2
    public static let synDropped: UInt16 = 3
    // EV_KEY codes.
    public static let btnTouch: UInt16 = 0x14a
    public static let btnToolFinger: UInt16 = 0x145
    public static let btnToolPen: UInt16 = 0x140
    public static let keyMax: UInt16 = 0x2ff
    // EV_REL codes.
    public static let relX: UInt16 = 0x00
    public static let relY: UInt16 = 0x01
    // EV_ABS codes.
    public static let absX: UInt16 = 0x00
    public static let absY: UInt16 = 0x01
    public static let absZ: UInt16 = 0x02
    public static let absRX: UInt16 = 0x03
    public static let absMTSlot: UInt16 = 0x2f
    public static let absMTPositionX: UInt16 = 0x35
    public static let absMTPositionY: UInt16 = 0x36
    public static let absMTToolType: UInt16 = 0x37
    public static let absMTPressure: UInt16 = 0x3a
    public static let absMTTrackingID: UInt16 = 0x39
    public static let absMax: UInt16 = 0x3f
    /// ABS_MT_TOOL_TYPE value of a palm.
    public static let mtToolPalm: Int32 = 2
    // INPUT_PROP_* bits.
    public static let propPointer: UInt16 = 0
    public static let propDirect: UInt16 = 1
    public static let propButtonpad: UInt16 = 2
    public static let propSemiMT: UInt16 = 3
    public static let propAccelerometer: UInt16 = 6
    public static let propMax: UInt16 = 0x1f
}

/// One kernel input event (`struct input_event`) without the C: its time and what it says.
public struct InputEvent: Sendable, Equatable, CustomStringConvertible {
    /// Timestamp, microseconds (the kernel's `tv_sec·10⁶ + tv_usec`; may be epoch-based).
    public var micros: Int64
    public var type: UInt16
    public var code: UInt16
    public var value: Int32

    public init(micros: Int64, type: UInt16, code: UInt16, value: Int32) {
        self.micros = micros
        self.type = type
        self.code = code
        self.value = value
    }

    public var description: String {
        String(format: "%lld.%06lld %04x %04x %d", micros / 1_000_000, micros % 1_000_000, Int(type), Int(code), Int(value))
    }
}
