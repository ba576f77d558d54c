// SPDX-License-Identifier: GPL-3.0-or-later
import Synchronization

/// A bounded single-producer/single-consumer queue of plain values, lock-free and
/// wait-free: control → render (`EngineEvent`s, one ring per input source) and render →
/// a non-real-time reader (the recorder's interleaved `Float` samples, written and read
/// in bulk).
///
/// A full ring drops the newest elements and counts them (`dropped`), so a flood from
/// one producer never blocks the consumer, and a slow consumer never blocks the render
/// thread.
///
/// Layout: one allocation, 64-byte aligned: the producer's cache line, the consumer's
/// cache line (`SPSCIndices`), then the slots. Each side writes only its own line.
///
/// Real-time checking: the compiler's performance checker rejects unspecialized generic
/// code, so the generic methods carry no `@_noLocks` themselves (they are `@inlinable`,
/// so a caller gets a copy specialized to its element type). What the render thread
/// calls is checked all the same: the index arithmetic (`SPSCIndices`) is `@_noLocks`,
/// and for the element types the render thread uses, `push`/`peek`/`pop` of `EngineEvent`
/// rings, `write` of `Float` rings and `push`/`peek`/`pop` of `MIDIPacket` rings are overloaded below with concrete `@_noLocks`
/// methods of the same names, which Swift picks over the generic ones. (They live in
/// this file because a debug build compiles each file on its own and cannot specialize
/// a generic body from another file of the module.)
///
/// A plain struct of pointers (no class reference), so the render thread uses it without
/// reference counting; copies share the ring. `deallocate()` frees it at shutdown, after
/// both threads have stopped.
public struct SPSCRing<Element: BitwiseCopyable>: @unchecked Sendable {
    @usableFromInline let indices: SPSCIndices
    @usableFromInline let slots: UnsafeMutablePointer<Element>

    /// - Parameter capacity: elements the ring holds, rounded up to a power of two (≥ 2).
    /// - Thread: setup.
    public init(capacity requested: Int) {
        var size = 2
        while size < requested { size <<= 1 }
        // The slots start after the two index lines: a multiple of 64 bytes, so aligned
        // for any element whose alignment is at most 64.
        let header = 2 * SPSCIndices.lineBytes
        let raw = UnsafeMutableRawPointer.allocate(byteCount: header + size * MemoryLayout<Element>.stride,
                                                   alignment: max(SPSCIndices.lineBytes, MemoryLayout<Element>.alignment))
        indices = SPSCIndices(header: raw, capacity: size)
        slots = (raw + header).bindMemory(to: Element.self, capacity: size)
    }

    /// Elements the ring can hold (a power of two).
    public var capacity: Int { indices.capacity }

    /// Elements dropped because the ring was full. - Thread: any.
    public var dropped: Int { indices.dropped }

    /// Elements waiting (approximate when read from a third thread). - Thread: any.
    public var count: Int { indices.count }

    /// Appends an element; returns false (and counts one drop) when the ring is full.
    /// - Thread: the one producer.
    @inlinable @inline(__always) @discardableResult
    public func push(_ element: Element) -> Bool { pushCore(element) }

    /// Appends `count` elements, all or none; returns false (and counts `count` drops)
    /// when they do not all fit.
    /// - Thread: the one producer.
    @inlinable @inline(__always) @discardableResult
    public func write(_ elements: UnsafePointer<Element>, count: Int) -> Bool { writeCore(elements, count: count) }

    /// The oldest element without removing it, or nil when empty.
    /// - Thread: the one consumer.
    @inlinable @inline(__always)
    public func peek() -> Element? { peekCore() }

    /// Removes the oldest element (after `peek` returned it).
    /// - Thread: the one consumer.
    @inlinable @inline(__always)
    public func pop() { popCore() }

    /// Moves up to `maxCount` of the oldest elements into `out`; returns how many.
    /// - Thread: the one consumer.
    @inlinable @inline(__always)
    public func read(into out: UnsafeMutablePointer<Element>, maxCount: Int) -> Int {
        let (h, available) = indices.readable()
        let n = min(available, maxCount)
        let start = h & indices.mask
        let first = min(n, indices.capacity &- start)
        var i = 0
        while i < first { out[i] = slots[start &+ i]; i &+= 1 }
        while i < n { out[i] = slots[i &- first]; i &+= 1 }
        indices.consume(n)
        return n
    }

