// SPDX-License-Identifier: GPL-3.0-or-later
import BendPeers
import BendWeb
import Foundation

/// Where an installed or checked-out bendsynth keeps its assets (the default tone,
/// demo.jsonl, the web page).
public enum Installation {
    /// Folders to look in, in order: `$BENDSYNTH_ASSETS`; `PREFIX/share/bendsynth` of
    /// the running executable (`PREFIX/bin/bendsynth`), so an installed binary uses its
    /// own files, never a checkout's; the Assets folder of the checkout the executable
    /// was built in (walking up from it); /usr/local/share/bendsynth; /usr/share/bendsynth.
    /// Each folder once.
    public static func assetDirectories() -> [String] {
        var dirs: [String] = []
        if let dir = ProcessInfo.processInfo.environment["BENDSYNTH_ASSETS"], !dir.isEmpty { dirs.append(dir) }
        let exe = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
                      ?? CommandLine.arguments[0])
        var dir = exe.deletingLastPathComponent()
        if dir.lastPathComponent == "bin" {
            dirs.append(dir.deletingLastPathComponent().appendingPathComponent("share/bendsynth").path)
        } else {
            // Up to 6 levels, stopping at / (a binary copied near the root looks there once).
            for _ in 0..<6 {
                dirs.append(dir.appendingPathComponent("Assets").path)
                guard dir.path != "/" else { break }
                dir.deleteLastPathComponent()
            }
        }
        dirs += ["/usr/local/share/bendsynth", "/usr/share/bendsynth"]
        var seen = Set<String>()
        return dirs.filter { seen.insert($0).inserted }
    }
}

extension Installation {
    /// The folder of the web pad's files (`web` among the assets): the first holding a
    /// readable index.html; nil when none does.
    public static var webAssets: String? {
        assetCandidates("web").first { FileManager.default.isReadableFile(atPath: $0 + "/index.html") }
    }

    /// Files a live instrument may read that no option names, made in this run when
    /// missing: the default shared key (`peers` without a key file of their own), the
    /// default web certificate and its key (the web pad without `--web-cert`), and the
    /// web page's files in `webAssets`.
    public static func implicitInputs(defaultKey: Bool, defaultCertificate: Bool, webAssets: String?) -> [(what: String, path: String)] {
        var files: [(what: String, path: String)] = []
        if defaultKey { files.append((what: "the shared key file", path: SharedKey.defaultPath)) }
        if defaultCertificate {
            files.append((what: "the web certificate", path: WebCertificate.defaultFolder + "/" + WebCertificate.certificateName))
            files.append((what: "the web certificate's key", path: WebCertificate.defaultFolder + "/" + WebCertificate.keyName))
        }
        if let webAssets {
            for name in WebAssets.files.keys.sorted() where access(webAssets + "/" + name, F_OK) == 0 {
                files.append((what: "the web page's file", path: webAssets + "/" + name))
            }
        }
        return files
    }
}

/// Where an asset `name` (a file or folder of Assets: the tone, web/) may be, in the
/// order looked: each of `Installation.assetDirectories()`.
public func assetCandidates(_ name: String) -> [String] {
    Installation.assetDirectories().map { $0 + "/" + name }
}
