// SPDX-License-Identifier: GPL-3.0-or-later
/// How device coordinates become pad coordinates, and which way tilt goes
/// (`--rotate`, `--invert-x`, `--invert-y`, `--tilt-axis`, `--invert-tilt`).
///
/// Steps, in order: normalise each axis with its minimum and maximum — declared, or as
/// `calibration` gives or learns them — (`(v − min) / (max − min)`, clamped to 0…1;
/// screen y runs top to bottom); rotate
/// the point `rotation` degrees clockwise about the centre (for a screen mounted turned
/// that far counter-clockwise); invert x and/or y; flip y so the pad's y runs bottom
/// to top.
///
/// - Thread: any (a value).
public struct EvdevMapping: Sendable, Equatable {
    public enum Rotation: Int, Sendable, CaseIterable { case none = 0, quarter = 90, half = 180, threeQuarters = 270 }
    public enum TiltAxis: String, Sendable { case x, y }

    public var rotation: Rotation = .none
    public var invertX = false
    public var invertY = false
    /// The accelerometer axis whose gravity component drives the pan.
    public var tiltAxis: TiltAxis = .x
    public var invertTilt = false
    /// A multitouch device's touch pressure (ABS_MT_PRESSURE, over its axis' range)
    /// goes as each touch's timbre (`ControlEvent.timbre`), after its down and each move
    /// or pressure change: set when the instrument follows timbres (`EvdevSource`).
    public var pressure = false
    /// The position axes' ranges: declared (the default), given per device, or learnt
    /// (`--axis-range`).
    public var calibration = EvdevCalibration()

    public init(rotation: Rotation = .none, invertX: Bool = false, invertY: Bool = false,
                tiltAxis: TiltAxis = .x, invertTilt: Bool = false) {
        self.rotation = rotation
        self.invertX = invertX
        self.invertY = invertY
        self.tiltAxis = tiltAxis
        self.invertTilt = invertTilt
    }

    /// Pad (x, y), both 0…1, y bottom to top, for normalised screen coordinates
    /// (`sx`, `sy` in 0…1, sy top to bottom).
    public func pad(screenX sx: Double, screenY sy: Double) -> (x: Double, y: Double) {
        var (x, y) = (sx, sy)
        switch rotation {
        case .none: break
        case .quarter: (x, y) = (1 - sy, sx)
        case .half: (x, y) = (1 - sx, 1 - sy)
        case .threeQuarters: (x, y) = (sy, 1 - sx)
        }
        if invertX { x = 1 - x }
        if invertY { y = 1 - y }
        return (x, 1 - y)
    }
}
