import CSystemd
import Glibc

/// Real-time priority through RealtimeKit (`org.freedesktop.RealtimeKit1` on the system
/// bus, libsystemd's sd-bus), as PipeWire and JACK clients ask for it: the desktop norm
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
        var bus: OpaquePointer?
        let opened = sd_bus_open_system(&bus)
        guard opened >= 0, let bus else { return .refused("no system bus (\(String(cString: strerror(-opened))))") }
        defer { sd_bus_flush_close_unref(bus) }
        var granted = priority
        if let max = property(bus, "MaxRealtimePriority", type: "i") { granted = min(priority, Int32(truncatingIfNeeded: max)) }
        var limit = rlimit()
        if getrlimit(rlimitRTTime, &limit) == 0 && limit.rlim_max == rlim_t.max,
           let usec = property(bus, "RTTimeUSecMax", type: "x"), usec > 0 {
            limit.rlim_cur = rlim_t(usec)
            limit.rlim_max = rlim_t(usec)
            _ = setrlimit(rlimitRTTime, &limit)
        }
        var error = sd_bus_error()
        defer { sd_bus_error_free(&error) }
        let r = csd_rtkit_make_thread_realtime(bus, UInt64(tid), UInt32(max(granted, 1)), &error)
        guard r >= 0 else {
            let name = error.name.map { String(cString: $0) } ?? String(cString: strerror(-r))
            let message = error.message.map { ": " + String(cString: $0) } ?? ""
            return .refused(name + message)
        }
        return .granted(priority: max(granted, 1))
    }

    /// An integer property of RealtimeKit1 (type "i" or "x"), or nil.
    static func property(_ bus: OpaquePointer, _ name: String, type: Character) -> Int64? {
        var error = sd_bus_error()
        defer { sd_bus_error_free(&error) }
        var value: Int64 = 0
        let r = withUnsafeMutableBytes(of: &value) { raw in
            sd_bus_get_property_trivial(bus, "org.freedesktop.RealtimeKit1", "/org/freedesktop/RealtimeKit1",
                                        "org.freedesktop.RealtimeKit1", name, &error, CChar(type.asciiValue!), raw.baseAddress)
        }
        guard r >= 0 else { return nil }
        return type == "i" ? Int64(Int32(truncatingIfNeeded: value)) : value
    }
}