    // The bodies of `push`, `write`, `peek` and `pop`, shared with the checked overloads.

    @inlinable @inline(__always)
    func pushCore(_ element: Element) -> Bool {
        guard let t = indices.reserve(1) else { return false }
        slots[t & indices.mask] = element
        indices.publish(tail: t &+ 1)
        return true
    }

    @inlinable @inline(__always)
    func writeCore(_ elements: UnsafePointer<Element>, count: Int) -> Bool {
        guard let t = indices.reserve(count) else { return false }
        // Two contiguous stretches: up to the end of the slots, then from their start.
        let start = t & indices.mask
        let first = min(count, indices.capacity &- start)
        var i = 0
        while i < first { slots[start &+ i] = elements[i]; i &+= 1 }
        while i < count { slots[i &- first] = elements[i]; i &+= 1 }
        indices.publish(tail: t &+ count)
        return true
    }

    @inlinable @inline(__always)
    func peekCore() -> Element? {
        let (h, n) = indices.readable()
        if n == 0 { return nil }
        return slots[h & indices.mask]
    }

    @inlinable @inline(__always)
    func popCore() {
        indices.consume(1)
    }

    /// Frees the ring. - Thread: setup, after producer and consumer stopped.
    public func deallocate() {
        indices.deinitialize()
        UnsafeMutableRawPointer(indices.producer).deallocate()
    }
}

/// The render thread's side of the event rings (control → render), specialized and
/// checked: `Mixer` takes its events through these.
extension SPSCRing where Element == EngineEvent {
    /// Appends an event; returns false (and counts one drop) when the ring is full.
    /// - Thread: the one producer (a port's control thread, or a plugin's render thread
    ///   whose own events are rendered in the same call).
    @_noLocks @inline(__always) @discardableResult
    public func push(_ event: EngineEvent) -> Bool { pushCore(event) }

    /// Slots free now (exact on the producer's thread; the consumer only frees more).
    /// - Thread: the one producer.
    public var freeSlots: Int { @_noLocks @inline(__always) get { indices.capacity &- indices.count } }

    /// The oldest event without removing it, or nil when empty.
    /// - Thread: render (the one consumer).
    @_noLocks @inline(__always)
    public func peek() -> EngineEvent? { peekCore() }

    /// Removes the oldest event (after `peek` returned it).
    /// - Thread: render (the one consumer).
    @_noLocks @inline(__always)
    public func pop() { popCore() }
}

/// The tempo ring (a tempo source → render, `Mixer.publishTempo`), specialized and checked.
extension SPSCRing where Element == TempoClock {
    /// Appends a clock; returns false (and counts one drop) when the ring is full.
    /// - Thread: the one producer.
    @_noLocks @inline(__always) @discardableResult
    public func push(_ clock: TempoClock) -> Bool { pushCore(clock) }

    /// The oldest clock without removing it, or nil. - Thread: render (the consumer).
    @_noLocks @inline(__always)
    public func peek() -> TempoClock? { peekCore() }

    /// Removes the oldest clock. - Thread: render (the consumer).
    @_noLocks @inline(__always)
    public func pop() { popCore() }
}

/// The render thread's side of the sample rings (render → recorder), specialized and
/// checked: the audio render loops record each period through this.
extension SPSCRing where Element == Float {
    /// Appends `count` samples, all or none; returns false (and counts `count` drops)
    /// when they do not all fit.
    /// - Thread: render (the one producer).
    @_noLocks @inline(__always) @discardableResult
    public func write(_ samples: UnsafePointer<Float>, count: Int) -> Bool { writeCore(samples, count: count) }
}

/// The render thread's side of the MIDI rings, specialized and checked: JACK's process
/// callback pushes what `midi_in` received and takes what `midi_out` must send.
extension SPSCRing where Element == MIDIPacket {
    /// Appends a packet; returns false (and counts one drop) when the ring is full.
    /// - Thread: render (the producer of a MIDI-in ring).
    @_noLocks @inline(__always) @discardableResult
    public func push(_ packet: MIDIPacket) -> Bool { pushCore(packet) }

    /// The oldest packet without removing it, or nil when empty.
    /// - Thread: render (the consumer of a MIDI-out ring).
    @_noLocks @inline(__always)
    public func peek() -> MIDIPacket? { peekCore() }

    /// Removes the oldest packet (after `peek` returned it).
    /// - Thread: render (the consumer of a MIDI-out ring).
    @_noLocks @inline(__always)
    public func pop() { popCore() }
}

