// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem
import CJack

/// Whether a JACK server runs now, and how (for `bendsynth devices`, about `-a jack`): a
/// client opens (never starting a server), reads the server's rate and period, and
/// closes.
public enum JACKServerProbe {
    public struct Server: Sendable, Equatable {
        /// `JACK_DEFAULT_SERVER`, or "default".
        public var name: String
        public var rate: Int
        public var periodFrames: Int
    }

    /// The server `-a jack` would play into, nil when none runs. - Thread: setup.
    public static func running() -> Server? {
        JACKLibraryLog.silence()
        var status = jack_status_t(0)
        guard let c = cjack_client_open("bendsynth-devices", JackNoStartServer, &status) else { return nil }
        defer { jack_client_close(c) }
        return Server(name: serverName, rate: Int(jack_get_sample_rate(c)), periodFrames: Int(jack_get_buffer_size(c)))
    }

    /// The server's name as libjack picks it.
    public static var serverName: String { ProcessInfoLite.environment("JACK_DEFAULT_SERVER") ?? "default" }
}

extension JACKServerProbe {
    /// The JACK server `play -a jack` would play into, if one runs.
    public static func report() -> String {
        guard let s = running() else {
            return "JACK server (for play -a jack):\n  none running as '\(serverName)' — start jackd, or run under PipeWire with pw-jack"
        }
        return "JACK server (for play -a jack):\n  '\(UntrustedText.escaped(s.name))' runs: \(s.rate) Hz, period \(s.periodFrames) frames — play -a jack plays into it"
    }
}
