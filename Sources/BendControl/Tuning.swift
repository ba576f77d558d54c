// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// A scale placed at a pitch: its root as a ratio to the tone's pitch. Converts pitch
/// ratios (what the engine plays) to cents above the root and finds the nearest step.
public struct Tuning: Sendable, Equatable {
    public var scale: Scale
    /// The root's pitch ratio to the tone's pitch (1: the tone as recorded), > 0.
    public var rootRatio: Double
    /// The root as a MIDI note number (fractional: 69 = A4 = 440 Hz), for note names.
    public var rootNote: Double

    /// - Parameters:
    ///   - rootRatio: the root's ratio to the tone's pitch (`--scale-root HZ` / the
    ///     tone's Hz), > 0.
    ///   - toneNote: the MIDI note the tone sounds at as recorded (69: A4).
    public init(scale: Scale, rootRatio: Double = 1, toneNote: Double = 69) {
        self.scale = scale
        self.rootRatio = rootRatio > 0 && rootRatio.isFinite ? rootRatio : 1
        self.rootNote = toneNote + 12 * log2(self.rootRatio)
    }

    /// Cents of `ratio` above the root (−∞ for 0).
    public func cents(ratio: Double) -> Double { 1200 * log2(ratio / rootRatio) }

    /// The pitch ratio `cents` above the root.
    public func ratio(cents: Double) -> Double { rootRatio * pow(2, cents / 1200) }

    /// The step nearest to `ratio`, and `ratio`'s offset from it in cents (+ above).
    public func nearest(ratio: Double) -> (step: Int, offsetCents: Double) {
        let c = cents(ratio: ratio)
        guard c.isFinite else { return (0, 0) }
        let step = scale.nearestStep(cents: c)
        return (step, c - scale.cents(ofStep: step))
    }

    /// The label of step `k`: its 12-TET note name where the scale is 12-note-like,
    /// otherwise its degree number (0 = the root).
    public func label(ofStep k: Int) -> String {
        let d = scale.degree(ofStep: k)
        if let names = noteNames { return names[d] }
        return String(d)
    }

    /// The name of step `k` with its octave where the scale is 12-note-like ("C#4",
    /// scientific pitch: A4 = MIDI note 69, octaves from C), otherwise its degree number.
    public func name(ofStep k: Int) -> String {
        guard noteNames != nil else { return String(scale.degree(ofStep: k)) }
        return Self.noteName(midi: rootNote + scale.cents(ofStep: k) / 100)
    }

    /// The 12-TET name with octave of the note nearest to MIDI note `midi` ("A4" for 69).
    public static func noteName(midi: Double) -> String {
        guard midi.isFinite, abs(midi) < 1e6 else { return "?" }
        let note = Int(midi.rounded())
        let pc = ((note % 12) + 12) % 12
        let octave = Int((Double(note) / 12).rounded(.down)) - 1
        return Scale.noteNames[pc] + String(octave)
    }

    /// The MIDI note of a note name with its octave ("C4" 60, "A#3" 58, "Bb2" 46,
    /// "c-1" 0; scientific pitch, A4 = 69; letter in either case, `#`/`♯` or `b`/`♭`),
    /// 0…127; nil for anything else.
    public static func midiNote(named text: String) -> Int? {
        var scalars = Array(text.unicodeScalars)[...]
        guard let letter = scalars.popFirst(), let pc = ["c": 0, "d": 2, "e": 4, "f": 5, "g": 7, "a": 9, "b": 11][Character(letter).lowercased()] else { return nil }
        var note = pc
        if let a = scalars.first, a == "#" || a == "♯" { note += 1; scalars = scalars.dropFirst() }
        else if let a = scalars.first, a == "b" || a == "♭" { note -= 1; scalars = scalars.dropFirst() }
        guard !scalars.isEmpty, let octave = Int(String(String.UnicodeScalarView(scalars))), (-1...9).contains(octave) else { return nil }
        let midi = 12 * (octave + 1) + note
        return (0...127).contains(midi) ? midi : nil
    }

    /// A pitch as the pads show it: the nearest step's name with its octave and the
    /// offset in cents ("A#4+30¢", "3-5¢" for a scale without note names).
    public func pitchText(ratio: Double) -> String {
        let (step, offset) = nearest(ratio: ratio)
        let cents = Int(offset.rounded())
        return name(ofStep: step) + (cents >= 0 ? "+" : "") + String(cents) + "¢"
    }

    /// Note names per degree (nil: the scale is not 12-note-like; see `Scale.noteNames`).
    public var noteNames: [String]? { scale.noteNames(rootNote: rootNote) }

    /// Where the scale's steps fall on the pad: one guide per step whose ratio `map`
    /// puts inside the pad (0 < x < 1), from left to right. At most `limit` guides (the
    /// steps nearest the root first when there are more).
    /// Plain data for any pad (terminal, web) to draw.
    public func guides(pitchMap map: PitchMap, limit: Int = 512) -> [ScaleGuide] {
        let low = map.ratio(x: 0), high = map.ratio(x: 1)
        let lowStep = low > 0 ? scale.nearestStep(cents: cents(ratio: low)) - 1 : scale.nearestStep(cents: -12_000)
        let highStep = scale.nearestStep(cents: cents(ratio: high)) + 1
        guard highStep >= lowStep else { return [] }
        var steps = Array(lowStep...highStep)
        if steps.count > limit {
            steps = Array(steps.sorted { abs($0) < abs($1) }.prefix(limit)).sorted()
        }
        let names = noteNames
        return steps.compactMap { k in
            let r = ratio(cents: scale.cents(ofStep: k))
            guard r > low, r < high else { return nil }
            let x = map.x(ratio: r)
            guard x > 0, x < 1 else { return nil }
            let d = scale.degree(ofStep: k)
            return ScaleGuide(x: x, step: k, degree: d, ratio: r, label: names?[d] ?? String(d),
                              name: names == nil ? String(d) : Self.noteName(midi: rootNote + scale.cents(ofStep: k) / 100))
        }
    }
}
