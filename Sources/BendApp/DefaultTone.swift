import Foundation

/// Finds the default tone, synth_tone_mono.caf, in `Installation.assetDirectories()`.
enum DefaultTone {
    static let fileName = "synth_tone_mono.caf"

    static func path() throws -> String {
        let candidates = assetCandidates(fileName)
        if let found = candidates.first(where: { FileManager.default.isReadableFile(atPath: $0) }) {
            return found
        }
        throw AppError.input("default tone '\(fileName)' not found (looked in: \(candidates.joined(separator: ", "))); give one with --tone FILE or set BENDSYNTH_ASSETS")
    }
}

/// Where an asset `name` (a file or folder of Assets: the tone, web/) may be, in the
/// order looked: each of `Installation.assetDirectories()`.
func assetCandidates(_ name: String) -> [String] {
    Installation.assetDirectories().map { $0 + "/" + name }
}
