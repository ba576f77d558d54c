// SPDX-License-Identifier: GPL-3.0-or-later
import CSystem
import Glibc
import Synchronization

/// The program's one way to start a thread: a joinable POSIX thread with a name (seen in
/// `top -H`, gdb and /proc/PID/task/*/comm) and a scheduling priority.
///
/// With `priority` set, the thread is created with `SCHED_FIFO` at that priority in its
/// attributes, so the body runs under it from its first instruction; when the system
/// refuses (EPERM without CAP_SYS_NICE or RLIMIT_RTPRIO), it is created again at normal
/// priority and `note` says why, e.g. "real-time scheduling refused (EPERM): playing at
/// normal priority". With `lockMemory`, `mlockall(MCL_CURRENT | MCL_FUTURE)` is asked for
/// once per process first, so a render thread never page-faults. Refusals are never fatal;
/// the caller prints `note` once.
///
/// A thread never joined is detached when this object goes away, so its resources are
/// freed when it ends.
public final class SystemThread: @unchecked Sendable {
    /// Why real-time scheduling or memory locking was refused; nil when both were granted
    /// (or not asked for).
    public let note: String?
    /// True when the thread runs under SCHED_FIFO.
    public let isRealtime: Bool
    /// The name given (at most 15 bytes reach the kernel).
    public let name: String
    private let thread: pthread_t
    /// `pthread_t` of the thread, also stored by the thread itself before its body runs,
    /// so `isCurrent` is right from the body's first instruction.
    private let identity: Box
    private let joined = Atomic<Bool>(false)

    /// mlockall is asked for once per process.
    private static let memoryLockTried = Atomic<Bool>(false)

    /// What `realtimeFallback` got for a thread SCHED_FIFO was refused to.
    public enum RealtimeFallbackResult: Sendable, Equatable {
        /// The thread now runs SCHED_FIFO at this priority.
        case granted(priority: Int32)
        /// Why not.
        case refused(String)
    }

    /// Asked when SCHED_FIFO is refused, with the new thread's kernel id and the priority
    /// wanted: another way to make it real-time (the app installs BendDBus's RTKitClient, so
    /// this runtime links no D-Bus library). Called on the creating thread.
    private static let fallback = Mutex<(@Sendable (_ tid: Int32, _ priority: Int32) -> RealtimeFallbackResult)?>(nil)

    /// Installs (or removes, nil) the real-time fallback. - Thread: setup.
    public static func setRealtimeFallback(_ f: (@Sendable (_ tid: Int32, _ priority: Int32) -> RealtimeFallbackResult)?) {
        fallback.withLock { $0 = f }
    }

    private final class Box: @unchecked Sendable {
        let body: () -> Void
        let name: String
        let id = Atomic<UInt>(0)
        let tid = Atomic<Int32>(0)
        init(_ name: String, _ body: @escaping () -> Void) { self.name = name; self.body = body }
    }

    /// Locks current and future pages with `mlockall(MCL_CURRENT | MCL_FUTURE)`, the
    /// first time it is called in the process (later calls, and `init` after it, do
    /// nothing). Returns why it was refused, e.g. "memory locking refused (EPERM): pages
    /// may fault", or nil. For a caller that must lock before it starts its device.
    /// - Thread: setup.
    public static func lockMemory() -> String? {
        guard !memoryLockTried.exchange(true, ordering: .acquiringAndReleasing) else { return nil }
        if mlockall(Int32(MCL_CURRENT | MCL_FUTURE)) != 0 {
            return "memory locking refused (\(SystemError.name(of: errno))): pages may fault"
        }
        return nil
    }

