// SPDX-License-Identifier: GPL-3.0-or-later
/// A region's `sample` that names no file but one of the waveforms the format's players
/// make themselves (sfizz: `*sine`, `*saw`, `*square`, `*triangle`, `*noise`, `*silence`).
/// `default_path` is not applied to them. They play at each key's own pitch (sfizz's
/// oscillators sound the frequency of the key, whatever `pitch_keycenter` says), looped.
public enum SFZGenerator: String, Sendable, Equatable, CaseIterable {
    case sine = "*sine"
    case saw = "*saw"
    case square = "*square"
    case triangle = "*triangle"
    case noise = "*noise"
    case silence = "*silence"

    /// The names, for a message: "*sine, *saw, …".
    public static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }
}
