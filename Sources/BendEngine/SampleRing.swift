import Synchronization

/// A bounded single-producer/single-consumer ring of interleaved float samples from
/// the render thread to a non-real-time consumer (the recorder). The render thread
/// never waits: when the consumer falls behind, whole writes are dropped and counted.
public struct SampleRing: @unchecked Sendable {
    private let tail: UnsafeMutablePointer<Atomic<Int>>
    private let head: UnsafeMutablePointer<Atomic<Int>>
    private let droppedCount: UnsafeMutablePointer<Atomic<Int>>
    private let storage: UnsafeMutablePointer<Float>
    /// Capacity in samples (a power of two).
    public let capacity: Int

    /// - Parameter capacity: samples, rounded up to a power of two.
    /// - Thread: setup.
    public init(capacity requested: Int) {
        var size = 2
        while size < requested { size <<= 1 }
        capacity = size
        storage = .allocate(capacity: size)
        tail = .allocate(capacity: 1); tail.initialize(to: Atomic(0))
        head = .allocate(capacity: 1); head.initialize(to: Atomic(0))
        droppedCount = .allocate(capacity: 1); droppedCount.initialize(to: Atomic(0))
    }

    /// Samples dropped because the consumer fell behind.
    public var dropped: Int { droppedCount.pointee.load(ordering: .relaxed) }

    /// Writes `count` samples, all or none; returns false when they do not fit.
    /// - Thread: the one producer (render).
    @_noLocks @discardableResult
    public func write(_ samples: UnsafePointer<Float>, count: Int) -> Bool {
        let t = tail.pointee.load(ordering: .relaxed)
        let h = head.pointee.load(ordering: .acquiring)
        if capacity - (t &- h) < count {
            droppedCount.pointee.add(count, ordering: .relaxed)
            return false
        }
        let mask = capacity - 1
        var i = 0
        while i < count {
            storage[(t &+ i) & mask] = samples[i]
            i += 1
        }
        tail.pointee.store(t &+ count, ordering: .releasing)
        return true
    }

    /// Reads up to `maxCount` samples into `out`; returns how many.
    /// - Thread: the one consumer.
    public func read(into out: UnsafeMutablePointer<Float>, maxCount: Int) -> Int {
        let h = head.pointee.load(ordering: .relaxed)
        let t = tail.pointee.load(ordering: .acquiring)
        let n = min(t &- h, maxCount)
        let mask = capacity - 1
        for i in 0..<n { out[i] = storage[(h &+ i) & mask] }
        head.pointee.store(h &+ n, ordering: .releasing)
        return n
    }

    /// Frees the storage. - Thread: setup, after both threads stopped.
    public func deallocate() {
        storage.deallocate()
        tail.deallocate(); head.deallocate(); droppedCount.deallocate()
    }
}
