// SPDX-License-Identifier: GPL-3.0-or-later
/// Span catch-up: during a period each voice is mixed into the mono mix in spans, from
/// where it stands (`VoiceBank.mixedTo`) up to the frame of its next event, and at the
/// end up to the period's end. An event costs one more span for its own voice only.
/// A span also ends where a steal fade ends, so the touch waiting for the voice starts
/// at that frame.
extension Mixer {
    /// Mixes voice `v` from where it stands in this period up to frame `to`; when its
    /// fade has ended there, starts the touch waiting for it, or frees it. Returns true
    /// when the voice was freed (its `active` slot now holds another voice).
    /// A voice already at `frame` is left as it is: its fade was checked when it got there.
    @_noLocks @inline(__always)
    @discardableResult
    func catchUp(_ v: Int, to frame: Int32) -> Bool {
        frame > voices.mixedTo[v] ? mixSpanOutOfLine(v, to: frame) : false
    }

    /// `mixSpan`, compiled once for the event paths.
    @_noLocks @inline(never)
    func mixSpanOutOfLine(_ v: Int, to frame: Int32) -> Bool { mixSpan(v, to: frame) }

    /// `catchUp` without the test: mixes voice `v` from where it stands to `frame`
    /// (nothing when it is there already), then checks its fade.
    @_noLocks @inline(__always)
    func mixSpan(_ v: Int, to frame: Int32) -> Bool {
        var from = voices.mixedTo[v]
        while frame > from {
            // A voice being stolen stops at the frame its fade ends, so the touch
            // waiting for it starts there (its attack from silence); an attack stops
            // where it ends, so the decay starts on the next frame (`Envelope`).
            var stop = frame
            let watched = voices.watch[v]
            if watched { stop = stageStop(v, from: from, to: frame) }
            if voices.special[v] {
                mixSpecialSpan(v, from: from, count: Int(stop &- from))
            } else {
                let table = voices.table[v]
                let mono = bus(v)
                switch state.pointee.interpolation {
                case .cubic: mixVoiceCubic(v, tone: table, into: mono + Int(from), count: Int(stop &- from))
                case .bandLimited:
                    // Until the tone's levels are installed (`ToneTable.install`), cubic. Their
                    // slot is read once per span; the kernel gets what it held.
                    if let levels = table.pointee.levels {
                        mixVoiceBandLimited(v, tone: table, levels: levels, into: mono + Int(from), count: Int(stop &- from))
                    } else {
                        mixVoiceCubic(v, tone: table, into: mono + Int(from), count: Int(stop &- from))
                    }
                case .linear: mixVoiceLinear(v, tone: table, into: mono + Int(from), count: Int(stop &- from))
                }
            }
            voices.mixedTo[v] = stop
            if watched && voices.stageLeft[v] > 0 { endStage(v, frames: stop &- from) }
            from = stop
            if voices.rampStep[v] < 0 && voices.ramp[v] <= 0 && !fadeEnded(v) { break }
        }
        if voices.rampStep[v] < 0 && voices.ramp[v] <= 0 { return freeIfEnded(v) }
        return false
    }

    /// Voice `v`'s fade has ended in a span: the touch waiting for it starts (true: mix
    /// on), or its filter still rings out (true), or it is done (false). Out of line, as
    /// `freeIfEnded`: `mixSpan` must stay small enough to be inlined into `render`.
    @_noLocks @inline(never)
    func fadeEnded(_ v: Int) -> Bool {
        guard voices.hasPending[v] else { return voices.ringing[v] }
        leaveSound(v)
        let slot = state.pointee.currentSound
        let sound = currentSound
        var region = Int(voices.pendingRegion[v])
        if Int(voices.pendingSlot[v]) != slot || region >= sound.count {
            // The sound was replaced while the touch waited.
            region = sound.select(ratio: voices.pendingRatio[v], gain: voices.pendingVelocity[v])
        }
        guard region >= 0 else {
            voices.hasPending[v] = false
            index.remove(voices.pendingKey[v], voice: v)
            return voices.ringing[v]
        }
        voices.start(v, key: voices.pendingKey[v], ratio: voices.pendingRatio[v], gain: voices.pendingGain[v],
                     velocity: voices.pendingVelocity[v], age: voices.age[v], envelope: state.pointee.envelope, sound: sound, index: region, slot: slot,
                     filtered: lowPass != nil, timbre: state.pointee.initialTimbre)
        enterSound(v, slot: slot)
        if effects != nil { startRegionSends(v) }
        return true
    }

