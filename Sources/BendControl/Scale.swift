// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// A scale: the pitches of one period, in cents above the root, and the period that
/// repeats them (an octave, 1200 cents, for most; Bohlen–Pierce repeats at 3/1,
/// 1901.955 cents). It is numbered two ways:
///
/// - as the file lists it (`listed`, `cents(ofListedStep:)`): degree d is the d-th pitch
///   of the file, in its order, as Scala numbers them and a keyboard mapping names them
///   (so MIDI keys play them), a pitch outside the first period or out of order kept
///   where it is;
/// - sorted (`degrees`, `cents(ofStep:)`): the set of pitches in one period, ascending,
///   for the pad's guides, rounding and labels.
///
/// Either way steps run from the root (step 0) up and down across periods: step k is
/// degree k mod n of period ⌊k/n⌋ (n the count of that numbering).
public struct Scale: Sendable, Equatable {
    /// For messages and the pad: a built-in's name or the Scala file's description.
    public var name: String
    /// Cents above the root of each degree in one period: ascending, the first 0, all
    /// below `periodCents`.
    public let degrees: [Double]
    /// Cents above the root of each degree in the file's order: 0 (the root, which a
    /// Scala file leaves out), then every pitch it lists before the period, unfolded and
    /// duplicates kept (Scala's and Surge's tuning-library numbering).
    public let listed: [Double]
    /// Cents of the period, > 0.
    public let periodCents: Double

    /// A scale from pitches as a Scala file lists them: cents above the root, the root
    /// itself left out, the last one the period (> 0 cents). `listed` keeps them as they
    /// come; in `degrees` pitches outside the first period are folded into it and
    /// duplicates count once.
    public init?(name: String, pitches: [Double]) {
        guard let period = pitches.last, period > 0, period.isFinite, pitches.allSatisfy(\.isFinite) else { return nil }
        var folded = [0.0]
        for p in pitches.dropLast() {
            var r = p.truncatingRemainder(dividingBy: period)
            if r < 0 { r += period }
            if r > period - 1e-9 { r = 0 }
            folded.append(r)
        }
        folded.sort()
        var unique: [Double] = []
        for d in folded where unique.last.map({ d - $0 > 1e-9 }) ?? true { unique.append(d) }
        self.name = name
        self.degrees = unique
        self.listed = [0] + pitches.dropLast()
        self.periodCents = period
    }

    /// Equal divisions of the octave: `n` steps of 1200/n cents, n ≥ 1.
    public static func edo(_ n: Int) -> Scale {
        Scale(name: "edo:\(n)", pitches: (1...max(n, 1)).map { 1200 * Double($0) / Double(max(n, 1)) })!
    }

    /// The built-in scales by name, in 12-TET cents above the root.
    public static let builtIns: [(name: String, semitones: [Double])] = [
        ("chromatic", Array(1...12).map(Double.init)),
        ("major", [2, 4, 5, 7, 9, 11, 12]),
        ("minor", [2, 3, 5, 7, 8, 10, 12]),
        ("harmonic-minor", [2, 3, 5, 7, 8, 11, 12]),
        ("pentatonic", [2, 4, 7, 9, 12]),
        ("minor-pentatonic", [3, 5, 7, 10, 12]),
        ("whole-tone", [2, 4, 6, 8, 10, 12]),
    ]

    /// Largest n of `edo:n`.
    public static let maximumEDO = 1000

    /// A built-in scale: one of `builtIns`' names or `edo:N` (1 ≤ N ≤ `maximumEDO`), in
    /// any case; nil for any other name.
    public static func builtIn(_ name: String) -> Scale? {
        let name = name.lowercased()  // "Major" as "major"
        if name.hasPrefix("edo:") {
            guard let n = Int(name.dropFirst(4)), (1...maximumEDO).contains(n) else { return nil }
            return edo(n)
        }
        guard let entry = builtIns.first(where: { $0.name == name }) else { return nil }
        return Scale(name: name, pitches: entry.semitones.map { $0 * 100 })
    }

