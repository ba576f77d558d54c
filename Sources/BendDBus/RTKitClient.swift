// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem
import Glibc

/// Real-time priority through RealtimeKit (`org.freedesktop.RealtimeKit1` on the system
/// bus), as PipeWire and JACK clients ask for it: the desktop norm
/// is no RLIMIT_RTPRIO, so SCHED_FIFO is refused, and rtkit-daemon grants it instead to
/// a thread of a process that set RLIMIT_RTTIME.
public enum RTKitClient {
    /// RLIMIT_RTTIME (15 on Linux): Swift's Glibc module, built without _GNU_SOURCE, lacks it.
    static let rlimitRTTime: Int32 = 15

    /// What RTKit granted: the priority, or why not.
    public enum Outcome: Equatable, Sendable {
        case granted(priority: Int32)
        case refused(String)
    }

    /// Asks RTKit to make thread `tid` (a kernel thread id of this process) SCHED_FIFO at
    /// `priority`, lowered to RTKit's MaxRealtimePriority. Sets RLIMIT_RTTIME to RTKit's
    /// RTTimeUSecMax first when it is unlimited (RTKit refuses otherwise).
    /// - Thread: setup (a blocking D-Bus call; never the render thread).
    public static func makeThreadRealtime(tid: Int32, priority: Int32) -> Outcome {
        let bus: DBusConnection
        do { bus = try DBusConnection.system() } catch { return .refused("no system bus (\(error.message))") }
        var granted = priority
        if let max = property(bus, "MaxRealtimePriority") { granted = min(priority, Int32(truncatingIfNeeded: max)) }
        var limit = rlimit()
        if getrlimit(rlimitRTTime, &limit) == 0 && limit.rlim_max == rlim_t.max,
           let usec = property(bus, "RTTimeUSecMax"), usec > 0 {
            limit.rlim_cur = rlim_t(usec)
            limit.rlim_max = rlim_t(usec)
            _ = setrlimit(rlimitRTTime, &limit)
        }
        do {
            try bus.call(service, path, service, "MakeThreadRealtime",
                         [.uint(UInt64(tid), signature: "t"), .uint32(UInt32(max(granted, 1)))])
        } catch {
            return .refused(error.name.isEmpty ? error.message : error.message.isEmpty ? error.name : "\(error.name): \(error.message)")
        }
        return .granted(priority: max(granted, 1))
    }

    /// Makes RTKit SystemThread's way to real-time priority when SCHED_FIFO is refused
    /// (SystemThread asks it with the new thread's kernel id; the thread's note says once
    /// which priority it got). - Thread: setup.
    public static func installAsRealtimeFallback() {
        SystemThread.setRealtimeFallback { tid, priority in
            switch makeThreadRealtime(tid: tid, priority: priority) {
            case .granted(let p): return .granted(priority: p)
            case .refused(let why): return .refused(why)
            }
        }
    }

    static let service = "org.freedesktop.RealtimeKit1"
    static let path = "/org/freedesktop/RealtimeKit1"

    /// An integer property of RealtimeKit1 (an "i" or "x"), or nil.
    static func property(_ bus: DBusConnection, _ name: String) -> Int64? {
        guard let reply = try? bus.call(service, path, "org.freedesktop.DBus.Properties", "Get", [.string(service), .string(name)]),
              case let .variant(value)? = reply.first else { return nil }
        switch value {
        case let .int(v, _): return v
        case let .uint(v, _): return Int64(truncatingIfNeeded: v)
        default: return nil
        }
    }
}
