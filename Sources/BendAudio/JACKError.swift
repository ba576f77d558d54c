// SPDX-License-Identifier: GPL-3.0-or-later
import CJack

/// A failed libjack call: the call, the client and server it was about, and what JACK
/// said (the `jack_status_t` bits of `jack_client_open`, or a call's nonzero result).
public struct JACKError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The failing call, e.g. "jack_client_open" or "jack_activate".
    public var call: String
    /// The client name asked for, e.g. "bendsynth".
    public var client: String
    /// The server name (JACK_DEFAULT_SERVER, else "default").
    public var server: String
    /// `jack_client_open`'s status bits, 0 for other calls.
    public var status: UInt32
    /// The call's result (nonzero: failed), 0 for `jack_client_open`.
    public var code: Int32
    /// What was expected, when the status alone does not say it.
    public var detail: String?

    public init(call: String, client: String, server: String, status: UInt32 = 0, code: Int32 = 0, detail: String? = nil) {
        self.call = call
        self.client = client
        self.server = server
        self.status = status
        self.code = code
        self.detail = detail
    }

    /// The status bits in words, e.g. "no JACK server running (JackServerFailed)".
    public var statusText: String {
        let names: [(JackStatus, String)] = [
            (JackServerFailed, "no JACK server running (JackServerFailed)"),
            (JackServerError, "the server refused the client (JackServerError)"),
            (JackNameNotUnique, "the client name is taken (JackNameNotUnique)"),
            (JackInvalidOption, "invalid option (JackInvalidOption)"),
            (JackNoSuchClient, "no such client (JackNoSuchClient)"),
            (JackLoadFailure, "cannot load the client (JackLoadFailure)"),
            (JackInitFailure, "cannot initialise the client (JackInitFailure)"),
            (JackShmFailure, "cannot reach the server's shared memory (JackShmFailure)"),
            (JackVersionError, "client and server protocol versions differ (JackVersionError)"),
            (JackBackendError, "the server's backend failed (JackBackendError)"),
            (JackClientZombie, "the client was zombified (JackClientZombie)"),
        ]
        let found = names.filter { status & $0.0.rawValue != 0 }.map(\.1)
        if !found.isEmpty { return found.joined(separator: ", ") }
        if status & JackFailure.rawValue != 0 { return "failed (JackFailure)" }
        return code != 0 ? "returned \(code)" : "failed"
    }

    /// e.g. `JACK client 'bendsynth' on server 'default': jack_client_open: no JACK server running (JackServerFailed)`.
    public var description: String {
        "JACK client '\(client)' on server '\(server)': \(call): \(statusText)" + (detail.map { " (\($0))" } ?? "")
    }
}
