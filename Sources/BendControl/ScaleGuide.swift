// SPDX-License-Identifier: GPL-3.0-or-later
/// One guide line of a pad: where a scale step lies on the pad's x and what to call it.
/// Plain data (no drawing), so every pad can draw them: the terminal pad, the web pad.
public struct ScaleGuide: Sendable, Equatable, Hashable {
    /// Pad x, 0…1 (left to right).
    public var x: Double
    /// The step: 0 = the root, negative below it.
    public var step: Int
    /// The step's degree in its period, 0…n−1 (0: the root or one of its periods).
    public var degree: Int
    /// Pitch ratio to the tone's pitch.
    public var ratio: Double
    /// Its 12-TET note name where the scale is 12-note-like ("C#"), else the degree ("3").
    public var label: String
    /// The label with the step's octave where it has note names ("C#4"), else the degree.
    /// Pads label the roots' guides with it, so the octave of every step can be told.
    public var name: String

    public init(x: Double, step: Int, degree: Int, ratio: Double, label: String, name: String? = nil) {
        self.x = x
        self.step = step
        self.degree = degree
        self.ratio = ratio
        self.label = label
        self.name = name ?? label
    }
}
