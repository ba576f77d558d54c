// SPDX-License-Identifier: GPL-3.0-or-later
/// The tempo and the arpeggiator in `Mixer`'s period: clocks taken at their frames, the
/// arpeggiator's steps and gate ends played between the sources' events in frame order
/// (`takeEvents` calls `arpeggiate` before each event), so every note starts on the
/// frame nearest its beat. At one frame: clocks first, then the sources' events, then
/// a gate's end, then a step — three touches that come down on a step's frame are all in
/// that step's pattern.
extension Mixer {
    /// The period that starts at stream frame `start` begins: clocks due by then are
    /// taken, and the delay's note values follow the tempo. - Thread: render.
    @_noLocks
    func beginTempo(at start: UInt64) {
        takeClocks(through: start, start: start)
        if let effects { followTempo(effects, bpm: tempoTrack.clock.pointee.bpm) }
    }

    /// The period ends at stream frame `end`: the arpeggiator's steps and gate ends before
    /// it played, the clocks stamped inside it taken. - Thread: render.
    @_noLocks
    func endTempo(at end: UInt64, start: UInt64, out: UnsafeMutablePointer<Float>) {
        if arpeggiator.on { arpeggiate(to: end, start: start, out: out) }
        takeClocks(through: end &- 1, start: start)
    }

    /// Takes the clocks stamped at or before `frame` (one stamped before the period,
    /// `start`, counts as its first frame). - Thread: render.
    @_noLocks
    func takeClocks(through frame: UInt64, start: UInt64) {
        while let c = tempoTrack.ring.peek() {
            let at = max(c.frame, start)
            if at > frame { return }
            tempoTrack.ring.pop()
            let now = c.advanced(to: at)
            tempoTrack.clock.pointee = now
            regrid(now, at: at)
        }
    }

    /// The arpeggiator's grid follows clock `c` from stream frame `at`: the clock's beat
    /// while it plays; while it stands still, the grid steps on at its tempo from where it is.
    @_noLocks
    func regrid(_ c: TempoClock, at: UInt64) {
        let s = arpeggiator.state
        let beat = c.playing ? c.beat : s.pointee.anchorBeat + (Double(at) - Double(s.pointee.anchorFrame)) / s.pointee.framesPerBeat
        s.pointee.anchorFrame = at
        s.pointee.anchorBeat = beat
        s.pointee.framesPerBeat = c.framesPerBeat(rate: configuration.rate)
        if s.pointee.nextFrame != .max { arpeggiator.seekStep(from: at, beatUnit: c.beatUnit) }
    }

    /// Plays the arpeggiator's clocks, gate ends and steps before stream frame `target`,
    /// in the period that starts at `start`. - Thread: render.
    @_noLocks
    func arpeggiate(to target: UInt64, start: UInt64, out: UnsafeMutablePointer<Float>) {
        let s = arpeggiator.state
        while true {
            let clockAt = tempoTrack.ring.peek().map { max($0.frame, start) } ?? .max
            let next = min(clockAt, min(s.pointee.noteOff, s.pointee.nextFrame))
            if next >= target { return }
            if clockAt == next {
                takeClocks(through: next, start: start)
            } else if s.pointee.noteOff == next {
                endArpNote(at: next, start: start, out: out)
            } else {
                arpStep(at: next, start: start, out: out)
            }
        }
    }

    /// One step at stream frame `at`: the pattern's next touch starts a note at its pitch
    /// now, for the gate's share of the step; with no touch held the pattern stops.
    @_noLocks
    func arpStep(at: UInt64, start: UInt64, out: UnsafeMutablePointer<Float>) {
        let a = arpeggiator, s = a.state
        if s.pointee.noteOff != .max { endArpNote(at: at, start: start, out: out) }
        guard s.pointee.count > 0 else {
            s.pointee.nextFrame = .max
            s.pointee.played = 0
            return
        }
        let (i, octave) = a.choose(s.pointee.played)
        s.pointee.played &+= 1
        let slot = a.slots[i]
        let key = TouchKey(source: Arpeggiator.source, touch: s.pointee.noteCount)
        s.pointee.noteCount &+= 1
        let lift = Float(1 << octave)
        let offset = Int32(truncatingIfNeeded: at &- start)
        apply(EngineEvent(frame: at, kind: .down, key: key, value: slot.ratio * lift, gain: slot.gain), at: offset, out: out)
        if slot.timbre >= 0 { apply(EngineEvent(frame: at, kind: .timbre, key: key, value: slot.timbre), at: offset, out: out) }
        s.pointee.noteKey = key
        s.pointee.noteTouch = slot.key
        s.pointee.noteOctave = lift
        let beatUnit = tempoTrack.clock.pointee.beatUnit
        let n = s.pointee.nextStep &+ 1
        let following = a.frame(ofStep: n, beatUnit: beatUnit)
        let length = Double(following > at ? following &- at : 1)
        let gate = min(max(s.pointee.settings.gate, 0.05), 1)
        s.pointee.noteOff = at &+ UInt64(max(1, gate * length + 0.5))
        s.pointee.nextStep = n
        s.pointee.nextFrame = max(following, at &+ 1)
    }

