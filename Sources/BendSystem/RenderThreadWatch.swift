// SPDX-License-Identifier: GPL-3.0-or-later
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
    /// thread, before its loop, and on no other thread. - Thread: render (setup part).
    public static func begin() {
        guard let s = symbol("alloc_counter_watch_this_thread") else { return }
        unsafeBitCast(s, to: Watch.self)(1)
    }

    /// What render_watch.so counted on the watched threads.
    public struct Counts: Sendable, Equatable {
        public var allocations: UInt64
        public var locks: UInt64
        /// Those of `locks` whose caller is alsa-lib, one of its plugins or libjack:
        /// taken inside the device's own calls.
        public var deviceLocks: UInt64
        /// Threads that called `begin()`: 1 when only the render thread is watched.
        public var threads: UInt64

        /// e.g. `0 heap allocations, 1 mutex lock (1 in the device's own calls: alsa-lib,
        /// its plugins, libjack) on 1 watched thread`.
        public var summary: String {
            "\(allocations) heap allocation\(allocations == 1 ? "" : "s"), \(locks) mutex lock\(locks == 1 ? "" : "s")"
                + (locks > 0 ? " (\(deviceLocks) in the device's own calls: alsa-lib, its plugins, libjack)" : "")
                + " on \(threads) watched thread\(threads == 1 ? "" : "s")"
        }
    }

    /// The counts on watched threads, or nil when the library is not preloaded.
    /// - Thread: any.
    public static func report() -> Counts? {
        guard let a = symbol("alloc_counter_count"), let l = symbol("render_watch_locks") else { return nil }
        func count(_ name: String) -> UInt64 { symbol(name).map { unsafeBitCast($0, to: Count.self)() } ?? 0 }
        return Counts(allocations: unsafeBitCast(a, to: Count.self)(), locks: unsafeBitCast(l, to: Count.self)(),
                      deviceLocks: count("render_watch_device_locks"), threads: count("alloc_counter_watched_threads"))
    }
}
