// SPDX-License-Identifier: GPL-3.0-or-later
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

/// Axis pair → pad point through the axes' ranges (declared, given or learnt:
/// `EvdevCalibration`) and the mapping.
struct PositionMap {
    var x: AxisScale
    var y: AxisScale
    let mapping: EvdevMapping
    init(device: EvdevDeviceDescription, xAxis: AbsInfo, yAxis: AbsInfo, mapping: EvdevMapping) {
        (x, y) = mapping.calibration.scales(for: device, x: xAxis, y: yAxis)
        self.mapping = mapping
    }
    mutating func pad(_ x: Int32, _ y: Int32) -> PadPoint {
        let p = mapping.pad(screenX: self.x.normalised(x), screenY: self.y.normalised(y))
        return PadPoint(x: p.x, y: p.y)
    }
}
