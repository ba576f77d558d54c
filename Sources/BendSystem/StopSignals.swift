import Glibc

/// SIGINT and SIGTERM delivered to one waiting thread instead of a handler, so none is
/// lost however early it comes: `block()` masks them in the calling thread before any
/// other thread starts (threads inherit the mask), and `wait(then:)` starts a thread
/// that takes them with `sigwait`.
public enum StopSignals {
    /// Masks SIGINT and SIGTERM in the calling thread (and so in every thread it starts
    /// afterwards). - Thread: the main thread, before starting threads.
    public static func block() {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// Starts a thread ("bendsynth signals") that waits for SIGINT or SIGTERM and calls
    /// `action` once with it. Should the thread not start (no threads left), the signals
    /// stay blocked and pending: the caller's other ways to stop still work.
    /// - Thread: setup, after `block()`.
    public static func wait(then action: @escaping @Sendable (Int32) -> Void) {
        try? SystemThread.detached(name: "bendsynth signals") {
            var set = sigset_t()
            sigemptyset(&set)
            sigaddset(&set, SIGINT)
            sigaddset(&set, SIGTERM)
            var sig: Int32 = 0
            while sigwait(&set, &sig) != 0 {}
            action(sig)
        }
    }
}