    /// The sounding note's gate ends at stream frame `at` (its voice released).
    @_noLocks
    func endArpNote(at: UInt64, start: UInt64, out: UnsafeMutablePointer<Float>) {
        let s = arpeggiator.state
        s.pointee.noteOff = .max
        let offset = Int32(truncatingIfNeeded: (at > start ? at : start) &- start)
        apply(EngineEvent(frame: at, kind: .up, key: s.pointee.noteKey), at: offset, out: out)
    }

    /// A source's event while the arpeggiator is on, at frame `offset` of the period that
    /// starts at `start`: a touch's down, move, up and timbre go to its slot (true: taken);
    /// a source's or every release also empties the slots (and is then applied as usual).
    @_noLocks
    func arpTake(_ event: EngineEvent, at offset: Int32, start: UInt64, out: UnsafeMutablePointer<Float>) -> Bool {
        let a = arpeggiator, s = a.state
        let at = start &+ UInt64(offset)
        switch event.kind {
        case .down:
            var i = a.find(event.key)
            if i < 0 {
                if s.pointee.settings.latch && !a.anyDown() { s.pointee.count = 0 }
                if s.pointee.count == Arpeggiator.capacity { return false }
                i = s.pointee.count
                s.pointee.count &+= 1
                a.slots[i] = Arpeggiator.Slot(key: event.key, velocity: event.gain, order: s.pointee.nextOrder)
                s.pointee.nextOrder &+= 1
            }
            a.slots[i].ratio = event.value
            a.slots[i].gain = event.gain
            a.slots[i].down = true
            if s.pointee.nextFrame == .max {
                s.pointee.played = 0
                // A stopped transport has no beat to be in time with: the pattern starts
                // on this touch, its grid from here.
                if !tempoTrack.clock.pointee.playing {
                    s.pointee.anchorFrame = at
                    s.pointee.anchorBeat = 0
                }
                a.seekStep(from: at, beatUnit: tempoTrack.clock.pointee.beatUnit)
            }
            return true
        case .move, .timbre:
            let i = a.find(event.key)
            if i < 0 { return false }
            let playing = s.pointee.noteOff != .max && s.pointee.noteTouch.matches(event.key)
            if case .timbre = event.kind {
                a.slots[i].timbre = event.value
                if playing { apply(EngineEvent(frame: at, kind: .timbre, key: s.pointee.noteKey, value: event.value), at: offset, out: out) }
                return true
            }
            a.slots[i].ratio = event.value
            a.slots[i].gain = event.gain
            if playing {
                move(EngineEvent(frame: at, kind: .move, key: s.pointee.noteKey, value: event.value * s.pointee.noteOctave, gain: event.gain), at: offset)
            }
            return true
        case .up:
            let i = a.find(event.key)
            if i < 0 { return false }
            if s.pointee.settings.latch { a.slots[i].down = false } else { a.remove(i) }
            return true
        case .releaseSource, .releaseAll:
            let all: Bool
            if case .releaseAll = event.kind { all = true } else { all = false }
            var i = s.pointee.count &- 1
            while i >= 0 {
                if all || a.slots[i].key.source == event.key.source { a.remove(i) }
                i &-= 1
            }
            if s.pointee.noteOff != .max && (all || s.pointee.noteTouch.source == event.key.source) {
                endArpNote(at: at, start: start, out: out)
            }
            return false
        default:
            return false
        }
    }

    /// New arpeggiator controls, from the next period's first frame. Turned off: the
    /// sounding note ends, and the touches still down sound as played; latch off: the
    /// lifted touches leave the pattern; a new rate moves the grid.
    /// - Thread: render (between periods), or setup.
    @_noLocks
    public func setArpeggiator(_ settings: ArpSettings) {
        let a = arpeggiator, s = a.state
        let old = s.pointee.settings
        let at = state.pointee.position
        s.pointee.settings = settings
        if case .off = settings.pattern {
            if s.pointee.noteOff != .max { endArpNote(at: at, start: at, out: mono) }
            var i = 0
            while i < s.pointee.count {
                let slot = a.slots[i]
                if slot.down { startVoice(slot.key, ratio: slot.ratio, gain: Mixer.edgeFadedGain(slot.gain, ratio: slot.ratio), velocity: slot.velocity, at: 0) }
                i &+= 1
            }
            s.pointee.count = 0
            s.pointee.nextFrame = .max
            return
        }
        if old.latch && !settings.latch {
            var i = s.pointee.count &- 1
            while i >= 0 {
                if !a.slots[i].down { a.remove(i) }
                i &-= 1
            }
        }
        let moved = old.division != settings.division || old.dotted != settings.dotted || old.triplet != settings.triplet || old.swing != settings.swing
        if moved && s.pointee.nextFrame != .max { a.seekStep(from: at, beatUnit: tempoTrack.clock.pointee.beatUnit) }
    }
}
