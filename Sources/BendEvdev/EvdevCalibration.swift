// SPDX-License-Identifier: GPL-3.0-or-later
/// How a device's position axes span the pad (`--axis-range`): the range each axis
/// declares (the default), a range given for the device, or one learnt while it plays.
///
/// Some devices never reach the ends of their declared range — an eGalax screen (RW-14)
/// declares x 30…4040 but sends 426…3711 — so without calibration the ends of the pitch
/// range cannot be played. A given range (device units, as `evtest` or `devices` show
/// them) maps its ends to the pad's edges; `auto` starts each axis on the middle half of
/// its declared range and widens it to every value the device sends (also past the
/// declared ends), so a finger that goes further than any before sounds the end of the
/// pitch range, and the range fits the screen once its edges have been touched.
///
/// - Thread: any (a value).
public struct EvdevCalibration: Sendable, Equatable {
    /// Position axis ranges for one device, or for every device (`device` nil).
    public struct AxisRanges: Sendable, Equatable {
        /// USB/Bluetooth vendor and product ids (`I:` of an evemu recording, `devices`).
        public var device: (vendor: UInt16, product: UInt16)?
        /// Device units, minimum below maximum.
        public var x: ClosedRange<Int32>
        public var y: ClosedRange<Int32>

        public init(device: (vendor: UInt16, product: UInt16)? = nil, x: ClosedRange<Int32>, y: ClosedRange<Int32>) {
            self.device = device
            self.x = x
            self.y = y
        }

        public static func == (a: AxisRanges, b: AxisRanges) -> Bool {
            a.device?.vendor == b.device?.vendor && a.device?.product == b.device?.product && a.x == b.x && a.y == b.y
        }

        func applies(to d: EvdevDeviceDescription) -> Bool {
            device.map { $0.vendor == d.vendor && $0.product == d.product } ?? true
        }
    }

    /// Given ranges; the last that applies to a device wins (one for it by id over one
    /// for every device).
    public var ranges: [AxisRanges] = []
    /// Devices without a given range learn theirs.
    public var auto = false

    public init(ranges: [AxisRanges] = [], auto: Bool = false) {
        self.ranges = ranges
        self.auto = auto
    }

    /// Takes one `--axis-range` value: `auto`, `XMIN:XMAX,YMIN:YMAX` (every device) or
    /// `VVVV:PPPP=XMIN:XMAX,YMIN:YMAX` (the device with those hex vendor and product ids).
    /// - Throws: `EvdevCalibrationError` saying what was expected.
    public mutating func add(_ text: String) throws(EvdevCalibrationError) {
        if text == "auto" { auto = true; return }
        let parts = text.split(separator: "=", omittingEmptySubsequences: false)
        guard parts.count <= 2 else { throw EvdevCalibrationError(text, "more than one '='") }
        var device: (vendor: UInt16, product: UInt16)?
        if parts.count == 2 {
            let ids = parts[0].split(separator: ":", omittingEmptySubsequences: false)
            guard ids.count == 2, let v = UInt16(ids[0], radix: 16), let p = UInt16(ids[1], radix: 16), ids.allSatisfy({ $0.count == 4 }) else {
                throw EvdevCalibrationError(text, "'\(parts[0])' is not a device id VVVV:PPPP (hex vendor and product, e.g. 0eef:0001)")
            }
            device = (v, p)
        }
        let axes = parts[parts.count - 1].split(separator: ",", omittingEmptySubsequences: false)
        guard axes.count == 2 else { throw EvdevCalibrationError(text, "expected two ranges, x and y, separated by a comma") }
        func range(_ s: Substring, _ axis: String) throws(EvdevCalibrationError) -> ClosedRange<Int32> {
            let ends = s.split(separator: ":", omittingEmptySubsequences: false)
            guard ends.count == 2, let lo = Int32(ends[0]), let hi = Int32(ends[1]) else {
                throw EvdevCalibrationError(text, "the \(axis) range '\(s)' is not MIN:MAX (whole device units)")
            }
            guard lo < hi else { throw EvdevCalibrationError(text, "the \(axis) range '\(s)' is empty; its minimum must be below its maximum (--invert-\(axis) mirrors)") }
            return lo...hi
        }
        ranges.append(AxisRanges(device: device, x: try range(axes[0], "x"), y: try range(axes[1], "y")))
    }

    /// The scales of a device's position axes (`x`, `y`: their declared ranges).
    func scales(for device: EvdevDeviceDescription, x: AbsInfo, y: AbsInfo) -> (x: AxisScale, y: AxisScale) {
        if let given = ranges.last(where: { $0.applies(to: device) && $0.device != nil }) ?? ranges.last(where: { $0.applies(to: device) }) {
            return (AxisScale(given.x), AxisScale(given.y))
        }
        return auto ? (AxisScale(learning: x), AxisScale(learning: y)) : (AxisScale(x), AxisScale(y))
    }
}

/// An `--axis-range` value that is not one: the value and what was expected.
public struct EvdevCalibrationError: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ value: String, _ why: String) {
        description = "'\(value)': \(why); expected auto, XMIN:XMAX,YMIN:YMAX or VVVV:PPPP=XMIN:XMAX,YMIN:YMAX"
    }
}

/// One position axis onto 0…1: `(v − minimum) / (maximum − minimum)`, clamped; 0.5 for an
/// empty range. A learning axis widens its range to each value first.
struct AxisScale {
    var minimum: Double
    var maximum: Double
    let learns: Bool

    init(_ range: ClosedRange<Int32>) {
        minimum = Double(range.lowerBound)
        maximum = Double(range.upperBound)
        learns = false
    }

    init(_ axis: AbsInfo) {
        minimum = Double(axis.minimum)
        maximum = Double(axis.maximum)
        learns = false
    }

    /// Starts on the middle half of the declared range.
    init(learning axis: AbsInfo) {
        let quarter = (Double(axis.maximum) - Double(axis.minimum)) / 4
        minimum = Double(axis.minimum) + max(quarter, 0)
        maximum = Double(axis.maximum) - max(quarter, 0)
        learns = true
    }

    mutating func normalised(_ v: Int32) -> Double {
        let value = Double(v)
        if learns {
            minimum = min(minimum, value)
            maximum = max(maximum, value)
        }
        guard maximum > minimum else { return 0.5 }
        return min(max((value - minimum) / (maximum - minimum), 0), 1)
    }
}
