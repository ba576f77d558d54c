// SPDX-License-Identifier: GPL-3.0-or-later
import CALSA
import CJack
import CSampleRate
import CSndFile

/// The versions the audio libraries report about themselves at run time (the library
/// actually loaded, not the headers built against), for `bendsynth --version`.
public enum AudioLibraryVersions {
    /// (library, version) pairs: alsa-lib, libsndfile, libsamplerate, JACK.
    public static func all() -> [(String, String)] {
        var out: [(String, String)] = []
        out.append(("alsa-lib", String(cString: snd_asoundlib_version())))
        out.append(("libsndfile", String(cString: sf_version_string())))
        out.append(("libsamplerate", String(String(cString: src_get_version()).prefix { $0 != " " })))
        out.append(("JACK", String(cString: jack_get_version_string())))
        return out
    }
}
