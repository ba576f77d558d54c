// SPDX-License-Identifier: GPL-3.0-or-later
import CSystemd
import Glibc

/// Tells systemd how a `Type=notify` service is doing (libsystemd's `sd_notify`, to the
/// socket in `$NOTIFY_SOCKET`; nothing happens when it is not set).
public enum ServiceNotifier {
    public static var underSystemd: Bool { getenv("NOTIFY_SOCKET") != nil }

    /// `READY=1` with a status line, once the first period has reached the device:
    /// waits (1 ms steps, at most `seconds`) until `firstPeriodDone` holds.
    /// - Thread: setup (never the render thread: a socket send).
    /// The status names the frames out when READY is sent (`frames`).
    @discardableResult
    public static func ready(status: String, seconds: Double = 10, firstPeriodDone: () -> Bool, frames: () -> UInt64) -> Bool {
        guard underSystemd else { return false }
        var waited = 0.0
        while !firstPeriodDone() && waited < seconds {
            usleep(1_000)
            waited += 0.001
        }
        guard firstPeriodDone() else {
            notify("STATUS=no period reached the device in \(Int(seconds)) s")
            return false
        }
        return notify("READY=1\nSTATUS=\(status); \(frames()) frames out")
    }

    /// `STOPPING=1`: play is ending (SIGTERM, q, the script's end).
    public static func stopping() {
        if underSystemd { notify("STOPPING=1") }
    }

    @discardableResult
    public static func notify(_ message: String) -> Bool {
        sd_notify(0, message) > 0
    }
}
