// SPDX-License-Identifier: GPL-3.0-or-later
import Synchronization

/// The sounds of `Mixer` and how a new one comes in without a lock (an LV2 host's worker
/// loading a tone, `play` reloading an SFZ file that changed).
///
/// A control thread hands a sound over with `replace`: its pointer goes into one atomic
/// slot (`incomingSound`). The render thread takes it at the start of its next period
/// (`takeIncomingSound`) into one of `soundSlotCount` sound slots and starts every new
/// touch on it from then on. Voices already sounding keep playing the sound they started
/// on, to their end: a held note does not jump to another sample. A sound that no voice
/// plays any more and that is not the current one is given back through the retired ring
/// (`takeRetired`), for its owner to free on its own thread: nothing is freed on the
/// render thread. When all slots are taken (sounds replaced faster than their voices
/// end), the oldest replaced sound's voices fade out fast (`stealSeconds`, as a stolen
/// voice) so its slot frees, and the new sound waits in `incomingSound` until then.
extension Mixer {
    /// Sounds a mixer holds at once: the current one and those replaced that still sound.
    static var soundSlotCount: Int { @_noLocks @inline(__always) get { 8 } }

    /// Hands `sound` to the render thread: new touches start on it from its next period.
    /// Returns a sound handed over earlier that the render thread had not taken yet
    /// (replaced again before a period ran): the caller frees it.
    /// The caller keeps `sound` alive until it comes back from `takeRetired` (or the mixer
    /// is freed: `heldSounds`). - Thread: one control thread at a time.
    @discardableResult
    public func replace(with sound: Sound) -> Sound? {
        let box = UnsafeMutablePointer<Sound>.allocate(capacity: 1)
        box.initialize(to: sound)
        let old = incomingSound.pointee.exchange(Int(bitPattern: box), ordering: .acquiringAndReleasing)
        guard let displaced = UnsafeMutablePointer<Sound>(bitPattern: old) else { return nil }
        defer { displaced.deinitialize(count: 1); displaced.deallocate() }
        return displaced.pointee
    }

    /// A sound that no voice plays any more and that new touches no longer start on, or
    /// nil: its owner may free it now. - Thread: one control thread at a time.
    public func takeRetired() -> Sound? {
        guard let bits = retiredSounds.peek() else { return nil }
        retiredSounds.pop()
        guard let box = UnsafeMutablePointer<Sound>(bitPattern: bits) else { return nil }
        defer { box.deinitialize(count: 1); box.deallocate() }
        return box.pointee
    }

    /// Whether a sound waits in `takeRetired` (a render thread can ask the owner to
    /// collect it). - Thread: any.
    public var hasRetired: Bool { @_noLocks get { retiredSounds.indices.count > 0 } }

    /// The sounds the mixer still holds (the current one, replaced ones still sounding,
    /// one handed over and not yet taken), for their owners to free after the mixer
    /// stopped. - Thread: setup, after the render thread stopped.
    public var heldSounds: [Sound] {
        var held = (0..<Mixer.soundSlotCount).compactMap { sounds[$0]?.pointee }
        if let box = UnsafeMutablePointer<Sound>(bitPattern: incomingSound.pointee.load(ordering: .acquiring)) { held.append(box.pointee) }
        return held
    }

    /// The sound new touches start on. - Thread: render.
    var currentSound: Sound {
        @_noLocks @inline(__always) get { sounds[state.pointee.currentSound].unsafelyUnwrapped.pointee }
    }

    /// The sound of slot `slot`. - Thread: render.
    @_noLocks @inline(__always)
    func sound(inSlot slot: Int) -> Sound { sounds[slot].unsafelyUnwrapped.pointee }

    /// Takes a sound handed over by `replace`, when one waits and a slot is free: it is the
    /// current sound from now on; the one before is retired once no voice plays it.
    /// - Thread: render, at a period's start.
    @_noLocks
    func takeIncomingSound() {
        guard incomingSound.pointee.load(ordering: .relaxed) != 0 else { return }
        var free = -1
        var s = 0
        while s < Mixer.soundSlotCount {
            if sounds[s] == nil { free = s; break }
            s += 1
        }
        guard free >= 0 else {
            fadeOldestReplacedSound()
            return
        }
        let bits = incomingSound.pointee.exchange(0, ordering: .acquiring)
        guard let box = UnsafeMutablePointer<Sound>(bitPattern: bits) else { return }
        sounds[free] = box
        soundVoices[free] = 0
        let old = state.pointee.currentSound
        state.pointee.currentSound = free
        if soundVoices[old] == 0 { retireSound(old) }
    }

    /// Counts voice `v` in sound slot `slot` (it starts playing that slot's sound).
    /// - Thread: render.
    @_noLocks @inline(__always)
    func enterSound(_ v: Int, slot: Int) {
        soundVoices[slot] &+= 1
        voices.soundSlot[v] = Int8(truncatingIfNeeded: slot)
    }

    /// Voice `v` no longer plays its sound (it ended, or restarts for another touch): a
    /// replaced sound that it was the last voice of is retired. - Thread: render.
    @_noLocks @inline(__always)
    func leaveSound(_ v: Int) {
        let slot = Int(voices.soundSlot[v])
        guard slot >= 0 else { return }
        voices.soundSlot[v] = -1
        soundVoices[slot] &-= 1
        if soundVoices[slot] <= 0 && slot != state.pointee.currentSound { retireSound(slot) }
    }

    /// Gives slot `slot`'s sound back (`takeRetired`) and frees the slot. - Thread: render.
    @_noLocks
    func retireSound(_ slot: Int) {
        guard let box = sounds[slot] else { return }
        retiredSounds.push(Int(bitPattern: box))
        sounds[slot] = nil
        soundVoices[slot] = 0
    }

    /// Every slot is taken and a new sound waits: the voices of the replaced sound with
    /// the fewest voices fade out fast, so its slot frees soon (their touches lose their
    /// voices, as stolen ones do). - Thread: render.
    @_noLocks
    func fadeOldestReplacedSound() {
        var victim = -1
        var s = 0
        while s < Mixer.soundSlotCount {
            if s != state.pointee.currentSound && sounds[s] != nil && (victim < 0 || soundVoices[s] < soundVoices[victim]) { victim = s }
            s += 1
        }
        guard victim >= 0 else { return }
        var a = 0
        while a < state.pointee.activeCount {
            let v = Int(voices.active[a])
            // (A voice being stolen fades already; its waiting touch starts on the current sound.)
            if Int(voices.soundSlot[v]) == victim && !voices.hasPending[v] {
                if voices.rampStep[v] > 0 { index.remove(voices.key[v], voice: v) }
                beginFade(v, step: state.pointee.stealStep)
            }
            a += 1
        }
    }
}
