// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl

extension FuzzTarget {
    /// Scala scale files (.scl): what parses is a usable scale (degrees ascending from 0,
    /// below a finite positive period; every step's cents finite and ascending, and the
    /// nearest step of a step's own cents is that step). Seeds: realworld/scales, the tests'.
    static let scala = FuzzTarget(name: "scala", maxLength: 8192) { bytes in
        guard let scale = try? ScalaFile.parse(Array(bytes), path: "fuzz.scl") else { return }
        let d = scale.degrees
        guard d.first == 0, scale.periodCents.isFinite, scale.periodCents > 0,
              zip(d, d.dropFirst()).allSatisfy({ $0 < $1 }), d.last! < scale.periodCents else {
            violated("scala", "degrees \(d.prefix(8)) period \(scale.periodCents)")
        }
        var previous = -Double.infinity
        let span = min(d.count, 50)
        for k in -2 * span...2 * span {
            let c = scale.cents(ofStep: k)
            if !(c.isFinite && c > previous) { violated("scala", "step \(k) at \(c) cents after \(previous)") }
            previous = c
            let n = scale.nearestStep(cents: c)
            if abs(scale.cents(ofStep: n) - c) > 1e-6 { violated("scala", "nearest step of step \(k) (\(c) cents) is \(n)") }
        }
    }
}
