// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import Glibc

/// Accelerometer → tilt: the gravity component along the chosen axis over the
/// magnitude of the whole vector, so the resting pose gives 0 whatever axis gravity
/// rests on, a 45° roll ±0.71 and a 90° roll ±1, independent of the device's units.
///
/// Each axis is first divided by its resolution (units per g) when the device gives
/// one, so axes of different scales compare. The ratio is clamped to −1…1 and smoothed
/// by a one-pole filter (`smoothing` of the way to the new value per report, ~4
/// reports to settle at 100 Hz: 40 ms); a new tilt is sent only when it moved by at
/// least `deadband`, so jitter at rest does not move the pan. A zero or non-finite
/// vector (free fall, garbage) changes nothing: no NaN ever leaves.
struct TiltFilter {
    static let smoothing = 0.35
    /// Pan units; 0.01 of pan is ≈ 0.07 dB on either side: inaudible.
    static let deadband = 0.01

    var values: [Double]  // x, y, z in raw units
    let scales: [Double]  // 1 / resolution (or 1)
    let axisIndex: Int
    let sign: Double
    var smoothed: Double?
    var sent: Double?

    init(device: EvdevDeviceDescription, mapping: EvdevMapping) {
        let axes = [EvdevCode.absX, EvdevCode.absY, EvdevCode.absZ].map { device.absolute[$0] }
        values = axes.map { Double($0?.value ?? 0) }
        scales = axes.map { a in a.map { $0.resolution > 0 ? 1 / Double($0.resolution) : 1 } ?? 1 }
        axisIndex = mapping.tiltAxis == .x ? 0 : 1
        sign = mapping.invertTilt ? -1 : 1
    }

    mutating func frame(_ events: [InputEvent]) -> [ControlEvent] {
        var changed = false
        for e in events where e.type == EvdevCode.evAbs && e.code <= EvdevCode.absZ {
            values[Int(e.code)] = Double(e.value)
            changed = true
        }
        guard changed else { return [] }
        let g = zip(values, scales).map { $0 * $1 }
        let magnitude = (g[0] * g[0] + g[1] * g[1] + g[2] * g[2]).squareRoot()
        guard magnitude.isFinite, magnitude > 1e-12 else { return [] }
        let raw = min(max(sign * g[axisIndex] / magnitude, -1), 1)
        guard raw.isFinite else { return [] }
        let s = smoothed.map { $0 + (raw - $0) * TiltFilter.smoothing } ?? raw
        smoothed = s
        if let last = sent, abs(s - last) < TiltFilter.deadband { return [] }
        sent = s
        return [.tilt(s)]
    }
}
