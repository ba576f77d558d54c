import Foundation

/// Finds the default tone, Assets/synth_tone_mono.caf: `$BENDSYNTH_ASSETS` first, then
/// the Assets folder of the checkout the running executable was built in (walking up
/// from it), then /usr/local/share/bendsynth and /usr/share/bendsynth.
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

/// Where an asset `name` (a file or folder of Assets) may be, in the order looked:
/// `$BENDSYNTH_ASSETS/name`, `Assets/name` in the folders above the running executable,
/// /usr/local/share/bendsynth/name, /usr/share/bendsynth/name.
func assetCandidates(_ name: String) -> [String] {
    var candidates: [String] = []
    if let dir = ProcessInfo.processInfo.environment["BENDSYNTH_ASSETS"] {
        candidates.append(dir + "/" + name)
    }
    var dir = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
                  ?? CommandLine.arguments[0]).deletingLastPathComponent()
    for _ in 0..<6 {
        candidates.append(dir.appendingPathComponent("Assets/" + name).path)
        dir.deleteLastPathComponent()
    }
    return candidates + ["/usr/local/share/bendsynth/" + name, "/usr/share/bendsynth/" + name]
}
