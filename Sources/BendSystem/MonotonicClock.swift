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
