// SPDX-License-Identifier: GPL-3.0-or-later
import CSystem
import Glibc
import Synchronization

/// One I/O thread: descriptor handlers, timers and queued work, all run on the loop's
/// own thread (a `SystemThread`), one at a time, so what they share needs no lock.
///
///     let loop = try EventLoop(name: "bendsynth evdev")
///     let h = loop.add(fd: device, events: .readable) { events in … read … }
///     loop.schedule(after: 33_000_000, repeating: 33_000_000) { … draw … }
///     try loop.start()
///     loop.execute { … on the loop's thread … }
///     loop.stop()                                // wakes it and joins
///
/// The loop sleeps in `ppoll` on its descriptors and an eventfd, with the time to the
/// next timer as timeout. Anything another thread asks for (a handler, a timer, work,
/// `stop`) writes the eventfd, so the loop sees it at once: nothing is polled on a
/// period. Each turn: queued work (in order), due timers (by deadline), then the
/// handlers of the descriptors found ready (in the order they were added).
///
/// A handler or timer removed or cancelled before its turn does not run, even when its
/// descriptor was found ready in the same turn. Work queued before `stop()` runs before
/// the loop ends; work queued after it ended is dropped. When the loop ends it lets go
/// of every handler, timer and queued work (so closures that hold their owner do not keep
/// it alive).
public final class EventLoop: @unchecked Sendable {
    /// A descriptor handler, for `remove` and `setEvents`.
    public struct Handler: Hashable, Sendable { let id: UInt64 }
    /// A timer, for `cancel`.
    public struct Timer: Hashable, Sendable { let id: UInt64 }

    /// The loop thread's name.
    public let name: String
    private let wakeFD: Int32

    private struct Watch {
        var fd: Int32
        var events: IOEvents
        var body: @Sendable (IOEvents) -> Void
    }
    private struct Alarm {
        /// CLOCK_MONOTONIC nanoseconds.
        var deadline: UInt64
        /// Nanoseconds between runs; nil for a one-shot timer.
        var interval: UInt64?
        var body: @Sendable () -> Void
    }
    private struct State {
        var watches: [UInt64: Watch] = [:]
        var alarms: [UInt64: Alarm] = [:]
        var work: [@Sendable () -> Void] = []
        var nextID: UInt64 = 1
        var stopping = false
        var ended = false
        var thread: SystemThread?
    }
    private let state = Mutex(State())
    /// `pthread_self()` of the loop's thread, stored by it before its first turn.
    private let loopThread = Atomic<UInt>(0)

    /// Makes the loop's eventfd; the thread starts with `start`.
    /// - Throws: `SystemError` naming `eventfd` (EMFILE: no descriptors left).
    /// - Thread: setup.
    public init(name: String) throws(SystemError) {
        self.name = name
        // EFD_CLOEXEC and EFD_NONBLOCK are O_CLOEXEC and O_NONBLOCK (eventfd(2)).
        wakeFD = try systemCall("eventfd(\(name))") { bend_eventfd(0, O_CLOEXEC | O_NONBLOCK) }
    }

    deinit { close(wakeFD) }

    /// Starts the loop's thread. Handlers, timers and work added before run from its
    /// first turn.
    /// - Parameter priority: SCHED_FIFO priority, nil for normal (see `SystemThread`).
    /// - Throws: `SystemError` naming `pthread_create(NAME)`.
    /// - Thread: setup, once.
    public func start(priority: Int32? = nil) throws(SystemError) {
        let thread = try SystemThread(name: name, priority: priority) { [self] in run() }
        state.withLock { $0.thread = thread }
    }

    /// Ends the loop: wakes it through the eventfd; it runs the work queued before this
    /// call, then ends. Waits for its thread to end unless called on it (from a handler:
    /// the loop ends when that handler returns; a later `stop()` from another thread
    /// joins). Safe to call more than once, and before `start`.
    /// - Thread: any.
    public func stop() {
        let thread = state.withLock { s -> SystemThread? in
            s.stopping = true
            return s.thread
        }
        wake()
        thread?.join()
    }

    /// True on the loop's own thread. - Thread: any.
    public var isLoopThread: Bool { pthread_equal(pthread_t(loopThread.load(ordering: .acquiring)), pthread_self()) != 0 }

    /// Why the loop's thread runs at another priority than asked (`SystemThread.note`),
    /// once started; nil when it got what it asked for. - Thread: any.
    public var priorityNote: String? { state.withLock { $0.thread?.note } }

    /// True once the loop has ended (its thread returned or is about to). - Thread: any.
    public var hasEnded: Bool { state.withLock { $0.ended } }

    // MARK: - Work, descriptors, timers

    /// Runs `work` on the loop's thread, after what was queued before it.
    /// - Thread: any.
    public func execute(_ work: @escaping @Sendable () -> Void) {
        state.withLock { $0.work.append(work) }
        wake()
    }

    /// Calls `handler` on the loop's thread each turn `fd` is ready for `events` (and on
    /// hang-up or error, which are always reported). The descriptor is not owned: remove
    /// the handler before closing it.
    /// - Thread: any.
    @discardableResult
    public func add(fd: Int32, events: IOEvents = .readable, _ handler: @escaping @Sendable (IOEvents) -> Void) -> Handler {
        let id = state.withLock { s -> UInt64 in
            let id = s.nextID
            s.nextID += 1
            s.watches[id] = Watch(fd: fd, events: events, body: handler)
            return id
        }
        wake()
        return Handler(id: id)
    }

