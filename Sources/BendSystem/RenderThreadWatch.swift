import Glibc

/// Counts of heap allocations and mutex locks made on the render thread, when the
/// process runs with Benchmarks/render_watch.so preloaded (`make bench` does; the
/// library interposes malloc and pthread_mutex_lock; its allocation half is
/// Sources/CAllocCounter). Without it these do nothing. (The test executable links
/// CAllocCounter but not the lock counter, so `report()` stays nil there.)
public enum RenderThreadWatch {
    private typealias Watch = @convention(c) (Int32) -> Void
    private typealias Count = @convention(c) () -> UInt64

    private static func symbol(_ name: String) -> UnsafeMutableRawPointer? {
        dlsym(UnsafeMutableRawPointer(bitPattern: 0), name)  // RTLD_DEFAULT
    }

    /// Marks the calling thread as watched. Call once at the start of the render
    /// thread, before its loop. - Thread: render (setup part).
    public static func begin() {
        guard let s = symbol("alloc_counter_watch_this_thread") else { return }
        unsafeBitCast(s, to: Watch.self)(1)
    }

    /// "N heap allocations, M mutex locks" on watched threads, or nil when the
    /// library is not preloaded. - Thread: any.
    public static func report() -> (allocations: UInt64, locks: UInt64)? {
        guard let a = symbol("alloc_counter_count"), let l = symbol("render_watch_locks") else { return nil }
        return (unsafeBitCast(a, to: Count.self)(), unsafeBitCast(l, to: Count.self)())
    }
}
