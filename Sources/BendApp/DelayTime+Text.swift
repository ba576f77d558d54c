// SPDX-License-Identifier: GPL-3.0-or-later
import BendEngine

extension DelayTime {
    /// A delay time as a player writes it: milliseconds (`250`, `250ms`, `187.5`) or a
    /// note value of the tempo (`1/4`, `1/8.` dotted, `1/4t` triplet; 1/1 … 1/64).
    /// Nil for anything else.
    init?(text: String) {
        var s = Substring(text)
        if s.hasPrefix("1/") {
            s = s.dropFirst(2)
            var scale = 1.0
            if s.hasSuffix(".") { scale = 1.5; s = s.dropLast() } else if s.hasSuffix("t") { scale = 2.0 / 3; s = s.dropLast() }
            guard let d = Int(s), [1, 2, 4, 8, 16, 32, 64].contains(d) else { return nil }
            self = .beats(4 / Double(d) * scale)
            return
        }
        if s.hasSuffix("ms") { s = s.dropLast(2) }
        guard let ms = Double(s), ms.isFinite, ms > 0 else { return nil }
        self = .milliseconds(ms)
    }
}
