// SPDX-License-Identifier: GPL-3.0-or-later
/// Voice allocation and stealing of `Mixer` (sfizz's `VoiceStealing` is the model: the
/// policy that picks a victim sits apart from the voices it picks from).
///
/// Voices live in two dense lists of `VoiceBank`: `active` (sounding or fading,
/// `State.activeCount`) and `free` (a stack, `State.freeCount`). A touch takes a free
/// voice; when there is none, or `State.voiceLimit` voices already sound, voices whose
/// fade ended before the touch's frame are freed first, and only then is a voice stolen:
/// it fades out fast (`stealSeconds`) and the touch waits on it (`VoiceBank.hasPending`)
/// until the fade ends, then starts from silence at that frame (`VoiceSpans.swift`).
extension Mixer {
    /// Starts a voice for `key` at frame `offset` of the period, with pitch `ratio` and
    /// linear `gain` (edge fade included), on the region of the current sound that
    /// `ratio` and `velocity` (the touch's gain before the edge fade) select, stealing a
    /// voice when every voice is busy (or the limit's are). No region for them: no voice.
    @_noLocks
    func startVoice(_ key: TouchKey, ratio: Float, gain: Float, velocity: Float, at offset: Int32) {
        let slot = state.pointee.currentSound
        let sound = currentSound
        let region = sound.select(ratio: ratio, gain: velocity)
        guard region >= 0 else { return }
        let age = state.pointee.nextAge
        state.pointee.nextAge = age &+ 1
        if state.pointee.freeCount == 0 || state.pointee.activeCount >= state.pointee.voiceLimit { freeEndedVoices(at: offset) }
        if state.pointee.freeCount > 0 && state.pointee.activeCount < state.pointee.voiceLimit {
            let v = takeFreeVoice(at: offset)
            voices.start(v, key: key, ratio: ratio, gain: gain, velocity: velocity, age: age, envelope: state.pointee.envelope, sound: sound, index: region,
                         slot: slot, filtered: lowPass != nil, timbre: state.pointee.initialTimbre)
            enterSound(v, slot: slot)
            index.insert(key, voice: v)
            if effects != nil { startRegionSends(v) }
            return
        }
        let victim = stealVictim()
        steal(victim, for: key, ratio: ratio, gain: gain, age: age, at: offset)
        voices.pendingVelocity[victim] = velocity
        voices.pendingRegion[victim] = Int32(truncatingIfNeeded: region)
        voices.pendingSlot[victim] = Int8(truncatingIfNeeded: slot)
    }

    /// Takes a voice off the free stack (there is one) into the active list, mixed from
    /// frame `offset` of the period on. - Thread: render.
    @_noLocks @inline(__always)
    func takeFreeVoice(at offset: Int32) -> Int {
        state.pointee.freeCount -= 1
        let v = Int(voices.free[state.pointee.freeCount])
        voices.active[state.pointee.activeCount] = Int32(v)
        voices.activeIndex[v] = Int32(state.pointee.activeCount)
        voices.mixedTo[v] = offset
        state.pointee.activeCount += 1
        return v
    }

    /// At most `count` voices sound at once from now on (1…`configuration.voices`, the
    /// voices allocated): a touch that would start one more steals, as when every voice
    /// is busy. Voices already sounding beyond a lowered limit are not cut: they end
    /// with their touches, and each new touch meanwhile steals one of them.
    /// - Thread: render (between periods).
    @_noLocks
    public func setVoiceLimit(_ count: Int) {
        state.pointee.voiceLimit = min(max(count, 1), configuration.voices)
    }

    /// Catches every voice that is fading out (released, no touch waiting) up to frame
    /// `offset`: those whose fade ended before it are freed.
    @_noLocks @inline(__always)
    func freeEndedVoices(at offset: Int32) {
        var a = 0
        while a < state.pointee.activeCount {
            let v = Int(voices.active[a])
            if voices.rampStep[v] < 0 && !voices.hasPending[v] && catchUp(v, to: offset) { continue }
            a += 1
        }
    }

    /// The voice to steal when every voice is busy, the policy in one place: a voice
    /// already fading out first, then the oldest sounding one; a voice whose fade a touch
    /// already waits on last, the one with the oldest waiting touch first among those.
    @_noLocks @inline(__always)
    func stealVictim() -> Int {
        var victim = -1
        var best = UInt64.max
        var a = 0
        while a < state.pointee.activeCount {
            let v = Int(voices.active[a])
            // A fade, a tail, or the part of a zone crossfade that is going.
            let fading = voices.rampStep[v] < 0 || voices.released[v] || voices.switchPending[v] || voices.crossfadeRole[v].isOutgoing
            let rank = voices.hasPending[v] ? (1 << 63) | voices.age[v] : (fading ? 0 : voices.age[v] & ~(1 << 63))
            if rank < best || victim < 0 { best = rank; victim = v }
            a += 1
        }
        return victim
    }

    /// Steals voice `victim` for touch `key`: its steal fade starts at frame `offset`,
    /// and `key` (with `ratio`, `gain` and start order `age`) waits on it. A touch that
    /// was already waiting on it is dropped.
    @_noLocks @inline(__always)
    func steal(_ victim: Int, for key: TouchKey, ratio: Float, gain: Float, age: UInt64, at offset: Int32) {
        catchUp(victim, to: offset)  // its steal fade starts at this frame
        if voices.hasPending[victim] {
            index.remove(voices.pendingKey[victim], voice: victim)  // that waiting touch is dropped
        } else if voices.rampStep[victim] > 0 {
            index.remove(voices.key[victim], voice: victim)
        }
        index.insert(key, voice: victim)
        leaveGroup(victim)
        voices.hasPending[victim] = true
        beginFade(victim, step: state.pointee.stealStep)
        voices.pendingKey[victim] = key
        voices.pendingRatio[victim] = ratio
        voices.pendingGain[victim] = gain
        voices.age[victim] = age
    }

    /// Moves the voice at `active[a]` to the free stack (its fade has ended); the last
    /// active voice takes its place in `active`.
    @_noLocks
    func freeVoice(at a: Int) {
        let v = voices.active[a]
        leaveSound(Int(v))
        leaveGroup(Int(v))
        voices.leaveCrossfade(Int(v))
        state.pointee.activeCount -= 1
        let moved = voices.active[state.pointee.activeCount]
        voices.active[a] = moved
        voices.activeIndex[Int(moved)] = Int32(a)
        voices.activeIndex[Int(v)] = -1
        voices.free[state.pointee.freeCount] = v
        state.pointee.freeCount += 1
    }
}
