import Foundation

/// Finds the default tone, Assets/synth_tone_mono.caf: `$BENDSYNTH_ASSETS` first, then
/// the Assets folder of the checkout the running executable was built in (walking up
/// from it), then /usr/local/share/bendsynth and /usr/share/bendsynth.
enum DefaultTone {
    static let fileName = "synth_tone_mono.caf"

    static func path() throws -> String {
        var candidates: [String] = []
        if let dir = ProcessInfo.processInfo.environment["BENDSYNTH_ASSETS"] {
            candidates.append(dir + "/" + fileName)
        }
        var dir = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
                      ?? CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<6 {
            candidates.append(dir.appendingPathComponent("Assets/" + fileName).path)
            dir.deleteLastPathComponent()
        }
        candidates += ["/usr/local/share/bendsynth/" + fileName, "/usr/share/bendsynth/" + fileName]
        if let found = candidates.first(where: { FileManager.default.isReadableFile(atPath: $0) }) {
            return found
        }
        throw AppError.input("default tone '\(fileName)' not found (looked in: \(candidates.joined(separator: ", "))); give one with --tone FILE or set BENDSYNTH_ASSETS")
    }
}
