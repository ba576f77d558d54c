// SPDX-License-Identifier: GPL-3.0-or-later
/// A fixed-capacity map of touch ids to small values for a source's real-time state
/// (`TouchGate`): open addressing with linear probing and backward-shift deletion, in
/// buffers allocated once, so nothing allocates, locks or grows on the thread that uses
/// it (a plugin's render thread, or a port's control thread under its lock).
///
/// A struct of pointers: copies share the table; `deallocate()` frees it.
/// - Thread: one at a time (the owner's).
public struct TouchTable: @unchecked Sendable {
    /// Entries it holds at most.
    public let capacity: Int
    /// Buckets − 1 (a power of two, ≥ 2 · capacity).
    let mask: Int
    /// Each bucket's key + 1 (0: an empty bucket), so every UInt32 is a key.
    let keys: UnsafeMutablePointer<UInt64>
    let values: UnsafeMutablePointer<UInt32>
    /// [entries held now].
    let counts: UnsafeMutablePointer<Int>

    /// - Thread: setup.
    public init(capacity: Int) {
        self.capacity = max(capacity, 1)
        var size = 16
        while size < 2 * self.capacity { size *= 2 }
        mask = size - 1
        keys = .allocate(capacity: size); keys.initialize(repeating: 0, count: size)
        values = .allocate(capacity: size); values.initialize(repeating: 0, count: size)
        counts = .allocate(capacity: 1); counts.initialize(to: 0)
    }

    /// - Thread: setup, once no thread uses it.
    public func deallocate() { keys.deallocate(); values.deallocate(); counts.deallocate() }

    /// Entries held now.
    public var count: Int { @_noLocks @inline(__always) get { counts.pointee } }

    @_noLocks @inline(__always)
    func home(_ key: UInt32) -> Int {
        var h = UInt64(key) &+ 1
        h = (h ^ (h >> 33)) &* 0xff51_afd7_ed55_8ccd  // MurmurHash3 fmix64
        h ^= h >> 33
        return Int(truncatingIfNeeded: h) & mask
    }

    /// The bucket of `key`, or −1.
    @_noLocks @inline(__always)
    func bucket(_ key: UInt32) -> Int {
        let k = UInt64(key) &+ 1
        var b = home(key)
        while keys[b] != 0 {
            if keys[b] == k { return b }
            b = (b + 1) & mask
        }
        return -1
    }

    /// The value of `key`, or nil.
    @_noLocks @inline(__always)
    public subscript(key: UInt32) -> UInt32? {
        let b = bucket(key)
        return b < 0 ? nil : values[b]
    }

    /// Sets `key`'s value. Returns false (nothing changed) when `key` is new and the
    /// table holds `capacity` entries.
    @_noLocks @discardableResult
    public func set(_ key: UInt32, _ value: UInt32) -> Bool {
        let k = UInt64(key) &+ 1
        var b = home(key)
        while keys[b] != 0 {
            if keys[b] == k { values[b] = value; return true }
            b = (b + 1) & mask
        }
        guard counts.pointee < capacity else { return false }
        keys[b] = k
        values[b] = value
        counts.pointee += 1
        return true
    }

    /// Removes `key`; returns its value, or nil when it was not there.
    @_noLocks @discardableResult
    public func remove(_ key: UInt32) -> UInt32? {
        var b = bucket(key)
        guard b >= 0 else { return nil }
        let removed = values[b]
        counts.pointee -= 1
        // Backward-shift deletion: move later entries of the probe chain into the gap,
        // so lookups never need tombstones.
        var next = (b + 1) & mask
        while keys[next] != 0 {
            let h = home(UInt32(truncatingIfNeeded: keys[next] &- 1))
            // Move `next` into `b` when its home is not in (b, next] (cyclically).
            if (next > b && (h <= b || h > next)) || (next < b && h <= b && h > next) {
                keys[b] = keys[next]
                values[b] = values[next]
                b = next
            }
            next = (next + 1) & mask
        }
        keys[b] = 0
        return removed
    }

    /// Removes every entry.
    @_noLocks
    public func removeAll() {
        guard counts.pointee > 0 else { return }
        var b = 0
        while b <= mask { keys[b] = 0; b += 1 }
        counts.pointee = 0
    }

    /// The keys whose value has a bit of `mask` set, in increasing order, into `out`
    /// (room for `capacity` keys). Returns how many.
    @_noLocks
    public func sortedKeys(where bits: UInt32, into out: UnsafeMutablePointer<UInt32>) -> Int {
        var n = 0
        var b = 0
        while b <= mask {
            if keys[b] != 0 && values[b] & bits != 0 {
                out[n] = UInt32(truncatingIfNeeded: keys[b] &- 1)
                n += 1
            }
            b += 1
        }
        TouchTable.heapSort(out, count: n)
        return n
    }

    /// In-place heap sort (O(n log n), no allocation).
    @_noLocks
    static func heapSort(_ a: UnsafeMutablePointer<UInt32>, count n: Int) {
        guard n > 1 else { return }
        var start = n / 2
        while start > 0 { start -= 1; siftDown(a, start, n) }
        var end = n
        while end > 1 {
            end -= 1
            let t = a[0]; a[0] = a[end]; a[end] = t
            siftDown(a, 0, end)
        }
    }

    @_noLocks @inline(__always)
    static func siftDown(_ a: UnsafeMutablePointer<UInt32>, _ start: Int, _ end: Int) {
        var root = start
        while 2 * root + 1 < end {
            var child = 2 * root + 1
            if child + 1 < end && a[child] < a[child + 1] { child += 1 }
            if a[root] >= a[child] { return }
            let t = a[root]; a[root] = a[child]; a[child] = t
            root = child
        }
    }
}
