// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem
import CSystemd
import Glibc

/// Tells systemd how a `Type=notify` service is doing (libsystemd's `sd_notify`, to the
/// socket in `$NOTIFY_SOCKET`; nothing happens when it is not set).
public enum ServiceNotifier {
    public static var underSystemd: Bool { getenv("NOTIFY_SOCKET") != nil }

    /// `READY=1` with a status line, once the first period has reached the device:
    /// waits (at most `seconds`) until `firstPeriodDone` holds. The render thread makes it
    /// true and cannot signal (no system calls there), so this re-checks it every
    /// millisecond (a period is a few) on a `Wakeup` deadline, until the deadline.
    /// - Thread: setup (never the render thread: a socket send).
    /// The status names the frames out when READY is sent (`frames`).
    @discardableResult
    public static func ready(status: String, seconds: Double = 10, firstPeriodDone: () -> Bool, frames: () -> UInt64) -> Bool {
        guard underSystemd else { return false }
        let deadline = MonotonicClock.nanos() + UInt64(max(0, seconds) * 1e9)
        guard Wakeup.recheck("ready", until: firstPeriodDone, every: 1_000_000, deadline: deadline) else {
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
