// SPDX-License-Identifier: GPL-3.0-or-later
/// Event merge and dispatch of `Mixer`: the events of every input source's ring, taken
/// in frame order, each applied at its frame of the period (sample-accurate). An event
/// first catches its own voice up to its frame (`VoiceSpans.swift`), then changes it.
extension Mixer {
    /// Takes every queued event whose frame falls before `end` from the sources' rings,
    /// in frame order across the sources, and applies each at its offset in the period
    /// that starts at stream frame `start` (`out`: the period's output, for the pan stage).
    ///
    /// A k-way merge without a heap: find the ring whose head is earliest (and the next
    /// earliest head of another ring), then take that ring's events up to there. Ties go
    /// to the lower source index; events stamped before `start` (late) count as its
    /// first frame.
    @_noLocks @inline(__always)
    func takeEvents(from start: UInt64, to end: UInt64, out: UnsafeMutablePointer<Float>) {
        let sources = state.pointee.sourceCount
        while true {
            var best = -1, bestFrame = end
            var second = Int.max, secondFrame = end
            var r = 0
            while r < sources {
                if let event = head(r) {
                    let frame = max(event.frame, start)
                    if frame < bestFrame {
                        second = best; secondFrame = bestFrame
                        best = r; bestFrame = frame
                    } else if frame < secondFrame {
                        second = r; secondFrame = frame
                    }
                }
                r += 1
            }
            if best < 0 { break }
            let ring = rings[best]
            while let event = head(best) {
                let frame = max(event.frame, start)
                // Ties go to the lower source index.
                if frame > secondFrame || (frame == secondFrame && (second < best || frame == end)) { break }
                ring.pop()
                // (Never before what the pan stage has already written out: only after
                // a flood of pan events, for an event pushed late during this render.)
                let offset = max(Int32(truncatingIfNeeded: frame &- start), Int32(state.pointee.pannedTo))
                if arpeggiator.on {
                    let at = start &+ UInt64(offset)
                    arpeggiate(to: at, start: start, out: out)
                    takeClocks(through: at, start: start)
                    if arpTake(event, at: offset, start: start, out: out) { continue }
                }
                if case .move = event.kind {
                    move(event, at: offset)  // the common event, inline
                } else {
                    apply(event, at: offset, out: out)
                }
            }
        }
    }

    /// The next event of source `r`'s ring, past the events its cut drops (events for
    /// after the cut frame, `Mixer.cut`); a `.releaseSource` is never dropped, it takes
    /// effect at the cut frame at the latest.
    @_noLocks @inline(__always)
    func head(_ r: Int) -> EngineEvent? {
        let ring = rings[r]
        while var event = ring.peek() {
            let cut = cuts[r].load(ordering: .relaxed)
            if event.frame <= cut { return event }
            if case .releaseSource = event.kind {
                event.frame = cut
                return event
            }
            ring.pop()
        }
        return nil
    }

    /// The gain a voice glides to (linear gain): `gain`, faded linearly to 0 below
    /// `EngineLimits.silenceRatio`.
    @_noLocks @inline(__always)
    static func edgeFadedGain(_ gain: Float, ratio: Float) -> Float {
        gain * min(max(ratio, 0) * (1 / EngineLimits.silenceRatio), 1)
    }

    /// Bends the voice of a `.move` event's touch, from frame `offset` of the period.
    @_noLocks @inline(__always)
    func move(_ event: EngineEvent, at offset: Int32) {
        let v = index.find(event.key)
        if v >= 0 && !catchUp(v, to: offset) {
            let gain = Mixer.edgeFadedGain(event.gain, ratio: event.value)
            let glide = event.glide == 0 ? state.pointee.glideFrames : Int32(event.glide)
            retarget(v, key: event.key, ratio: event.value, gain: gain, glide: glide)
            if voices.followsPitch[v] {
                followPitch(v, key: event.key, ratio: event.value, gain: gain, glide: glide, at: offset)
            }
        }
    }

    /// Applies `event` at frame `offset` of the current period (`out`: the period's
    /// output, for the pan stage when its event list is full). `render` takes moves,
    /// the common event, through `move` inline.
    @_noLocks @inline(never)
    func apply(_ event: EngineEvent, at offset: Int32, out: UnsafeMutablePointer<Float>) {
        switch event.kind {
        case .down:
            var v = index.find(event.key)
            if v >= 0 && catchUp(v, to: offset) { v = -1 }
            let gain = Mixer.edgeFadedGain(event.gain, ratio: event.value)
            if v >= 0 {
                retarget(v, key: event.key, ratio: event.value, gain: gain)
                followPitch(v, key: event.key, ratio: event.value, gain: gain, at: offset)
            } else {
                startVoice(event.key, ratio: event.value, gain: gain, velocity: event.gain, at: offset)
            }
        case .move:
            move(event, at: offset)
        case .up:
            let v = index.find(event.key)
            if v >= 0 && !catchUp(v, to: offset) {
                releasePartner(v, at: offset)
                release(v, key: event.key)
            }
        case .pan:
            queuePan(event, at: offset, out: out)
        case .releaseSource:
            catchUpAll(to: offset)
            releaseMatching(source: event.key.source, all: false)
            // The cut it came with (`head`) is done: the source's later events play.
            _ = cuts[Int(event.key.source)].compareExchange(expected: event.frame, desired: .max, ordering: .relaxed)
        case .releaseAll:
            catchUpAll(to: offset)
            releaseMatching(source: 0, all: true)
        case .timbre:
            let v = index.find(event.key)
            if v >= 0 && lowPass != nil && !catchUp(v, to: offset) && !voices.hasPending[v] {
                setTimbre(v, event.value)
                let p = Int(voices.partner[v])
                if p >= 0 && voices.crossfadeRole[v].isIncoming && !catchUp(p, to: offset) { setTimbre(p, event.value) }
            }
        case .send, .sendDefault:
            applySend(event, at: offset)
        }
    }