/// The render thread's side of the retired-sound ring (render → control,
/// `Mixer.takeRetired`): pointer bits of the sounds no voice plays any more.
extension SPSCRing where Element == Int {
    /// Appends a value; returns false (and counts one drop) when the ring is full.
    /// - Thread: render (the one producer).
    @_noLocks @inline(__always) @discardableResult
    public func push(_ value: Int) -> Bool { pushCore(value) }
}

/// The indices of an `SPSCRing`, on two cache lines at the start of its allocation:
///
/// - the producer's line: `tail` (elements ever written), the producer's copy of `head`
///   as it last read it, and the drop count;
/// - the consumer's line: `head` (elements ever read), the consumer's copy of `tail` as
///   it last read it.
///
/// Each side writes only its own line and reads the other side's index only when its
/// copy says the ring is full (producer) or empty (consumer), so the two threads pass a
/// cache line between them only when they must (the design of Rigtorp's `SPSCQueue`).
/// The indices grow without bound (an `Int` does not wrap in practice); `tail − head`
/// is the fill level, `index & mask` the slot.
@usableFromInline
struct SPSCIndices {
    /// Bytes of one cache line: the two sides' lines are this far apart.
    static var lineBytes: Int { 64 }

    /// The producer's line: [0] tail, [1] head as last read, [2] dropped.
    @usableFromInline let producer: UnsafeMutablePointer<Atomic<Int>>
    /// The consumer's line: [0] head, [1] tail as last read.
    @usableFromInline let consumer: UnsafeMutablePointer<Atomic<Int>>
    /// Slots, a power of two.
    @usableFromInline let capacity: Int
    /// `capacity − 1`.
    @usableFromInline let mask: Int

    /// - Parameter header: 2 · `lineBytes` bytes, 64-byte aligned, uninitialized.
    init(header: UnsafeMutableRawPointer, capacity: Int) {
        self.capacity = capacity
        mask = capacity - 1
        producer = header.bindMemory(to: Atomic<Int>.self, capacity: 3)
        consumer = (header + SPSCIndices.lineBytes).bindMemory(to: Atomic<Int>.self, capacity: 2)
        for i in 0..<3 { (producer + i).initialize(to: Atomic(0)) }
        for i in 0..<2 { (consumer + i).initialize(to: Atomic(0)) }
    }

    func deinitialize() {
        producer.deinitialize(count: 3)
        consumer.deinitialize(count: 2)
    }

    var dropped: Int { producer[2].load(ordering: .relaxed) }

    var count: Int {
        @_noLocks get { producer[0].load(ordering: .acquiring) &- consumer[0].load(ordering: .acquiring) }
    }

    /// The tail at which `count` more elements may be written, or nil (counting `count`
    /// drops) when they do not fit. - Thread: the one producer.
    @inlinable @_noLocks @inline(__always)
    func reserve(_ count: Int) -> Int? {
        let t = producer[0].load(ordering: .relaxed)
        if capacity &- (t &- producer[1].load(ordering: .relaxed)) >= count { return t }
        let h = consumer[0].load(ordering: .acquiring)  // the slots it read are free
        producer[1].store(h, ordering: .relaxed)
        if capacity &- (t &- h) >= count { return t }
        producer[2].add(count, ordering: .relaxed)
        return nil
    }

    /// Makes the elements written before `tail` visible to the consumer.
    /// - Thread: the one producer.
    @inlinable @_noLocks @inline(__always)
    func publish(tail: Int) {
        producer[0].store(tail, ordering: .releasing)
    }

    /// The head and the number of elements readable from it.
    /// - Thread: the one consumer.
    @inlinable @_noLocks @inline(__always)
    func readable() -> (head: Int, count: Int) {
        let h = consumer[0].load(ordering: .relaxed)
        let known = consumer[1].load(ordering: .relaxed) &- h
        if known > 0 { return (h, known) }
        let t = producer[0].load(ordering: .acquiring)  // the slots it wrote are readable
        consumer[1].store(t, ordering: .relaxed)
        return (h, t &- h)
    }

    /// Frees the `count` oldest slots for the producer. - Thread: the one consumer.
    @inlinable @_noLocks @inline(__always)
    func consume(_ count: Int) {
        let h = consumer[0].load(ordering: .relaxed)
        consumer[0].store(h &+ count, ordering: .releasing)
    }
}
