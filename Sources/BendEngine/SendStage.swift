// SPDX-License-Identifier: GPL-3.0-or-later
/// The send stage of `Mixer` (`SendEffects`): which buses a voice mixes into, the send
/// groups' events, the sends gathered before each pan stage segment, and the effects run
/// at the period's end.
extension Mixer {
    /// The buses voice `v` mixes into: the mixer's own (`mono`, then left and right), or
    /// its send group's, zeroed when the period first uses them.
    /// - Thread: render.
    @_noLocks @inline(__always)
    func bus(_ v: Int) -> UnsafeMutablePointer<Float> {
        guard let fx = effects else { return mono }
        let g = Int(fx.voiceGroup[v])
        return g == 0 ? mono : groupBus(fx, g)
    }

    @_noLocks @inline(never)
    func groupBus(_ fx: SendEffects, _ g: Int) -> UnsafeMutablePointer<Float> {
        let base = fx.groupBuses + (g &- 1) &* 3 &* busFrames
        let s = fx.state
        if fx.stamp[g] != s.pointee.period {
            fx.stamp[g] = s.pointee.period
            let padded = (state.pointee.periodFrames + 7) & ~7
            base.update(repeating: 0, count: padded)
            (base + busFrames).update(repeating: 0, count: padded)
            (base + 2 &* busFrames).update(repeating: 0, count: padded)
            fx.used[s.pointee.usedCount] = UInt8(truncatingIfNeeded: g)
            s.pointee.usedCount &+= 1
            // The group's left and right buses are added into the mixer's: they must hold 0.
            if !state.pointee.stereoBuses {
                (mono + busFrames).update(repeating: 0, count: busFrames + padded)
                state.pointee.stereoBuses = true
            }
        }
        return base
    }

    /// The period starts: which sends are computed (any group sending to them).
    @_noLocks
    func beginSends(_ fx: SendEffects) {
        let s = fx.state
        s.pointee.period &+= 1
        s.pointee.usedCount = 0
        // Groups freed in the last period: no frame of this one is theirs.
        while s.pointee.retiredCount > 0 {
            s.pointee.retiredCount &-= 1
            fx.free[s.pointee.freeCount] = fx.retired[s.pointee.retiredCount]
            s.pointee.freeCount &+= 1
        }
        var b = 0
        while b < 3 { s.pointee.active[b] = fx.sends(b) ? 1 : 0; b &+= 1 }
    }

    /// Bus `b` is computed from now on in this period: what was panned before is 0.
    @_noLocks
    func activateSend(_ fx: SendEffects, _ b: Int) {
        guard fx.state.pointee.active[b] == 0 else { return }
        (fx.sendStereo + b &* 2 &* busFrames).update(repeating: 0, count: 2 &* state.pointee.pannedTo)
        fx.state.pointee.active[b] = 1
    }

    /// A `.send` event: the touch's voice (and its crossfade partner) gets a send group of
    /// its own, whose level for the event's bus glides to its value.
    @_noLocks
    func applySend(_ event: EngineEvent, at offset: Int32) {
        guard let fx = effects, event.bus < 3 else { return }
        let bus = Int(event.bus)
        if case .sendDefault = event.kind {
            fx.glide(0, bus, to: event.value)
            if event.value > 0 { activateSend(fx, bus) }
            return
        }
        let v = index.find(event.key)
        guard v >= 0 && !catchUp(v, to: offset) else { return }
        var g = Int(fx.voiceGroup[v])
        if g == 0 {
            // The default's own level, settled: nothing to take a group for (the mix stays
            // the one without sends, bit for bit).
            let value = event.value.isNaN ? 0 : min(max(event.value, 0), 1)
            if fx.settled(bus, at: value) { return }
            g = takeGroup(fx)
            guard g > 0 else { return }
            // The group starts where group 0 stands at this frame, and glides from here.
            let o = Int(offset)
            var b = 0
            while b < 3 {
                let k = g &* 3 &+ b
                fx.level[k] = fx.level(b, at: o); fx.target[k] = fx.target[b]
                let rest = Int(fx.left[b]) - max(0, o &+ 1 &- Int(fx.start[b]))
                fx.left[k] = Int32(max(rest, 0)); fx.step[k] = rest > 0 ? fx.step[b] : 0
                fx.start[k] = Int32(truncatingIfNeeded: o &+ 1)
                b &+= 1
            }
            join(fx, v, g)
            // Its other voice in a zone crossfade (not a steal victim's former partner).
            let p = Int(voices.partner[v])
            if p >= 0 && !voices.hasPending[v] && voices.crossfadeRole[v].isIncoming && fx.voiceGroup[p] == 0
                && !catchUp(p, to: offset) { join(fx, p, g) }
        }
        fx.glide(g, bus, to: event.value)
        if event.value > 0 { activateSend(fx, bus) }
    }

