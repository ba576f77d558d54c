// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// SIGINT, SIGTERM and SIGHUP delivered to one waiting thread instead of a handler, so
/// none is lost however early it comes: `block()` masks them in the calling thread before
/// any other thread starts (threads inherit the mask), and `wait(then:)` starts a thread
/// that takes them with `sigwait`. Each asks for the same clean stop: sources end their
/// touches, recordings are finished. (SIGHUP: the controlling terminal hung up, or a
/// service manager or `kill -HUP` asks play to end; with a terminal the reader also sees
/// the hang-up as POLLHUP/EIO — whichever comes first stops play.)
///
/// SIGPIPE is ignored from `block()` on: a write to a closed pipe or socket then fails
/// with EPIPE, which its writer handles, instead of killing the process with its
/// recordings half-written.
public enum StopSignals {
    /// The signals that stop a command cleanly.
    public static let stopping: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    private static var stoppingSet: sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for s in stopping { sigaddset(&set, s) }
        return set
    }

    /// Masks SIGINT, SIGTERM and SIGHUP — and SIGUSR1, the panic (`PanicSignal`) — in the
    /// calling thread (and so in every thread it starts afterwards), and ignores SIGPIPE.
    /// - Thread: the main thread, before starting threads.
    public static func block() {
        signal(SIGPIPE, SIG_IGN)
        var set = stoppingSet
        sigaddset(&set, PanicSignal.number)
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// Starts a thread ("bendsynth signals") that waits for SIGINT, SIGTERM or SIGHUP and
    /// calls `action` once with the first. Should the thread not start (no threads left),
    /// the signals stay blocked and pending: the caller's other ways to stop still work.
    /// - Thread: setup, after `block()`.
    public static func wait(then action: @escaping @Sendable (Int32) -> Void) {
        try? SystemThread.detached(name: "bendsynth signals") {
            var set = stoppingSet
            var sig: Int32 = 0
            while sigwait(&set, &sig) != 0 {}
            action(sig)
        }
    }
}