    /// Cents above the root of step `k` (negative below the root).
    public func cents(ofStep k: Int) -> Double { cents(ofStep: k, in: degrees) }

    /// Cents above the root of step `k` in the file's numbering (`listed`): degree
    /// k mod n of period ⌊k/n⌋, n = `listed.count` (negative below the root).
    public func cents(ofListedStep k: Int) -> Double { cents(ofStep: k, in: listed) }

    /// Step `k` of a numbering of one period (`degrees` or `listed`): degree k mod n of
    /// period ⌊k/n⌋ (floor division, so negative steps fall in the periods below).
    private func cents(ofStep k: Int, in numbering: [Double]) -> Double {
        let n = numbering.count
        let period = k >= 0 ? k / n : -((-k + n - 1) / n)
        return Double(period) * periodCents + numbering[k - period * n]
    }

    /// The step in the file's numbering nearest to `cents` above the root: the lower
    /// pitch at a tie, the first listed of equal pitches.
    public func nearestListedStep(cents: Double) -> Int {
        guard cents.isFinite else { return 0 }
        let n = listed.count
        var best = 0, bestDistance = Double.infinity, bestCents = Double.infinity
        for (d, c) in listed.enumerated() {
            let p = ((cents - c) / periodCents).rounded()
            guard abs(p) < Double(Int32.max) else { continue }
            for q in [p - 1, p, p + 1] {
                let at = c + q * periodCents, distance = abs(at - cents)
                if distance < bestDistance - 1e-9 || (abs(distance - bestDistance) <= 1e-9 && at < bestCents - 1e-9) {
                    best = Int(q) * n + d
                    bestDistance = distance
                    bestCents = at
                }
            }
        }
        return best
    }

    /// The degree (0…n−1) of step `k`.
    public func degree(ofStep k: Int) -> Int {
        let n = degrees.count
        return ((k % n) + n) % n
    }

    /// The step nearest to `cents` above the root (the lower one at an exact midpoint).
    public func nearestStep(cents: Double) -> Int {
        guard cents.isFinite else { return 0 }
        let n = degrees.count
        let p = (cents / periodCents).rounded(.down)
        let r = cents - p * periodCents
        // The first degree above r (binary search; degrees ascend), then the nearer of
        // it (or the next period's root) and the one below.
        var lo = 0, hi = n
        while lo < hi {
            let mid = (lo + hi) / 2
            if degrees[mid] <= r { lo = mid + 1 } else { hi = mid }
        }
        let above = lo < n ? degrees[lo] : periodCents
        // lo is 0 only when rounding left r a hair below 0 (the root's degree).
        let best = lo == 0 ? 0 : abs(above - r) < abs(r - degrees[lo - 1]) ? lo : lo - 1
        let periods = Int(max(min(p, Double(Int32.max)), Double(Int32.min)))
        return periods * n + best
    }

    /// 12-TET note names, sharps, from C.
    public static let noteNames = ["C", "C#", "D", "D#", "E", "F", "F#", "G", "G#", "A", "A#", "B"]

    /// Each degree's 12-TET note name when this is a 12-note-like scale (the period an
    /// octave within a cent and every degree within 30 cents of a different 12-TET note
    /// above the root), nil otherwise (step numbers stand in).
    /// - Parameter rootNote: the root as a MIDI note number (69 = A4), fractional allowed.
    public func noteNames(rootNote: Double) -> [String]? {
        guard abs(periodCents - 1200) < 1, degrees.count <= 12 else { return nil }
        var used = Set<Int>()
        var names: [String] = []
        for d in degrees {
            let note = (rootNote + d / 100).rounded()
            guard abs(rootNote + d / 100 - note) * 100 <= 30 else { return nil }
            let pc = ((Int(note) % 12) + 12) % 12
            guard used.insert(pc).inserted else { return nil }
            names.append(Scale.noteNames[pc])
        }
        return names
    }
}