    /// Voice `v` glides to pitch `ratio` and linear `gain` over `glide` frames (≥ 1; nil:
    /// `State.glideFrames`), from where it is now; or, when `key` is the touch waiting for
    /// `v`'s steal fade, that touch will start with them.
    @_noLocks @inline(__always)
    func retarget(_ v: Int, key: TouchKey, ratio: Float, gain: Float, glide given: Int32? = nil) {
        if voices.hasPending[v] && voices.pendingKey[v].matches(key) {
            voices.pendingRatio[v] = ratio
            voices.pendingGain[v] = gain
        } else {
            // Glide from where the voice is now to the new target.
            let glide = given ?? state.pointee.glideFrames
            let left = voices.glideLeft[v]
            let incNow = voices.incTarget[v] &- voices.incStep[v] &* left
            let gainNow = voices.gainTarget[v] - voices.gainStep[v] * Float(left)
            // The region's scale and level ride on the increment and gain.
            voices.ratioTarget[v] = ratio
            voices.touchGain[v] = gain
            let inc = Mixer.increment(ratio: ratio * voices.scale[v])
            let level = gain * voices.regionGain[v]
            voices.incTarget[v] = inc
            voices.incStep[v] = (inc &- incNow) / glide
            voices.gainTarget[v] = level
            voices.gainStep[v] = (level - gainNow) / Float(glide)
            voices.glideLeft[v] = glide
        }
    }

    /// Releases voice `v` of touch `key` (its release fade starts), or drops `key` when it
    /// is the touch still waiting for `v`; `key` no longer finds a voice.
    @_noLocks
    func release(_ v: Int, key: TouchKey) {
        if voices.hasPending[v] && voices.pendingKey[v].matches(key) {
            voices.hasPending[v] = false  // the waiting touch ended before it sounded
        } else {
            releaseVoice(v)
        }
        index.remove(key, voice: v)
    }

    /// The touch of held voice `v` has ended: its release fade starts, and in its region's
    /// sustain loop it goes on into the release table (`switchToRelease`); a one-shot
    /// sound plays on to its end, and so does a released sound whose region does not fade
    /// (`SoundRegion.releaseFades`).
    @_noLocks @inline(__always)
    func releaseVoice(_ v: Int) {
        if voices.special[v] {
            let region = voices.region[v].unsafelyUnwrapped
            if region.pointee.sustainLoop { switchToRelease(v) }
            if !region.pointee.releaseFades { return }
        }
        // A touch shorter than a short attack (a 1 ms tap) still sounds whole: the attack
        // ends, then the release starts (`endStage`).
        if voices.rampStep[v] >= state.pointee.shortAttackStep && voices.envFloor[v] == 0 && voices.ramp[v] < 1 {
            // Frames to the attack's end: counted already when a decay follows it, else
            // from the ramp (to the nearest frame: where it reaches 1 is a whole frame).
            if voices.stageLeft[v] <= 0 {
                voices.stageLeft[v] = max(Int32((1 - voices.ramp[v]) / voices.rampStep[v] + 0.5), 1)
            }
            voices.releaseAfterAttack[v] = true
            voices.watch[v] = true
            return
        }
        beginFade(v, step: voices.releaseStep[v])
    }

    /// Voice `v`'s envelope starts falling to 0 at ramp step `step` (< 0; a fade already
    /// faster is kept) from the level it has now: a voice in its decay or sustain
    /// (floor 1) first takes floor 0, span = that level, ramp 1 (`Envelope`); an attack
    /// that would go on into a decay no longer does.
    @_noLocks @inline(__always)
    func beginFade(_ v: Int, step: Float) {
        if voices.envFloor[v] != 0 {
            let r = voices.ramp[v]
            voices.envSpan[v] = voices.envFloor[v] + voices.envSpan[v] * (r * r * (3 - 2 * r))
            voices.envFloor[v] = 0
            voices.ramp[v] = 1
        }
        voices.rampStep[v] = min(voices.rampStep[v], step)
        voices.stageLeft[v] = 0
        voices.releaseAfterAttack[v] = false
        voices.watch[v] = voices.hasPending[v]
    }

    /// Releases every voice (`all`) or every voice of input source `source`, and drops
    /// their waiting touches; voices must have been caught up to the event's frame.
    @_noLocks
    func releaseMatching(source: UInt32, all: Bool) {
        var a = 0
        while a < state.pointee.activeCount {
            let v = Int(voices.active[a])
            if voices.hasPending[v] && (all || voices.pendingKey[v].source == source) {
                voices.hasPending[v] = false
                index.remove(voices.pendingKey[v], voice: v)
            }
            if all || voices.key[v].source == source {
                if voices.rampStep[v] > 0 && !voices.released[v] && !voices.switchPending[v] {
                    index.remove(voices.key[v], voice: v)
                    releaseVoice(v)
                } else {
                    beginFade(v, step: voices.releaseStep[v])
                }
            }
            a += 1
        }
    }
}
