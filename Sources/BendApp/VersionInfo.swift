import BendAudio
import CBuildInfo
import Foundation
import Glibc

/// `bendsynth --version`: the version, then each linked library with the version it
/// reports and the file the dynamic linker loaded (its name carries the release).
enum VersionInfo {
    /// The version the build was made as, compiled in (CBuildInfo: `make`'s VERSION_STRING,
    /// the VERSION file and `git describe`): a copied binary knows it without its files.
    static func version() -> String { String(cString: bendsynth_build_version()) }

    /// Libraries whose loaded file is shown: (name, file name prefix).
    static let libraries: [(String, String)] = [
        ("alsa-lib", "libasound.so"), ("libsndfile", "libsndfile.so"), ("libsamplerate", "libsamplerate.so"),
        ("JACK", "libjack.so"), ("libevdev", "libevdev.so"), ("liblo", "liblo.so"), ("libsodium", "libsodium.so"),
        ("BlueZ", "libbluetooth.so"), ("Avahi", "libavahi-client.so"), ("glibc", "libc.so"),
    ]

    static func text() -> String {
        var lines = ["bendsynth \(version())"]
        let reported = Dictionary(AudioLibraryVersions.all() + [("glibc", libcVersion())]) { a, _ in a }
        let loaded = loadedLibraries()
        for (name, prefix) in libraries {
            let file = loaded.first { ($0 as NSString).lastPathComponent.hasPrefix(prefix) }
            let fileName = file.map { (($0 as NSString).resolvingSymlinksInPath as NSString).lastPathComponent }
            var line = "  \(name): \(reported[name] ?? "")"
            if let fileName { line += (reported[name] == nil ? "" : " ") + "(\(fileName))" }
            if reported[name] == nil && fileName == nil { line += "not loaded" }
            lines.append(line)
        }
        if loaded.contains(where: { ($0 as NSString).lastPathComponent.hasPrefix("libswiftCore.so") }) {
            lines.append("  Swift runtime: shared (libswiftCore.so)")
        } else {
            lines.append("  Swift runtime: linked statically")
        }
        return lines.joined(separator: "\n")
    }

    /// "2.36" from confstr(_CS_GNU_LIBC_VERSION) ("glibc 2.36").
    static func libcVersion() -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        guard confstr(Int32(_CS_GNU_LIBC_VERSION), &buffer, buffer.count) > 0 else { return "" }
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.replacingOccurrences(of: "glibc ", with: "")
    }

    /// Paths of the shared objects mapped into this process (/proc/self/maps).
    static func loadedLibraries() -> [String] {
        // /proc files report size 0: read to the end, not by the size (String(contentsOfFile:)).
        guard let data = FileHandle(forReadingAtPath: "/proc/self/maps")?.readDataToEndOfFile() else { return [] }
        let maps = String(decoding: data, as: UTF8.self)
        var seen = Set<String>(), out: [String] = []
        for line in maps.split(separator: "\n") {
            guard let slash = line.firstIndex(of: "/") else { continue }
            let path = String(line[slash...])
            if path.contains(".so") && seen.insert(path).inserted { out.append(path) }
        }
        return out
    }
}
