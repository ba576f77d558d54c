// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// The shared libraries this process runs with, for `--version`: each with the version
/// it reports and the file the dynamic linker loaded (its name carries the release).
public enum LinkedLibraries {
    /// One line per library of `libraries` (its name, and the prefix of its file's name):
    /// "  name: version (file)", the version from `reported` (glibc's is added), "not
    /// loaded" when neither is known; then whether the Swift runtime is shared or linked in.
    public static func lines(_ libraries: [(name: String, filePrefix: String)], reported: [(String, String)]) -> [String] {
        let reported = Dictionary(reported + [("glibc", libcVersion())]) { a, _ in a }
        let loaded = loaded()
        func fileName(_ path: String) -> String { String(path.split(separator: "/").last ?? "") }
        var lines: [String] = []
        for (name, prefix) in libraries {
            let file = loaded.first { fileName($0).hasPrefix(prefix) }
            let shown = file.map { fileName(realPath($0) ?? $0) }
            var line = "  \(name): \(reported[name] ?? "")"
            if let shown { line += (reported[name] == nil ? "" : " ") + "(\(shown))" }
            if reported[name] == nil && shown == nil { line += "not loaded" }
            lines.append(line)
        }
        if loaded.contains(where: { fileName($0).hasPrefix("libswiftCore.so") }) {
            lines.append("  Swift runtime: shared (libswiftCore.so)")
        } else {
            lines.append("  Swift runtime: linked statically")
        }
        return lines
    }

    /// "2.36" from confstr(_CS_GNU_LIBC_VERSION) ("glibc 2.36").
    public static func libcVersion() -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        guard confstr(Int32(_CS_GNU_LIBC_VERSION), &buffer, buffer.count) > 0 else { return "" }
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.hasPrefix("glibc ") ? String(text.dropFirst("glibc ".count)) : text
    }

    /// Paths of the shared objects mapped into this process (/proc/self/maps), each once.
    public static func loaded() -> [String] {
        guard let maps = InputFile.contents("/proc/self/maps") else { return [] }
        var seen = Set<String>(), out: [String] = []
        for line in String(decoding: maps, as: UTF8.self).split(separator: "\n") {
            guard let slash = line.firstIndex(of: "/") else { continue }
            let path = String(line[slash...])
            if path.contains(".so") && seen.insert(path).inserted { out.append(path) }
        }
        return out
    }

    private static func realPath(_ path: String) -> String? {
        guard let p = realpath(path, nil) else { return nil }
        defer { free(p) }
        return String(cString: p)
    }
}
