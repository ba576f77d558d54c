// SPDX-License-Identifier: GPL-3.0-or-later
import CSystem
import Glibc

/// The house's one way for a thread to wait for another: a counting wake-up on an
/// eventfd (EFD_SEMAPHORE). `signal()` adds one; `wait()` sleeps in the kernel until
/// there is one and takes it. Its descriptor (`fd`) is readable while a signal is
/// pending, so an `EventLoop` can watch it beside its sockets and timers.
///
///     let done = try Wakeup("render")
///     thread: … done.signal()
///     setup:  done.wait()                       // or wait(timeoutNanos:) for a deadline
///
/// Nothing is polled on a period: a waiter sleeps until a signal or its deadline.
/// - Thread: any; `signal` is async-signal-safe (one write(2)), never from the render thread.
public final class Wakeup: @unchecked Sendable {
    /// Readable while a signal is pending (non-blocking; owned: closed at deinit).
    public let fd: Int32

    /// - Throws: `SystemError` naming `eventfd(NAME)` (EMFILE: no descriptors left).
    public init(_ name: String = "wakeup") throws(SystemError) {
        // EFD_SEMAPHORE (1): each read takes one signal. EFD_CLOEXEC/EFD_NONBLOCK are
        // O_CLOEXEC/O_NONBLOCK (eventfd(2)).
        fd = try systemCall("eventfd(\(name))") { bend_eventfd(0, 1 | O_CLOEXEC | O_NONBLOCK) }
    }

    deinit { close(fd) }

    /// Adds one signal; one `wait` returns for it. - Thread: any.
    public func signal() {
        var one: UInt64 = 1
        _ = write(fd, &one, 8)
    }

    /// Takes a pending signal without sleeping; false when there is none.
    @discardableResult
    public func take() -> Bool {
        var value: UInt64 = 0
        return read(fd, &value, 8) == 8
    }

    /// Sleeps until a signal is pending, then takes it.
    public func wait() { _ = wait(deadline: nil) }

    /// Sleeps until a signal (true, taken) or `timeoutNanos` have passed (false).
    public func wait(timeoutNanos: UInt64) -> Bool {
        wait(deadline: MonotonicClock.nanos() &+ timeoutNanos)
    }

    /// Sleeps until a signal (true, taken) or CLOCK_MONOTONIC `deadline` (false); nil: no deadline.
    public func wait(deadline: UInt64?) -> Bool {
        while true {
            if take() { return true }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if let deadline {
                let now = MonotonicClock.nanos()
                if now >= deadline { return take() }
                var ts = timespec(tv_sec: Int((deadline - now) / 1_000_000_000), tv_nsec: Int((deadline - now) % 1_000_000_000))
                _ = bend_ppoll(&pfd, 1, &ts)
            } else {
                _ = bend_ppoll(&pfd, 1, nil)
            }
        }
    }
}

extension Wakeup {
    /// Waits for a condition no thread can signal — one the render thread makes true (it
    /// makes no system calls, so it cannot write an eventfd): re-checks `done` every
    /// `everyNanos` (a period of the sink, so nothing is checked faster than it can change)
    /// until it holds (true) or CLOCK_MONOTONIC `deadline` passes (false, after one last
    /// check). Each pause is this wake-up's deadline wait, so a `signal()` (a stop, a
    /// failing sink) cuts the pause short and `done` is asked again at once.
    /// - Thread: any but the render thread.
    public func wait(until done: () -> Bool, every everyNanos: UInt64, deadline: UInt64) -> Bool {
        while !done() {
            let now = MonotonicClock.nanos()
            if now >= deadline { return done() }
            _ = wait(deadline: min(deadline, now &+ max(everyNanos, 100_000)))
        }
        return true
    }

    /// `wait(until:every:deadline:)` on a wake-up of its own, for a caller that has none
    /// to share. Should no eventfd be made (EMFILE) it paces the checks with
    /// `MonotonicClock.sleep` instead: the same checks and deadline, only not cut short.
    public static func recheck(_ name: String, until done: () -> Bool, every everyNanos: UInt64, deadline: UInt64) -> Bool {
        if let wakeup = try? Wakeup(name) { return wakeup.wait(until: done, every: everyNanos, deadline: deadline) }
        while !done() {
            let now = MonotonicClock.nanos()
            if now >= deadline { return done() }
            MonotonicClock.sleep(until: min(deadline, now &+ max(everyNanos, 100_000)))
        }
        return true
    }
}
