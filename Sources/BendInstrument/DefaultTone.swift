// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import Foundation

/// Finds the default tone, synth_tone_mono.caf, in the asset folders.
public enum DefaultTone {
    public static let fileName = "synth_tone_mono.caf"

    /// - Parameter directories: where to look, in order (`Installation.assetDirectories()`).
    /// - Throws: `InstrumentError(.input)` naming every place looked.
    public static func path(in directories: [String] = Installation.assetDirectories()) throws -> String {
        let candidates = directories.map { $0 + "/" + fileName }
        if let found = candidates.first(where: { FileManager.default.isReadableFile(atPath: $0) }) {
            return found
        }
        throw InstrumentError(.input, "default tone '\(fileName)' not found (looked in: \(candidates.joined(separator: ", "))); give one with --tone FILE or set BENDSYNTH_ASSETS")
    }
}
