// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import Glibc

/// The files `play` records a take into (`--record`, `--record-touches`, `--record-midi`).
/// A take cannot be made again, so a recording never replaces an existing file unless
/// `--overwrite` is given: when any of the names asked for exists, the take goes to
/// numbered names instead — one number for all its files, the smallest free for every
/// one (`take.wav` + `take.jsonl` → `take-1.wav` + `take-1.jsonl`, then `take-2…`) —
/// and play says so on standard error. The names are claimed by creating the files
/// (`O_EXCL`), so two plays started at once never share one. When play fails before its
/// output starts, the files it claimed are removed again (`discardUnlessStarted`): no
/// empty or half-made take is left.
public final class RecordingFiles: @unchecked Sendable {
    /// The names the take is written to, in the order asked for.
    public let paths: [String]
    /// The files created here (removed when play fails before it starts).
    private let claimed: [String]
    /// Set once the output has started: from then on the take is kept.
    public var started = false

    private init(paths: [String], claimed: [String]) {
        self.paths = paths
        self.claimed = claimed
    }

    /// Picks and claims the names for `requested` (option, path) pairs.
    /// - Parameter say: told the line to print when the names differ from those asked for.
    /// - Throws: `InstrumentError(.runtime)` when no name can be created (e.g. 9999 takes exist).
    public static func claim(_ requested: [(option: String, path: String)], overwrite: Bool,
                      say: (String) -> Void) throws -> RecordingFiles {
        let asked = requested.map(\.path)
        if overwrite || asked.isEmpty { return RecordingFiles(paths: asked, claimed: []) }
        for n in 0...9999 {
            let names = n == 0 ? asked : asked.map { numbered($0, n) }
            guard names.allSatisfy({ !exists($0) }) else { continue }
            var created: [String] = []
            for name in names {
                let fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
                guard fd >= 0 else { break }
                close(fd)
                created.append(name)
            }
            guard created.count == names.count else {  // taken meanwhile: the next number
                created.forEach { unlink($0) }
                continue
            }
            if n > 0 {
                let existing = asked.filter(exists)
                say("'\(existing.joined(separator: "', '"))' exist\(existing.count == 1 ? "s" : ""): this take is recorded to '\(names.joined(separator: "', '"))' (--overwrite replaces instead)")
            }
            return RecordingFiles(paths: names, claimed: created)
        }
        throw InstrumentError(.runtime, "play: cannot find a free name for the take beside '\(asked[0])' (tried up to -9999); move old takes away or give --overwrite")
    }

    /// `dir/take.wav` → `dir/take-N.wav`; a name without an extension gets `-N` at its end.
    public static func numbered(_ path: String, _ n: Int) -> String {
        let slash = path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
        let name = path[slash...]
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return path + "-\(n)" }
        return String(path[..<dot]) + "-\(n)" + String(path[dot...])
    }

    /// Removes the files claimed here unless the output started. - Thread: setup.
    public func discardUnlessStarted() {
        guard !started else { return }
        claimed.forEach { unlink($0) }
    }

    private static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }
}
