// SPDX-License-Identifier: GPL-3.0-or-later
/// Bending across zones: a voice whose pitch leaves its region's range (`RegionPlacement`
/// `stayLow ..< stayHigh`) crosses to the region that holds the pitch at its velocity
/// (`Sound.zone`), with a
/// crossfade of `MixerConfiguration.zoneCrossfadeSeconds` between two voices.
///
/// The crossing starts at the frame of the move that left the range. A second voice (a
/// free one; none free: the voice stays on its region, stretched, until a later move) is
/// started on the new region, in the same state as the first — its glide to the same
/// pitch (on its own region's scale), its gain, its envelope where it stands, its timbre —
/// and at the same place in the sound: the same time into the sample at the same pitch,
/// then moved to the same phase of the cycle (the loader lines the regions' cycles up,
/// `RegionPlacement.cycleAnchor`), and into the new region's loop where the time lies past
/// its end. The touch's key then finds the new voice; the old one follows every move and
/// timbre of the touch until the crossfade ends, and is released with it.
///
/// The two voices' gains follow the `CrossfadeLaw` of the two regions' correlation at the
/// aligned phase (from the loader): equal power for unrelated sounds, equal gain for the
/// same sound, so the level stays where it was. The old voice ends where its gain reaches
/// 0; the new one goes on alone. One crossing at a time: a pitch that moves on past the
/// new region's range during the crossfade crosses again after it (checked at the next
/// move, or at the start of the period after the crossfade ended).
extension Mixer {
    /// The pitch of voice `v` (of touch `key`) now heads to `ratio`, its gain to `gain`
    /// (from frame `offset`; `retarget` done): the voice going out of a crossfade follows;
    /// a held voice whose pitch left its region's range crosses to the zone holding it.
    @_noLocks @inline(never)
    func followPitch(_ v: Int, key: TouchKey, ratio: Float, gain: Float, glide: Int32? = nil, at offset: Int32) {
        let role = voices.crossfadeRole[v]
        if role.isIncoming {
            let p = Int(voices.partner[v])
            if p >= 0 && !catchUp(p, to: offset) { retarget(p, key: voices.key[p], ratio: ratio, gain: gain, glide: glide) }
        }
        guard voices.rampStep[v] > 0 && !voices.released[v] && !voices.switchPending[v] && !voices.hasPending[v] else { return }
        let region = voices.region[v].unsafelyUnwrapped.pointee
        guard region.placement.zoned && !region.placement.keeps(ratio: ratio) else { return }
        if !role.isNone {
            // One crossing at a time: this one, after the crossfade ends.
            voices.zoneCheck[v] = true
            state.pointee.zoneChecks &+= 1
            return
        }
        let sound = sound(inSlot: Int(voices.soundSlot[v]))
        let from = Int(voices.regionIndex[v])
        let to = sound.zone(from: from, ratio: ratio, velocity: voices.velocity[v])
        if to != from { startCrossfade(v, to: to, of: sound, slot: Int(voices.soundSlot[v]), at: offset) }
    }

    /// The voices whose pitch left their region while they crossed into it: each crosses on
    /// now, at the period's first frame. - Thread: render, at a period's start.
    @_noLocks @inline(never)
    func crossPendingZones() {
        state.pointee.zoneChecks = 0
        var a = 0
        while a < state.pointee.activeCount {
            let v = Int(voices.active[a])
            if voices.zoneCheck[v] && voices.crossfadeRole[v].isNone {
                voices.zoneCheck[v] = false
                followPitch(v, key: voices.key[v], ratio: voices.ratioTarget[v], gain: voices.touchGain[v], at: 0)
            }
            a += 1
        }
    }

    /// The touch of voice `v` ended: the voice going out of its crossfade is released too.
    @_noLocks @inline(__always)
    func releasePartner(_ v: Int, at offset: Int32) {
        guard voices.crossfadeRole[v].isIncoming else { return }
        let p = Int(voices.partner[v])
        if p >= 0 && !catchUp(p, to: offset) && voices.rampStep[p] > 0 && !voices.released[p] && !voices.switchPending[p] {
            releaseVoice(p)
        }
    }

