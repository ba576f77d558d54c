// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import Synchronization

/// SIGUSR1, the panic from outside (`kill -USR1 PID`: every touch of every source ends),
/// delivered like the stop signals to one waiting thread ("bendsynth panic signal")
/// instead of a handler: `StopSignals.block()` masks it too, before any thread starts, so
/// an early one waits pending rather than killing the process (SIGUSR1's default). The
/// thread is started once per process and calls the action set last (`onSignal`), each
/// time the signal comes; with none set the signal is taken and dropped.
public enum PanicSignal {
    /// The signal.
    public static let number: Int32 = SIGUSR1

    private static let action = Mutex<(@Sendable () -> Void)?>(nil)
    private static let started = Atomic<Bool>(false)

    /// Calls `action` at each SIGUSR1 from now on (replacing the one before; nil: none).
    /// - Thread: setup, after `StopSignals.block()`.
    public static func onSignal(_ action: (@Sendable () -> Void)?) {
        Self.action.withLock { $0 = action }
        guard action != nil, !started.exchange(true, ordering: .relaxed) else { return }
        try? SystemThread.detached(name: "bendsynth panic signal") {
            var set = sigset_t()
            sigemptyset(&set)
            sigaddset(&set, number)
            while true {
                var sig: Int32 = 0
                guard sigwait(&set, &sig) == 0 else { continue }
                Self.action.withLock { $0 }?()
            }
        }
    }
}
