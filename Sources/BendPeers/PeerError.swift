// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem

/// Failures of the peer session API.
public enum PeerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A socket or system call failed: the call and its errno.
    case system(SystemError)
    /// A bad address: what was given and what was expected.
    case address(String)
    /// The other side declined (or closed) the invitation.
    case declined(CloseReason, String)
    /// No answer within the timeout (seconds).
    case timeout(String)
    /// A bad or missing key file.
    case key(String)
    /// Bluetooth is not available here: one line saying why (no adapter, powered off,
    /// bluetoothd not running, no kernel support).
    case noBluetooth(String)
    /// The session is stopped.
    case stopped

    public var description: String {
        switch self {
        case .system(let e): e.description
        case .address(let s), .timeout(let s), .key(let s): s
        case .declined(let r, let d): d.isEmpty ? "declined: \(r)" : "declined: \(r) (\(UntrustedText.escaped(d)))"  // the other side's words
        case .noBluetooth(let s): s
        case .stopped: "the peer session is stopped"
        }
    }
}