    /// Starts the crossfade of held voice `v` (of sound slot `slot`) into region `to` of
    /// `sound` at frame `offset` of the period.
    @_noLocks
    func startCrossfade(_ v: Int, to z: Int, of sound: Sound, slot: Int, at offset: Int32) {
        if state.pointee.freeCount == 0 { freeEndedVoices(at: offset) }
        guard state.pointee.freeCount > 0 else { return }
        let w = takeFreeVoice(at: offset)
        let region = UnsafePointer(sound.regions + z)
        let placement = region.pointee.placement
        voices.leaveCrossfade(w)
        voices.region[w] = region
        voices.table[w] = UnsafePointer(sound.tables + 2 * z)
        enterSound(w, slot: slot)
        voices.regionIndex[w] = Int32(truncatingIfNeeded: z)
        voices.scale[w] = placement.pitchScale
        voices.fadeSlope[w] = Mixer.edgeFadeScale(placement.pitchScale)
        voices.regionGain[w] = placement.gain
        voices.released[w] = false
        voices.switchPending[w] = false
        voices.special[w] = true
        voices.endPhase[w] = region.pointee.heldEndPhase
        voices.panLeft[w] = region.pointee.panLeft
        voices.panRight[w] = region.pointee.panRight
        voices.key[w] = voices.key[v]
        voices.age[w] = voices.age[v]
        voices.hasPending[w] = false
        voices.zoneCheck[w] = false
        // The glide where it stands, on the new region's scale and level.
        let left = voices.glideLeft[v]
        let unit = Float(1 << Mixer.fractionBits)
        let ratioNow = Float(voices.incTarget[v] &- voices.incStep[v] &* left) / (unit * voices.scale[v])
        let levelNow = voices.gainTarget[v] - voices.gainStep[v] * Float(left)
        let touchNow = voices.regionGain[v] > 0 ? levelNow / voices.regionGain[v] : voices.touchGain[v]
        voices.ratioTarget[w] = voices.ratioTarget[v]
        voices.touchGain[w] = voices.touchGain[v]
        voices.velocity[w] = voices.velocity[v]
        let incTarget = Mixer.increment(ratio: voices.ratioTarget[v] * placement.pitchScale)
        let gainTarget = voices.touchGain[v] * placement.gain
        voices.glideLeft[w] = left
        voices.incTarget[w] = incTarget
        voices.incStep[w] = left > 0 ? (incTarget &- Mixer.increment(ratio: ratioNow * placement.pitchScale)) / left : 0
        voices.gainTarget[w] = gainTarget
        voices.gainStep[w] = left > 0 ? (gainTarget - touchNow * placement.gain) / Float(left) : 0
        // The envelope where it stands.
        voices.ramp[w] = voices.ramp[v]; voices.rampStep[w] = voices.rampStep[v]
        voices.envFloor[w] = voices.envFloor[v]; voices.envSpan[w] = voices.envSpan[v]
        voices.stageLeft[w] = voices.stageLeft[v]; voices.watch[w] = voices.watch[v]
        voices.decayStep[w] = voices.decayStep[v]; voices.sustain[w] = voices.sustain[v]; voices.releaseStep[w] = voices.releaseStep[v]
        // The timbre where it stands; the new voice's filter starts from rest (its gain from 0).
        voices.timbreTarget[w] = voices.timbreTarget[v]; voices.timbreStep[w] = voices.timbreStep[v]
        voices.timbreLeft[w] = voices.timbreLeft[v]; voices.timbreFresh[w] = voices.timbreFresh[v]
        voices.filterLeft[w] = SIMD2(); voices.filterRight[w] = SIMD2(); voices.ringing[w] = false
        voices.phase[w] = crossingPhase(v, to: region.pointee)
        // The two parts of the crossfade.
        let from = voices.region[v].unsafelyUnwrapped.pointee.placement
        let correlation = Int32(truncatingIfNeeded: z) == from.above ? from.correlationAbove
            : Int32(truncatingIfNeeded: z) == from.below ? from.correlationBelow : 0
        voices.crossfadeRole[v] = .outgoing
        voices.crossfadeRole[w] = .incoming
        voices.crossfadeLeft[v] = state.pointee.crossfadeFrames; voices.crossfadeLeft[w] = state.pointee.crossfadeFrames
        // Their spans stop where the crossfade ends (`stageStop`).
        voices.watch[v] = true; voices.watch[w] = true
        voices.crossfadeCorrelation[v] = correlation; voices.crossfadeCorrelation[w] = correlation
        voices.partner[v] = Int32(truncatingIfNeeded: w)
        voices.partner[w] = Int32(truncatingIfNeeded: v)
        if let fx = effects, fx.voiceGroup[v] != 0 { join(fx, w, Int(fx.voiceGroup[v])) }
        voices.followsPitch[v] = true
        voices.followsPitch[w] = true
        voices.special[v] = true
        index.insert(voices.key[v], voice: w)
    }

