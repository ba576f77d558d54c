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
            switch state.pointee.interpolation {
            case .cubic: mixVoiceCubic(v, into: mono + Int(from), count: Int(stop &- from))
            case .bandLimited:
                // Until the tone's levels are installed (`ToneTable.install`), cubic. Their
                // slot is read once per span; the kernel gets what it held.
                if let levels = tone.levels {
                    mixVoiceBandLimited(v, levels: levels, into: mono + Int(from), count: Int(stop &- from))
                } else {
                    mixVoiceCubic(v, into: mono + Int(from), count: Int(stop &- from))
                }
            case .linear: mixVoiceLinear(v, into: mono + Int(from), count: Int(stop &- from))
            }
            voices.mixedTo[v] = stop
            if watched && voices.stageLeft[v] > 0 { endStage(v, frames: stop &- from) }
            from = stop
            if voices.rampStep[v] < 0 && voices.ramp[v] <= 0 {
                if !voices.hasPending[v] { break }
                voices.start(v, key: voices.pendingKey[v], ratio: voices.pendingRatio[v],
                             gain: voices.pendingGain[v], age: voices.age[v], envelope: state.pointee.envelope)
            }
        }
        if voices.rampStep[v] < 0 && voices.ramp[v] <= 0 && !voices.hasPending[v] {
            freeVoice(at: Int(voices.activeIndex[v]))
            return true
        }
        return false
    }

    /// Where a span of watched voice `v` from `from` must stop, at most `frame`: where its
    /// attack ends (`VoiceBank.stageLeft`), or where the steal fade a touch waits on
    /// reaches 0. Out of line: only attacks with a decay after them and steals come here.
    @_noLocks @inline(never)
    func stageStop(_ v: Int, from: Int32, to frame: Int32) -> Int32 {
        var stop = frame
        let left = voices.stageLeft[v]
        if left > 0 && left < frame &- from { stop = from &+ left }
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
        voices.envFloor[v] = 1
        voices.envSpan[v] = voices.sustain[v] - 1
        voices.ramp[v] = 0
        voices.rampStep[v] = voices.decayStep[v]
        voices.watch[v] = voices.hasPending[v]
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
