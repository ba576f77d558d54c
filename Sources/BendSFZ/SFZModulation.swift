// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// CC-driven opcodes (`pan_oncc10=200`, `ampeg_sustain_oncc103=100`, …) and controllers'
/// initial values (`set_cc103=127`), taken at load: each modulated opcode's value is its
/// own plus depth × (the controller's initial value / 127), as sfizz computes it before
/// any CC arrives. A controller without `set_ccN` starts at 0, as in sfizz. Live CC
/// changes do not move them yet (the load note says so), but a program whose sustain or
/// pan is set by a CC plays as published instead of silent or hard left.
public enum SFZModulation {
    /// The opcodes a CC may drive, by the name a region keeps (aliases to it).
    static let targets: [String: String] = [
        "amplitude": "amplitude", "volume": "volume", "gain": "volume", "pan": "pan", "tune": "tune", "pitch": "tune",
        "ampeg_attack": "ampeg_attack", "ampeg_decay": "ampeg_decay", "ampeg_sustain": "ampeg_sustain",
        "ampeg_release": "ampeg_release",
    ]

    /// `name` as a CC-driven opcode: its target and controller ("pan_oncc10" → pan, 10;
    /// SFZ v1's "ampeg_sustaincc103" and "gain_cc7" too), or nil.
    public static func parse(_ name: String) -> (target: String, cc: Int)? {
        // The controller's digits at the end, then "_oncc", "_cc" or "cc" before them.
        let digits = name.reversed().prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, let cc = Int(String(digits.reversed())), (0...127).contains(cc) else { return nil }
        let head = name.dropLast(digits.count)
        for marker in ["_oncc", "_cc", "cc"] where head.hasSuffix(marker) {
            if let target = targets[String(head.dropLast(marker.count))] { return (target, cc) }
        }
        return nil
    }

    /// The controller `set_ccN` names, or nil.
    public static func setCC(_ name: String) -> Int? {
        guard name.hasPrefix("set_cc"), let cc = Int(name.dropFirst(6)), (0...127).contains(cc) else { return nil }
        return cc
    }

    /// The range of a depth for `target`, and its unit, for the message of a bad value.
    static func depthRange(_ target: String) -> (ClosedRange<Double>, String) {
        switch target {
        case "pan": (-200...200, "")
        case "volume": (-144...48, " dB")
        case "tune": (-9600...9600, " cents")
        case "amplitude", "ampeg_sustain": (-100...100, " %")
        default: (-100...100, " s")
        }
    }

    /// `amplitude` (percent) as decibels to add to `volume` (−144 for 0).
    static func decibels(amplitude: Double) -> Double { amplitude > 0 ? 20 * log10(min(amplitude, 100) / 100) : -144 }

    /// Applies one CC's drive to `region` (and its `amplitude`, percent, which the region
    /// keeps as `volume`): `depth` × `value` (0…1).
    static func apply(_ target: String, depth: Double, value x: Double, to region: inout SFZRegion, amplitude: inout Double) {
        let d = depth * x
        switch target {
        case "amplitude": amplitude += d
        case "volume": region.volume += d
        case "pan": region.pan = min(max(region.pan + d, -100), 100)
        case "tune": region.tune += d
        // The format's defaults where the opcode itself is not given.
        case "ampeg_attack": region.attack = max((region.attack ?? 0) + d, 0)
        case "ampeg_decay": region.decay = max((region.decay ?? 0) + d, 0)
        case "ampeg_sustain": region.sustain = min(max((region.sustain ?? 100) + d, 0), 100)
        case "ampeg_release": region.release = max((region.release ?? 0.001) + d, 0)
        default: break
        }
    }
}
