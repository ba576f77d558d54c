import Glibc
import Synchronization

/// A joinable POSIX thread for the render loop, asking for real-time scheduling.
///
/// `init` creates the thread with `SCHED_FIFO` at `priority` in its attributes (falling
/// back to normal scheduling when that is refused) and, once per process, locks memory with
/// `mlockall(MCL_CURRENT | MCL_FUTURE)` so the render thread never page-faults.
/// Refusals are never fatal: the thread runs at normal priority and `note` says why,
/// e.g. "real-time scheduling refused (EPERM): playing at normal priority"; the caller
/// prints it once.
public final class RealtimeThread: @unchecked Sendable {
    /// Why real-time scheduling or memory locking was refused; nil when both were granted
    /// (or not asked for).
    public let note: String?
    /// True when the thread runs under SCHED_FIFO.
    public let isRealtime: Bool
    private var thread: pthread_t
    private let joined = Atomic<Bool>(false)

    /// mlockall is asked for once per process.
    private static let memoryLockTried = Atomic<Bool>(false)

    private final class Box {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    /// Locks current and future pages with `mlockall(MCL_CURRENT | MCL_FUTURE)`, the
    /// first time it is called in the process (later calls, and `init` after it, do
    /// nothing). Returns why it was refused, e.g. "memory locking refused (EPERM): pages
    /// may fault", or nil. For a caller that must lock before it starts its device.
    /// - Thread: setup.
    public static func lockMemory() -> String? {
        guard !memoryLockTried.exchange(true, ordering: .acquiringAndReleasing) else { return nil }
        if mlockall(Int32(MCL_CURRENT | MCL_FUTURE)) != 0 {
            return "memory locking refused (\(RealtimeThread.errnoName(errno))): pages may fault"
        }
        return nil
    }

    /// Starts `body` on a new thread.
    /// - Parameters:
    ///   - priority: SCHED_FIFO priority 1…99, or nil for normal scheduling.
    ///   - lockMemory: lock current and future pages (once per process).
    ///   - body: runs once on the new thread; the thread ends when it returns. The
    ///     closure itself may allocate (it runs once); the loop it calls should be
    ///     `@_noLocks`.
    /// - Throws: `SystemError` when `pthread_create` fails (EAGAIN: no threads left).
    /// - Thread: setup.
    public init(priority: Int32? = 70, lockMemory: Bool = true, body: @escaping @Sendable () -> Void) throws {
        var notes: [String] = []
        if lockMemory, let refused = RealtimeThread.lockMemory() { notes.append(refused) }
        let context = Unmanaged.passRetained(Box(body)).toOpaque()
        let entry: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { raw in
            let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
            box.body()
            return nil
        }
        var t = pthread_t()
        var realtime = false
        var created: Int32 = -1
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
                notes.append("real-time scheduling refused (\(RealtimeThread.errnoName(created))): playing at normal priority")
            }
        }
        if created != 0 {
            created = pthread_create(&t, nil, entry, context)
        }
        if created != 0 {
            Unmanaged<Box>.fromOpaque(context).release()
            throw SystemError(call: "pthread_create", code: created)
        }
        thread = t
        isRealtime = realtime
        note = notes.isEmpty ? nil : notes.joined(separator: "; ")
    }

    /// Waits for the thread's body to return. Later calls return at once.
    /// - Thread: any thread but this one.
    public func join() {
        if joined.exchange(true, ordering: .acquiringAndReleasing) { return }
        pthread_join(thread, nil)
    }

    deinit {
        // A thread never joined is detached so its resources are freed when it ends.
        if !joined.load(ordering: .acquiring) { pthread_detach(thread) }
    }

    /// "EPERM" for EPERM, etc.; the number for others.
    static func errnoName(_ code: Int32) -> String {
        switch code {
        case EPERM: return "EPERM"
        case EINVAL: return "EINVAL"
        case ENOMEM: return "ENOMEM"
        case EAGAIN: return "EAGAIN"
        case ESRCH: return "ESRCH"
        default: return "errno \(code)"
        }
    }
}
