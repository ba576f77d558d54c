import Synchronization

/// A bounded single-producer/single-consumer queue of `EngineEvent`s from one control
/// thread (an input source) to the render thread. Lock-free and wait-free: one acquire
/// load and one release store per operation. The storage is allocated once at setup.
///
/// A full ring drops the newest event and counts it (`dropped`), so a flood from one
/// source can never block the render thread or another source.
///
/// The ring is a plain struct of pointers (no class reference), so the render thread
/// can use it without reference counting. `deallocate()` frees it at shutdown, after
/// both threads have stopped.
public struct EventRing: @unchecked Sendable {
    /// Written by the producer only: index of the next slot to write.
    private let tail: UnsafeMutablePointer<Atomic<Int>>
    /// Written by the consumer only: index of the next slot to read.
    private let head: UnsafeMutablePointer<Atomic<Int>>
    private let droppedCount: UnsafeMutablePointer<Atomic<Int>>
    private let slots: UnsafeMutablePointer<EngineEvent>
    private let mask: Int

    /// - Parameter capacity: events the ring holds, rounded up to a power of two (≥ 2).
    /// - Thread: setup.
    public init(capacity: Int) {
        var size = 2
        while size < capacity { size <<= 1 }
        mask = size - 1
        slots = .allocate(capacity: size)
        tail = .allocate(capacity: 1); tail.initialize(to: Atomic(0))
        head = .allocate(capacity: 1); head.initialize(to: Atomic(0))
        droppedCount = .allocate(capacity: 1); droppedCount.initialize(to: Atomic(0))
    }

    /// Events the ring can hold.
    public var capacity: Int { mask + 1 }

    /// Events dropped because the ring was full.
    public var dropped: Int { droppedCount.pointee.load(ordering: .relaxed) }

    /// Appends an event; returns false (and counts a drop) when the ring is full.
    /// - Thread: the one producer.
    @discardableResult
    public func push(_ event: EngineEvent) -> Bool {
        let t = tail.pointee.load(ordering: .relaxed)
        let h = head.pointee.load(ordering: .acquiring)
        if t &- h > mask {
            droppedCount.pointee.add(1, ordering: .relaxed)
            return false
        }
        slots[t & mask] = event
        tail.pointee.store(t &+ 1, ordering: .releasing)
        return true
    }

    /// The oldest event without removing it, or nil when empty.
    /// - Thread: render (the one consumer).
    @_noLocks
    public func peek() -> EngineEvent? {
        let h = head.pointee.load(ordering: .relaxed)
        let t = tail.pointee.load(ordering: .acquiring)
        if h == t { return nil }
        return slots[h & mask]
    }

    /// Removes the oldest event (after `peek` returned it).
    /// - Thread: render (the one consumer).
    @_noLocks
    public func pop() {
        let h = head.pointee.load(ordering: .relaxed)
        head.pointee.store(h &+ 1, ordering: .releasing)
    }

    /// Events waiting (approximate when read from a third thread).
    public var count: Int {
        tail.pointee.load(ordering: .acquiring) &- head.pointee.load(ordering: .acquiring)
    }

    /// Frees the storage. - Thread: setup, after producer and consumer stopped.
    public func deallocate() {
        slots.deallocate()
        tail.deinitialize(count: 1); tail.deallocate()
        head.deinitialize(count: 1); head.deallocate()
        droppedCount.deinitialize(count: 1); droppedCount.deallocate()
    }
}
