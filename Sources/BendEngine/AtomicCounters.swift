// SPDX-License-Identifier: GPL-3.0-or-later
import Synchronization

/// Counters and flags that a render thread and its callbacks update and any thread
/// reads: one atomic `Int` per case of `Slot`, allocated at setup (`init`), freed by
/// `deallocate` once no thread uses them. The ALSA output names its slots in
/// `ALSACounter`, the JACK output in `JACKCounter` (BendAudio); both count their xruns
/// here.
///
/// `add` is relaxed (a count); `set` releases and `get` acquires, so a flag set after
/// other stores (`running`, `shutdown`) is read with them.
///
/// Each output gives its slots' typed `add`/`set`/`get` in an extension
/// `where Slot == ItsSlots`, in the file that declares the slots: a debug build
/// specializes a generic only from its own file, so a body that read `slot.rawValue`
/// through the protocol could not be checked as `@_noLocks` where an output calls it;
/// the index methods here use nothing of `Slot`.
public struct AtomicCounters<Slot: RawRepresentable & CaseIterable>: @unchecked Sendable where Slot.RawValue == Int {
    @usableFromInline let slots: UnsafeMutablePointer<Atomic<Int>>

    /// - Thread: setup.
    public init() {
        slots = .allocate(capacity: Slot.allCases.count)
        for i in 0..<Slot.allCases.count { (slots + i).initialize(to: Atomic(0)) }
    }

    /// - Thread: setup, after every thread that updates or reads them is done.
    public func deallocate() { slots.deallocate() }

    /// Adds `n` to slot `index` (a `Slot`'s raw value). - Thread: any.
    @_noLocks @inlinable @inline(__always)
    public func add(at index: Int, _ n: Int = 1) { slots[index].add(n, ordering: .relaxed) }
    /// - Thread: any.
    @_noLocks @inlinable @inline(__always)
    public func set(at index: Int, _ value: Int) { slots[index].store(value, ordering: .releasing) }
    /// - Thread: any.
    @_noLocks @inlinable @inline(__always)
    public func get(at index: Int) -> Int { slots[index].load(ordering: .acquiring) }
}
