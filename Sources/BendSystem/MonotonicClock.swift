// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// CLOCK_MONOTONIC in nanoseconds (vDSO: no system call on x86-64 and arm64).
public enum MonotonicClock {
    @inline(__always)
    public static func nanos() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }
}

extension MonotonicClock {
    /// Sleeps until monotonic time `nanos` (clock_nanosleep, absolute; EINTR resumes).
    /// Returns at once when that time has passed. - Thread: any but the render thread.
    public static func sleep(until nanos: UInt64) {
        var ts = timespec(tv_sec: Int(nanos / 1_000_000_000), tv_nsec: Int(nanos % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil) == EINTR {}
    }
}