    /// A voice starting on a region with sends of its own (`SoundRegion.effectSends`):
    /// it takes a send group at once, at those levels (no glide: it starts from silence).
    @_noLocks
    func startRegionSends(_ v: Int) {
        guard let fx = effects, let region = voices.region[v] else { return }
        let sends = region.pointee.effectSends
        guard sends[0] >= 0 || sends[1] >= 0, fx.voiceGroup[v] == 0 else { return }
        // Sends equal to the default's settled ones: the voice stays in group 0.
        if (sends[0] < 0 || fx.settled(0, at: min(sends[0], 1))) && (sends[1] < 0 || fx.settled(2, at: min(sends[1], 1))) { return }
        let g = takeGroup(fx)
        guard g > 0 else { return }
        var b = 0
        while b < 3 {
            // Reverb ← effect1, chorus ← effect2, the delay at the default.
            let own = b == 0 ? sends[0] : b == 2 ? sends[1] : -1
            let level = own >= 0 ? min(own, 1) : fx.target[b]
            fx.level[g &* 3 &+ b] = level; fx.target[g &* 3 &+ b] = level; fx.step[g &* 3 &+ b] = 0; fx.left[g &* 3 &+ b] = 0
            fx.start[g &* 3 &+ b] = 0
            if level > 0 { activateSend(fx, b) }
            b &+= 1
        }
        join(fx, v, g)
    }

    /// A free send group, or 0 when none is left (the touch keeps the default sends;
    /// `exhausted` counts it).
    @_noLocks @inline(__always)
    func takeGroup(_ fx: SendEffects) -> Int {
        let s = fx.state
        guard s.pointee.freeCount > 0 else { s.pointee.exhausted &+= 1; return 0 }
        s.pointee.freeCount &-= 1
        return Int(fx.free[s.pointee.freeCount])
    }

    @_noLocks @inline(__always)
    func join(_ fx: SendEffects, _ v: Int, _ g: Int) {
        fx.voiceGroup[v] = UInt8(truncatingIfNeeded: g)
        fx.members[g] &+= 1
    }

    /// Voice `v` leaves its send group (it ended, or was stolen for another touch); the
    /// last to leave frees the group.
    @_noLocks
    func leaveGroup(_ v: Int) {
        guard let fx = effects else { return }
        let g = Int(fx.voiceGroup[v])
        guard g != 0 else { return }
        fx.voiceGroup[v] = 0
        fx.members[g] &-= 1
        if fx.members[g] <= 0 {
            // Retired, not freed: its buses may hold frames of this period still to be
            // gathered; it is free from the next period.
            fx.members[g] = 0
            let s = fx.state
            fx.retired[s.pointee.retiredCount] = UInt8(truncatingIfNeeded: g)
            s.pointee.retiredCount &+= 1
        }
    }

    /// Before the pan stage pans frames `from..<from + count`: each computed bus's sends
    /// (group 0's level times the mixer's buses, plus each used group's level times its
    /// buses), then the groups' buses added into the mixer's.
    @_noLocks
    func gatherSends(_ fx: SendEffects, from: Int, count: Int) {
        let s = fx.state.pointee
        let stereo = state.pointee.stereoBuses
        let end = from &+ count
        var b = 0
        while b < 3 {
            if s.active[b] != 0 {
                let dst = fx.sendBuses + b &* 3 &* busFrames
                scaled(into: dst, from: mono, fx, group: 0, bus: b, from: from, to: end, add: false, stereo: stereo)
                var u = 0
                while u < s.usedCount {
                    let g = Int(fx.used[u])
                    scaled(into: dst, from: fx.groupBuses + (g &- 1) &* 3 &* busFrames, fx, group: g, bus: b, from: from, to: end, add: true, stereo: true)
                    u &+= 1
                }
            }
            b &+= 1
        }
        var u = 0
        while u < s.usedCount {
            let src = fx.groupBuses + (Int(fx.used[u]) &- 1) &* 3 &* busFrames
            var i = from
            while i < end {
                mono[i] += src[i]
                mono[busFrames &+ i] += src[busFrames &+ i]
                mono[2 &* busFrames &+ i] += src[2 &* busFrames &+ i]
                i &+= 1
            }
            u &+= 1
        }
    }

    /// `dst` (three buses) = or += the send level of `group` on `bus` (gliding per frame
    /// from the period's start) times `src`'s three buses, frames `from..<to`.
    @_noLocks @inline(__always)
    func scaled(into dst: UnsafeMutablePointer<Float>, from src: UnsafeMutablePointer<Float>, _ fx: SendEffects, group: Int, bus: Int,
                from: Int, to: Int, add: Bool, stereo: Bool) {
        let k = group &* 3 &+ bus
        let level = fx.level[k], step = fx.step[k], target = fx.target[k], left = Int(fx.left[k]), first = Int(fx.start[k])
        let f = busFrames
        var i = from
        while i < to {
            let l = i < first ? level : (i &- first < left ? level + step * Float(i &- first &+ 1) : target)
            let m = l * src[i]
            let lo = stereo ? l * src[f &+ i] : 0, hi = stereo ? l * src[2 &* f &+ i] : 0
            if add {
                dst[i] += m; dst[f &+ i] += lo; dst[2 &* f &+ i] += hi
            } else {
                dst[i] = m; dst[f &+ i] = lo; dst[2 &* f &+ i] = hi
            }
            i &+= 1
        }
    }