    /// The phase (fixed-point, of its held table) at which a voice on `region` takes over
    /// from voice `v` (the type's rules: the same time, the same phase of the cycle, inside
    /// the loop).
    @_noLocks
    func crossingPhase(_ v: Int, to region: SoundRegion) -> Int64 {
        let unit = Double(1 << Mixer.fractionBits)
        let old = voices.region[v].unsafelyUnwrapped.pointee
        let phase = voices.phase[v]
        // Where voice v stands in its sound (frames): before a loop, or in a sound that
        // plays once, the held table is the sound itself.
        var position = Double(phase) / unit
        if old.loops, let p = old.heldSoundPosition(phase) { position = Double(p) / unit }
        let a = old.placement, b = region.placement
        // The same time into the sound, at the same pitch.
        var target = position * Double(b.pitchScale) / Double(a.pitchScale)
        // The same phase of the cycle, nearest that time.
        if a.cycleFrames > 0 && b.cycleFrames > 0 {
            let cycles = (position - a.cycleAnchor) / a.cycleFrames
            let phi = cycles - floorOf(cycles)
            let k = floorOf((target - b.cycleAnchor) / b.cycleFrames - phi + 0.5)
            target = b.cycleAnchor + (k + phi) * b.cycleFrames
        }
        // Inside the loop, where the time lies past it.
        if region.loops {
            let s = Double(region.loopStart), e = Double(region.loopEnd)
            if target >= e - 1 {
                let u = (target - s) / (e - s)
                target = s + (u - floorOf(u)) * (e - s)
            }
        }
        return Int64(max(target, 0) * unit)
    }

    /// Voice `v`'s crossfade after a span of `frames` frames (spans stop at its end,
    /// `stageStop`): where it ends, the voice going out ends, the one coming in goes on
    /// alone. - Thread: render.
    @_noLocks
    func advanceCrossfade(_ v: Int, frames: Int) {
        let left = voices.crossfadeLeft[v] &- Int32(truncatingIfNeeded: frames)
        voices.crossfadeLeft[v] = left
        guard left <= 0 else { return }
        let role = voices.crossfadeRole[v]
        voices.leaveCrossfade(v)
        voices.watch[v] = voices.stageLeft[v] > 0 || voices.hasPending[v]
        if role.isOutgoing {
            voices.ramp[v] = 0
            voices.rampStep[v] = min(voices.rampStep[v], -1)
            voices.stageLeft[v] = 0
            voices.envFloor[v] = 0
            voices.ringing[v] = false
        } else {
            voices.special[v] = !voices.region[v].unsafelyUnwrapped.pointee.isPlain || lowPass != nil
            voices.followsPitch[v] = voices.region[v].unsafelyUnwrapped.pointee.placement.zoned
        }
    }

    /// Voice `v`'s part of its crossfade over its next span (`.off` when it has none).
    @_noLocks @inline(__always)
    func crossfadeCurve(_ v: Int) -> CrossfadeCurve {
        let role = voices.crossfadeRole[v]
        if role.isNone { return .off }
        let step = state.pointee.crossfadeStep
        let place = Float(state.pointee.crossfadeFrames &- voices.crossfadeLeft[v]) * step
        return CrossfadeCurve(place: place, step: step, correlation: voices.crossfadeCorrelation[v], incoming: role.isIncoming)
    }
}

/// ⌊x⌋ for |x| < 2⁶³ (`rounded(.down)` is not checked-safe in a debug build).
@_noLocks @inline(__always)
func floorOf(_ x: Double) -> Double {
    let t = Double(Int64(x))
    return t > x ? t - 1 : t
}
