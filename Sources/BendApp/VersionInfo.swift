// SPDX-License-Identifier: GPL-3.0-or-later
import BendAudio
import BendSystem
import CBuildInfo

/// `bendsynth --version`: the version, then each linked library with the version it
/// reports and the file the dynamic linker loaded (`LinkedLibraries`).
enum VersionInfo {
    /// The version the build was made as, compiled in (CBuildInfo: `make`'s VERSION_STRING,
    /// the VERSION file and `git describe`): a copied binary knows it without its files.
    static func version() -> String { String(cString: bendsynth_build_version()) }

    /// Libraries whose loaded file is shown: (name, file name prefix).
    static let libraries: [(name: String, filePrefix: String)] = [
        ("alsa-lib", "libasound.so"), ("libsndfile", "libsndfile.so"), ("libsamplerate", "libsamplerate.so"),
        ("JACK", "libjack.so"), ("libevdev", "libevdev.so"), ("liblo", "liblo.so"), ("libsodium", "libsodium.so"),
        ("BlueZ", "libbluetooth.so"), ("Avahi", "libavahi-client.so"), ("glibc", "libc.so"),
    ]

    static func text() -> String {
        (["bendsynth \(version())"] + LinkedLibraries.lines(libraries, reported: AudioLibraryVersions.all())).joined(separator: "\n")
    }
}