    /// Frees voice `v`, whose fade has ended, unless a touch waits on it or its filter
    /// rings out; true when freed.
    @_noLocks @inline(never)
    func freeIfEnded(_ v: Int) -> Bool {
        guard !voices.hasPending[v] && !voices.ringing[v] else { return false }
        freeVoice(at: Int(voices.activeIndex[v]))
        return true
    }

    /// Mixes `count` frames of special voice `v` (`VoiceBank.special`) from frame `from`
    /// of the period: the table its region gives it (held, or release once released in a
    /// sustain loop), into the mono bus or, for a stereo or panned voice, the left and
    /// right buses (zeroed when the period first uses them). A voice whose table has
    /// gone silent for good (`VoiceBank.endPhase`) ends: its envelope is set to 0, so
    /// `mixSpan` frees it (or starts the touch waiting for it).
    @_noLocks @inline(never)
    func mixSpecialSpan(_ v: Int, from: Int32, count: Int) {
        let region = voices.region[v].unsafelyUnwrapped
        if voices.switchPending[v] { switchToRelease(v) }
        let table = voices.table[v]
        var levels: LevelTable?
        if case .bandLimited = state.pointee.interpolation { levels = table.pointee.levels }
        let filtered = lowPass != nil
        let curve = crossfadeCurve(v)
        let mono = bus(v)
        if table.pointee.channels == 1 && region.pointee.pan == 0 && !curve.active {
            mixSpecialVoice(v, tone: table, levels: levels, into: mono + Int(from), count: count, layout: .mono, filtered: filtered, curve: curve)
        } else {
            if !state.pointee.stereoBuses && mono == self.mono {
                let padded = (state.pointee.periodFrames + 7) & ~7
                (mono + busFrames).update(repeating: 0, count: busFrames + padded)
                state.pointee.stereoBuses = true
            }
            mixSpecialVoice(v, tone: table, levels: levels, into: mono + busFrames + Int(from), count: count,
                            layout: table.pointee.channels == 2 ? .stereo : .panned, filtered: filtered, curve: curve)
        }
        if curve.active { advanceCrossfade(v, frames: count) }
        voices.timbreFresh[v] = false
        if voices.phase[v] >= voices.endPhase[v] {
            if voices.rampStep[v] > 0 && !voices.released[v] && !voices.switchPending[v] { index.remove(voices.key[v], voice: v) }
            voices.ramp[v] = 0
            voices.rampStep[v] = min(voices.rampStep[v], -1)
            voices.stageLeft[v] = 0
            voices.envFloor[v] = 0
        }
    }

    /// Voice `v`'s filter as its span starts (`LowPassFilter`). - Thread: render.
    @_noLocks @inline(__always)
    func filterStart(_ v: Int) -> LowPassFilter {
        let l = voices.filterLeft[v], r = voices.filterRight[v]
        return LowPassFilter(grid: lowPass.unsafelyUnwrapped, timbreTarget: voices.timbreTarget[v], timbreStep: voices.timbreStep[v],
                             timbreLeft: voices.timbreLeft[v], left: LowPassState(l[0], l[1]), right: LowPassState(r[0], r[1]))
    }

    /// Voice `v`'s filter after a span of `count` frames: its state kept, its timbre glide
    /// advanced. - Thread: render.
    @_noLocks @inline(__always)
    func filterEnd(_ v: Int, _ filter: LowPassFilter, count: Int) {
        let l = SIMD2(filter.left.s0, filter.left.s1), r = SIMD2(filter.right.s0, filter.right.s1)
        voices.filterLeft[v] = l
        voices.filterRight[v] = r
        let energy = l * l + r * r
        voices.ringing[v] = energy[0] + energy[1] > 1e-12  // −120 dB
        voices.timbreLeft[v] = max(voices.timbreLeft[v] &- Int32(count), 0)
    }

    /// Voice `v`'s timbre goes to `value` (0…1, clamped; NaN: 1): at once when none came
    /// since it started, else gliding over the pitch glide's time from where it is.
    @_noLocks
    func setTimbre(_ v: Int, _ value: Float) {
        let t = value.isNaN ? 1 : min(max(value, 0), 1)
        if voices.timbreFresh[v] {
            voices.timbreTarget[v] = t; voices.timbreStep[v] = 0; voices.timbreLeft[v] = 0
            voices.timbreFresh[v] = false
            return
        }
        let glide = state.pointee.glideFrames
        let now = voices.timbreTarget[v] - voices.timbreStep[v] * Float(voices.timbreLeft[v])
        voices.timbreTarget[v] = t
        voices.timbreStep[v] = (t - now) / Float(glide)
        voices.timbreLeft[v] = glide
    }

