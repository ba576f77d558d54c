// SPDX-License-Identifier: GPL-3.0-or-later
/// Touch → voice lookup for the render thread: an open-addressing hash table (linear
/// probing, backward-shift deletion) allocated once for twice the polyphony, so finding
/// the voice of an event costs O(1) instead of a scan of every sounding voice (which made
/// a period with N moves cost N²).
///
/// Holds one entry per touch that owns a voice: a sounding (not releasing) voice's key,
/// or the pending key of a voice being stolen for it. Owner: the render thread (`Mixer`);
/// allocated at setup.
struct VoiceIndex {
    /// Buckets − 1 (a power of two, ≥ 2 · polyphony).
    let mask: Int
    /// Each bucket's touch.
    let keys: UnsafeMutablePointer<TouchKey>
    /// Each bucket's voice slot, or −1 for an empty bucket.
    let slots: UnsafeMutablePointer<Int32>

    init(voices: Int) {
        var size = 16
        while size < 2 * voices { size *= 2 }
        mask = size - 1
        keys = .allocate(capacity: size); keys.initialize(repeating: TouchKey(source: 0, touch: 0), count: size)
        slots = .allocate(capacity: size); slots.initialize(repeating: -1, count: size)
    }

    func deallocate() { keys.deallocate(); slots.deallocate() }

    @_noLocks @inline(__always)
    func home(_ key: TouchKey) -> Int {
        var h = UInt64(key.source) << 32 | UInt64(key.touch)
        h = (h ^ (h >> 33)) &* 0xff51_afd7_ed55_8ccd  // MurmurHash3 fmix64
        h = (h ^ (h >> 33)) &* 0xc4ce_b9fe_1a85_ec53
        h ^= h >> 33
        return Int(truncatingIfNeeded: h) & mask
    }

    /// The voice of `key`, or −1.
    @_noLocks @inline(__always)
    func find(_ key: TouchKey) -> Int {
        var i = home(key)
        while slots[i] >= 0 {
            if keys[i].matches(key) { return Int(slots[i]) }
            i = (i + 1) & mask
        }
        return -1
    }

    /// Maps `key` to voice `v` (replacing any entry of `key`).
    @_noLocks
    func insert(_ key: TouchKey, voice v: Int) {
        var i = home(key)
        while slots[i] >= 0 && !keys[i].matches(key) { i = (i + 1) & mask }
        keys[i] = key
        slots[i] = Int32(v)
    }

    /// Removes the entry of `key` if it maps to voice `v`.
    @_noLocks
    func remove(_ key: TouchKey, voice v: Int) {
        var i = home(key)
        while slots[i] >= 0 {
            if keys[i].matches(key) {
                if Int(slots[i]) != v { return }
                // Backward-shift deletion: pull later entries of the run into the hole.
                var hole = i
                var j = (i + 1) & mask
                while slots[j] >= 0 {
                    let h = home(keys[j])
                    // Entry j may move to the hole if its home is not in (hole, j].
                    let distanceToJ = (j - h) & mask
                    let distanceToHole = (hole - h) & mask
                    if distanceToHole < distanceToJ {
                        keys[hole] = keys[j]
                        slots[hole] = slots[j]
                        hole = j
                    }
                    j = (j + 1) & mask
                }
                slots[hole] = -1
                return
            }
            i = (i + 1) & mask
        }
    }
}