    /// The period's effects, into `out` (before the master gain): the delay (and its part
    /// of the reverb's send), the chorus, the reverb; each only when it has input or a tail.
    /// Then every send level's glide moves on by the period.
    @_noLocks
    func runEffects(_ fx: SendEffects, _ out: UnsafeMutablePointer<Float>, frames: Int) {
        let s = fx.state
        let quiet = SendEffects.quiet
        let reverbIn = fx.sendStereo, delayIn = fx.sendStereo + 2 &* busFrames, chorusIn = fx.sendStereo + 4 &* busFrames
        var tail = s.pointee.tail
        // An effect runs while it has input, while its input may still be on its way to its
        // output (`awake`: its latency after the last input), and while its tail sounds.
        var awake = s.pointee.awake
        var ran = SIMD4<UInt8>()
        let latency = s.pointee.latencyFrames
        if s.pointee.active[1] != 0 { awake[1] = Int32(clamping: 2 &* fx.delay.delayFrames) }
        if s.pointee.active[1] != 0 || tail[1] > quiet || awake[1] > 0 {
            if s.pointee.active[1] == 0 { delayIn.update(repeating: 0, count: 2 &* frames) }
            // Woken: what the line held from before its sleep is not echoed.
            if s.pointee.ran[1] == 0 { fx.delay.forget() }
            let toReverb = s.pointee.toReverb
            if toReverb > 0 { activateSend(fx, 0) }
            tail[1] = fx.delay.process(delayIn, into: out, frames: frames, reverbIn: toReverb > 0 ? reverbIn : nil, toReverb: toReverb)
            ran[1] = 1
        }
        if s.pointee.active[2] != 0 { awake[2] = latency }
        if s.pointee.active[2] != 0 || tail[2] > quiet || awake[2] > 0 {
            if s.pointee.active[2] == 0 { chorusIn.update(repeating: 0, count: 2 &* frames) }
            tail[2] = fx.chorus.process(chorusIn, into: out, frames: frames)
            ran[2] = 1
        }
        if s.pointee.active[0] != 0 { awake[0] = latency }
        if s.pointee.active[0] != 0 || tail[0] > quiet || awake[0] > 0 {
            if s.pointee.active[0] == 0 { reverbIn.update(repeating: 0, count: 2 &* frames) }
            tail[0] = fx.reverb.process(reverbIn, into: out, frames: frames)
            ran[0] = 1
        }
        let elapsed = Int32(clamping: frames)
        awake = awake &- SIMD4(repeating: elapsed)
        awake.replace(with: 0, where: awake .< 0)
        s.pointee.awake = awake
        s.pointee.ran = ran
        s.pointee.tail = tail
        meters[4].store(UInt64(max(tail[0], max(tail[1], tail[2])).bitPattern), ordering: .relaxed)
        var k = 0
        while k < SendEffects.groupCount &* 3 {
            let l = Int(fx.left[k])
            if l > 0 {
                let n = min(l, max(0, frames &- Int(fx.start[k])))
                fx.level[k] = n == l ? fx.target[k] : fx.level[k] + fx.step[k] * Float(n)
                fx.left[k] = Int32(l &- n)
            }
            fx.start[k] = 0
            k &+= 1
        }
    }

    // MARK: - The host's controls (render thread, between periods)

    /// The effects' tail level: the largest sample the effects added in the last period, or
    /// that the delay still holds (linear; 0 without effects). - Thread: any.
    public var effectsTail: Float { @_noLocks get { Float(bitPattern: UInt32(truncatingIfNeeded: meters[4].load(ordering: .relaxed))) } }

    /// The default send (group 0's) of `bus` glides to `level` (0…1).
    /// - Thread: render (between periods).
    @_noLocks
    public func setDefaultSend(_ bus: SendBus, _ level: Float) {
        effects?.glide(0, Int(bus.index), to: level)
    }

    /// New reverb, delay and chorus controls (`Reverb.set`, `EchoDelay.set`, `Chorus.set`:
    /// each glides or crossfades); the delay's note values stay of the tempo clock's.
    /// - Thread: render (between periods).
    @_noLocks
    public func setEffects(reverb: ReverbSettings, delay: DelaySettings, chorus: ChorusSettings) {
        guard let fx = effects else { return }
        if reverb.differs(from: fx.reverb.settings) { fx.reverb.set(reverb) }
        if chorus.differs(from: fx.chorus.state.pointee.settings) { fx.chorus.set(chorus) }
        let s = fx.state
        if delay.differs(from: s.pointee.delaySettings) {
            s.pointee.delaySettings = delay
            s.pointee.toReverb = Float(min(max(delay.toReverb, 0), 1))
            fx.delay.set(delay, tempo: s.pointee.tempo)
        }
    }

    /// The delay's note values follow the tempo clock's `bpm` (a crossfade to the new
    /// time, `EchoDelay.set`). - Thread: render (a period's start).
    @_noLocks
    func followTempo(_ fx: SendEffects, bpm: Double) {
        let s = fx.state
        guard bpm != s.pointee.tempo else { return }
        s.pointee.tempo = bpm
        fx.delay.set(s.pointee.delaySettings, tempo: bpm)
    }
}