    /// Voice `v`, released in its region's sustain loop, goes on in the region's release
    /// table at the sound frame its held phase stands for (`SoundRegion.soundPosition`):
    /// the same sound, which now plays through the loop's end into the tail. Before the
    /// loop's start (released in the attack) it stays in the held table, and tries again
    /// at its next span.
    @_noLocks
    func switchToRelease(_ v: Int) {
        let region = voices.region[v].unsafelyUnwrapped
        guard let position = region.pointee.soundPosition(heldPhase: voices.phase[v]) else {
            voices.switchPending[v] = true
            return
        }
        let bits = Int64(Mixer.fractionBits)
        voices.phase[v] = position - (Int64(region.pointee.releaseOrigin) << bits)
        voices.released[v] = true
        voices.table[v] = voices.table[v] + 1  // the region's release table, after its held one (`Mixer.tables`)
        voices.switchPending[v] = false
        voices.endPhase[v] = region.pointee.releaseEndPhase
    }

    /// Where a span of watched voice `v` from `from` must stop, at most `frame`: where its
    /// attack ends (`VoiceBank.stageLeft`), where its zone crossfade ends, or where the
    /// steal fade a touch waits on reaches 0. Out of line: only attacks with a decay after them and steals come here.
    @_noLocks @inline(never)
    func stageStop(_ v: Int, from: Int32, to frame: Int32) -> Int32 {
        var stop = frame
        let left = voices.stageLeft[v]
        if left > 0 && left < frame &- from { stop = from &+ left }
        let crossfade = voices.crossfadeLeft[v]
        if !voices.crossfadeRole[v].isNone && crossfade > 0 && crossfade < stop &- from { stop = from &+ crossfade }
        if voices.hasPending[v] && voices.rampStep[v] < 0 {
            let q = voices.ramp[v] / -voices.rampStep[v]  // frames to the fade's end, ≥ 0
            if q < Float(stop &- from) {
                let whole = Int32(q)
                stop = from &+ max(Float(whole) < q ? whole &+ 1 : whole, 1)
            }
        }
        return stop
    }

    /// Counts `frames` mixed frames off voice `v`'s attack; where it ends, the decay
    /// starts (`Envelope`: floor 1, span sustain − 1, the ramp rising again from 0).
    @_noLocks @inline(never)
    func endStage(_ v: Int, frames: Int32) {
        let left = voices.stageLeft[v] &- frames
        voices.stageLeft[v] = max(left, 0)
        guard left <= 0 else { return }
        if voices.releaseAfterAttack[v] {
            // Released during its attack: the release starts where the attack ended.
            voices.releaseAfterAttack[v] = false
            voices.ramp[v] = 1
            beginFade(v, step: voices.releaseStep[v])
            return
        }
        voices.envFloor[v] = 1
        voices.envSpan[v] = voices.sustain[v] - 1
        voices.ramp[v] = 0
        voices.rampStep[v] = voices.decayStep[v]
        voices.watch[v] = voices.hasPending[v]
    }

    /// Which band-limited read a span of `count` frames of voice `v` needs. The span's
    /// increments run monotonically from its first frame's to its last's, so those two
    /// say: the level of the lowest, and whether the span stays in it (`zones` 0: read
    /// alone, `LevelRead`, the cubic kernel's cost), touches the one crossfade zone above
    /// it (1: zone `level`'s two levels, the same for every lane, `CrossfadeRead`; k <
    /// count − 1 here, the last level being always pure) or more (2: zones
    /// `level…lastZone`, two levels chosen per lane, `BlendRead`).
    @_noLocks @inline(__always)
    func levelSpan(_ v: Int, levels: LevelTable, count: Int) -> (level: Int, zones: Int, lastZone: Int) {
        let glideLeft = voices.glideLeft[v], incTarget = voices.incTarget[v], incStep = voices.incStep[v]
        let first = incTarget &- incStep &* max(glideLeft, 0)
        let last = incTarget &- incStep &* max(glideLeft &- Int32(count &- 1), 0)
        let low = min(first, last), high = max(first, last)
        let (k, pure) = levels.level(low: low, high: high)
        if pure { return (k, 0, k) }
        if high < levels.zoneStart[k &+ 1] { return (k, 1, k) }
        let top = levels.level(low: high, high: high).level
        return (k, 2, min(top, levels.count &- 2))
    }

    /// `catchUp` of every sounding voice.
    @_noLocks
    func catchUpAll(to frame: Int32) {
        var a = 0
        while a < state.pointee.activeCount {
            if !catchUp(Int(voices.active[a]), to: frame) { a += 1 }
        }
    }
}