    /// Starts `body` on a new thread.
    /// - Parameters:
    ///   - name: the thread's name, e.g. "bendsynth evdev" (cut to 15 bytes for the kernel).
    ///   - priority: SCHED_FIFO priority 1…99 (clamped), or nil for normal scheduling.
    ///   - lockMemory: lock current and future pages (once per process).
    ///   - body: runs once on the new thread; the thread ends when it returns. The
    ///     closure itself may allocate (it runs once); a render loop it calls should be
    ///     `@_noLocks`.
    /// - Throws: `SystemError` naming `pthread_create(NAME)` when it fails (EAGAIN: no
    ///   threads left).
    /// - Thread: setup (any thread).
    public init(name: String = "bendsynth", priority: Int32? = nil, lockMemory: Bool = false,
                body: @escaping @Sendable () -> Void) throws(SystemError) {
        var notes: [String] = []
        if lockMemory, let refused = SystemThread.lockMemory() { notes.append(refused) }
        let box = Box(name, body)
        let context = Unmanaged.passRetained(box).toOpaque()
        let entry: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { raw in
            let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
            box.id.store(UInt(pthread_self()), ordering: .releasing)
            box.tid.store(bend_gettid(), ordering: .releasing)
            // The kernel keeps 15 bytes and a NUL; a longer name makes the call fail.
            let utf8 = Array(box.name.utf8.prefix(15)) + [0]
            utf8.withUnsafeBufferPointer { p in
                p.withMemoryRebound(to: CChar.self) { _ = bend_pthread_setname_np(pthread_self(), $0.baseAddress!) }
            }
            box.body()
            return nil
        }
        var t = pthread_t()
        var realtime = false
        var created: Int32 = -1
        var refusal = ""
        if let priority {
            // The policy is set in the attributes, so the body runs under SCHED_FIFO from
            // its first instruction; EPERM here means the system refuses real-time.
            var attr = pthread_attr_t()
            pthread_attr_init(&attr)
            defer { pthread_attr_destroy(&attr) }
            var param = sched_param()
            param.sched_priority = min(max(priority, sched_get_priority_min(SCHED_FIFO)), sched_get_priority_max(SCHED_FIFO))
            pthread_attr_setinheritsched(&attr, Int32(PTHREAD_EXPLICIT_SCHED))
            pthread_attr_setschedpolicy(&attr, SCHED_FIFO)
            pthread_attr_setschedparam(&attr, &param)
            created = pthread_create(&t, &attr, entry, context)
            if created == 0 {
                realtime = true
            } else {
                refusal = "real-time scheduling refused (\(SystemError.name(of: created)))"
                notes.append(refusal + ": playing at normal priority")
            }
        }
        if created != 0 {
            created = pthread_create(&t, nil, entry, context)
        }
        if created != 0 {
            Unmanaged<Box>.fromOpaque(context).release()
            throw SystemError(call: "pthread_create(\(name))", code: created)
        }
        box.id.store(UInt(t), ordering: .releasing)
        if let priority, !realtime, let ask = SystemThread.fallback.withLock({ $0 }) {
            // The new thread publishes its kernel id first thing: wait for it (microseconds).
            while box.tid.load(ordering: .acquiring) == 0 { sched_yield() }
            switch ask(box.tid.load(ordering: .acquiring), priority) {
            case .granted(let p):
                realtime = true
                notes[notes.count - 1] = refusal + "; RTKit made the thread real-time at priority \(p)"
            case .refused(let why):
                notes[notes.count - 1] = refusal + ", and by RTKit (\(why)): playing at normal priority"
            }
        }
        thread = t
        identity = box
        self.name = name
        isRealtime = realtime
        note = notes.isEmpty ? nil : notes.joined(separator: "; ")
    }

    /// Starts a thread that is never joined (it ends with the process or by itself):
    /// the signal waiter. - Throws: as `init`. - Thread: setup.
    public static func detached(name: String, body: @escaping @Sendable () -> Void) throws(SystemError) {
        let t = try SystemThread(name: name, body: body)
        t.detach()
    }

    /// True when called on this thread (from the body's first instruction on).
    /// - Thread: any.
    public var isCurrent: Bool { pthread_equal(pthread_t(identity.id.load(ordering: .acquiring)), pthread_self()) != 0 }

    /// Waits for the thread's body to return. Later calls return at once. Called on the
    /// thread itself it returns at once without joining (a thread cannot join itself;
    /// a later call from another thread joins).
    /// - Thread: any.
    public func join() {
        if isCurrent { return }
        if joined.exchange(true, ordering: .acquiringAndReleasing) { return }
        pthread_join(thread, nil)
    }

    /// Lets the thread end on its own without a join. - Thread: any.
    private func detach() {
        if !joined.exchange(true, ordering: .acquiringAndReleasing) { pthread_detach(thread) }
    }

    deinit {
        if !joined.load(ordering: .acquiring) { pthread_detach(thread) }
    }
}