    /// Changes what `handler`'s descriptor is watched for (e.g. `.writable` while output
    /// is queued). - Thread: any.
    public func setEvents(_ handler: Handler, _ events: IOEvents) {
        state.withLock { $0.watches[handler.id]?.events = events }
        wake()
    }

    /// Stops calling `handler`; from the loop's thread it takes effect at once (not even
    /// a turn already found ready calls it). - Thread: any.
    public func remove(_ handler: Handler) {
        state.withLock { _ = $0.watches.removeValue(forKey: handler.id) }
        wake()
    }

    /// Runs `body` on the loop's thread `delay` nanoseconds from now, then every
    /// `interval` nanoseconds when given (the next run is due one interval after the
    /// previous deadline; runs missed while the loop was busy are not made up).
    /// - Thread: any.
    @discardableResult
    public func schedule(after delay: UInt64, repeating interval: UInt64? = nil, _ body: @escaping @Sendable () -> Void) -> Timer {
        schedule(at: MonotonicClock.nanos() &+ delay, repeating: interval, body)
    }

    /// Like `schedule(after:)`, at CLOCK_MONOTONIC nanoseconds `deadline`.
    /// - Thread: any.
    @discardableResult
    public func schedule(at deadline: UInt64, repeating interval: UInt64? = nil, _ body: @escaping @Sendable () -> Void) -> Timer {
        let id = state.withLock { s -> UInt64 in
            let id = s.nextID
            s.nextID += 1
            s.alarms[id] = Alarm(deadline: deadline, interval: interval.map { max($0, 1) }, body: body)
            return id
        }
        wake()
        return Timer(id: id)
    }

    /// Cancels `timer`; it does not run again (nor at all, if it had not). - Thread: any.
    public func cancel(_ timer: Timer) {
        state.withLock { _ = $0.alarms.removeValue(forKey: timer.id) }
    }

    // MARK: - The loop's thread

    private func wake() {
        var one: UInt64 = 1
        // EAGAIN (the counter is near 2⁶⁴) still leaves the eventfd readable: awake.
        _ = write(wakeFD, &one, 8)
    }

    private func run() {
        loopThread.store(UInt(pthread_self()), ordering: .releasing)
        var fds: [pollfd] = []
        var ids: [UInt64] = []
        while true {
            // 1. Queued work, in order; stop once none is left.
            let (work, stopping) = state.withLock { s -> ([@Sendable () -> Void], Bool) in
                let w = s.work
                s.work.removeAll()
                if w.isEmpty && s.stopping { s.ended = true }
                return (w, s.stopping)
            }
            for w in work { w() }
            if work.isEmpty && stopping {
                // Handlers and timers often hold their owner: let go of them now, so an
                // owner that holds the loop is freed once it stopped.
                state.withLock { s in
                    s.watches.removeAll()
                    s.alarms.removeAll()
                    s.work.removeAll()
                }
                break
            }

            // 2. Due timers, earliest first; each is checked again just before it runs.
            runDueTimers()

            // 3. Wait for descriptors, the wake eventfd or the next timer.
            let deadline = state.withLock { s -> UInt64? in
                fds.removeAll(keepingCapacity: true)
                ids.removeAll(keepingCapacity: true)
                fds.append(pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0))
                for (id, w) in s.watches.sorted(by: { $0.key < $1.key }) {
                    fds.append(pollfd(fd: w.fd, events: w.events.pollRequest, revents: 0))
                    ids.append(id)
                }
                return s.work.isEmpty && !s.stopping ? s.alarms.values.map(\.deadline).min() : 0
            }
            var n: Int32
            if let deadline {
                let now = MonotonicClock.nanos()
                let left = deadline > now ? deadline - now : 0
                var ts = timespec(tv_sec: Int(left / 1_000_000_000), tv_nsec: Int(left % 1_000_000_000))
                n = bend_ppoll(&fds, nfds_t(fds.count), &ts)
            } else {
                n = bend_ppoll(&fds, nfds_t(fds.count), nil)
            }
            if n < 0 {
                let code = errno
                if code == EINTR || code == ENOMEM || code == EAGAIN { continue }
                fatalError("\(SystemError(call: "ppoll(\(name))", code: code))")  // EFAULT, EINVAL: a bug here
            }
            if n == 0 { continue }
            if fds[0].revents != 0 {
                var count: UInt64 = 0
                _ = read(wakeFD, &count, 8)
            }

            // 4. Ready handlers, in the order they were added.
            for (i, id) in ids.enumerated() where fds[i + 1].revents != 0 {
                let events = IOEvents(revents: fds[i + 1].revents)
                guard let body = state.withLock({ s in s.watches[id].flatMap { $0.fd == fds[i + 1].fd ? $0.body : nil } }) else { continue }
                body(events)
            }
        }
    }

    private func runDueTimers() {
        let now = MonotonicClock.nanos()
        let due = state.withLock { s in
            s.alarms.filter { $0.value.deadline <= now }.sorted { ($0.value.deadline, $0.key) < ($1.value.deadline, $1.key) }.map(\.key)
        }
        for id in due {
            let body = state.withLock { s -> (@Sendable () -> Void)? in
                guard let a = s.alarms[id], a.deadline <= now else { return nil }
                if let interval = a.interval {
                    var next = a.deadline &+ interval
                    if next <= now { next = now &+ interval }
                    s.alarms[id]?.deadline = next
                } else {
                    s.alarms[id] = nil
                }
                return a.body
            }
            body?()
        }
    }
}
