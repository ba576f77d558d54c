// SPDX-License-Identifier: GPL-3.0-or-later
/// The arpeggiator's state on the render thread: the touches it holds and the note it
/// plays. `Mixer+Arpeggio.swift` steps it between the period's events, so each note
/// starts on its beat frame (sample-accurate); this file holds the table and the choice
/// of each step's note.
///
/// A touch (a finger, a MIDI note) that comes down while the arpeggiator is on does not
/// start a voice: it takes a slot here. Each step starts one voice of its own (keys of
/// `Arpeggiator.source`) at the slot's **current** pitch ratio × 2^octave, so a finger
/// that bends moves the note it is sounding and every later one. A lifted touch leaves
/// its slot (with latch: stays until a touch comes down while none is held); the note
/// it sounds ends at its gate.
///
/// Fixed-size plain memory allocated at setup (`capacity` slots); `@_noLocks`.
public struct Arpeggiator: @unchecked Sendable {
    /// Touches the pattern holds at once (more are played as they come, unarpeggiated).
    public static var capacity: Int { @_noLocks @inline(__always) get { 16 } }
    /// `TouchKey.source` of the arpeggiator's own voices (no input source has it).
    public static var source: UInt32 { @_noLocks @inline(__always) get { .max } }

    /// One held touch. Owner: render.
    struct Slot {
        var key = TouchKey(source: 0, touch: 0)
        /// Its pitch ratio now (its latest down or move) and linear gain.
        var ratio: Float = 1
        var gain: Float = 0
        /// Its velocity (the down's gain: a sound's layer), and its timbre (< 0: none said).
        var velocity: Float = 0
        var timbre: Float = -1
        /// Order of its down (the `played` pattern).
        var order: UInt64 = 0
        /// The finger is down (false: lifted, kept by latch).
        var down = true

        @_noLocks
        init(key: TouchKey = TouchKey(source: 0, touch: 0), velocity: Float = 0, order: UInt64 = 0) {
            self.key = key
            self.velocity = velocity
            self.order = order
        }
    }

    /// Owner: render; `Mixer` sets it up.
    struct State {
        var settings = ArpSettings()
        /// Slots in use: `slots[0..<count]`.
        var count = 0
        var nextOrder: UInt64 = 0
        /// Steps played since the pattern started (the pattern's place).
        var played = 0
        /// The grid: stream frame `anchorFrame` is beat `anchorBeat`; frames per beat.
        var anchorFrame: UInt64 = 0
        var anchorBeat = 0.0
        var framesPerBeat = 24_000.0
        /// The step of the beat grid due next (its number: step n starts at beat
        /// n·step, late by the swing when odd) and its stream frame; `UInt64.max`: none.
        var nextStep: Int64 = 0
        var nextFrame = UInt64.max
        /// The note sounding: its voice key, the touch it plays, its octave, and the
        /// stream frame its gate ends (`UInt64.max`: no note).
        var noteKey = TouchKey(source: .max, touch: 0)
        var noteTouch = TouchKey(source: 0, touch: 0)
        var noteOctave: Float = 1
        var noteOff = UInt64.max
        /// Voice keys handed out (counter).
        var noteCount: UInt32 = 0
        /// The random pattern's generator state (xorshift64, fixed seed).
        var random: UInt64 = 0x9E37_79B9_7F4A_7C15
    }

    let slots: UnsafeMutablePointer<Slot>
    let state: UnsafeMutablePointer<State>

    /// An arpeggiator of `settings` on a grid of `framesPerBeat` (the first clock's).
    /// - Thread: setup.
    init(settings: ArpSettings, framesPerBeat: Double) {
        slots = .allocate(capacity: Arpeggiator.capacity)
        slots.initialize(repeating: Slot(), count: Arpeggiator.capacity)
        state = .allocate(capacity: 1)
        var s = State()
        s.settings = settings
        s.framesPerBeat = framesPerBeat
        state.initialize(to: s)
    }

    func deallocate() { slots.deallocate(); state.deallocate() }

    var on: Bool {
        @_noLocks @inline(__always) get {
            if case .off = state.pointee.settings.pattern { return false }
            return true
        }
    }

    /// The slot of `key`, or −1.
    @_noLocks
    func find(_ key: TouchKey) -> Int {
        var i = 0
        while i < state.pointee.count {
            if slots[i].key.matches(key) { return i }
            i &+= 1
        }
        return -1
    }

    /// Removes slot `i` (the later ones move down: the table stays in down order).
    @_noLocks
    func remove(_ i: Int) {
        var j = i
        while j &+ 1 < state.pointee.count {
            slots[j] = slots[j &+ 1]
            j &+= 1
        }
        state.pointee.count &-= 1
    }

    /// Some touch of the table is still down (not only latched).
    @_noLocks
    func anyDown() -> Bool {
        var i = 0
        while i < state.pointee.count {
            if slots[i].down { return true }
            i &+= 1
        }
        return false
    }

    /// The stream frame step `n` of the grid starts on (the nearest frame to its beat), as
    /// a signed count: a step before the stream's start is negative.
    @_noLocks
    func signedFrame(ofStep n: Int64, beatUnit: Double) -> Int64 {
        let s = state.pointee
        let step = s.settings.stepBeats(beatUnit: beatUnit)
        let late = n & 1 == 1 ? min(max(s.settings.swing, 0), 1) * 0.5 * step : 0
        let beats = Double(n) * step + late - s.anchorBeat
        return Int64(Double(s.anchorFrame) + TempoClock.floor(beats * s.framesPerBeat + 0.5))
    }

    /// The stream frame step `n` starts on (0 for a step before the stream's start).
    @_noLocks
    func frame(ofStep n: Int64, beatUnit: Double) -> UInt64 {
        let f = signedFrame(ofStep: n, beatUnit: beatUnit)
        return f <= 0 ? 0 : UInt64(f)
    }

    /// The first step of the grid that starts at stream frame `at` or later: its number
    /// and frame (into `nextStep`, `nextFrame`).
    @_noLocks
    func seekStep(from at: UInt64, beatUnit: Double) {
        let s = state.pointee
        let step = s.settings.stepBeats(beatUnit: beatUnit)
        let beat = s.anchorBeat + (Double(at) - Double(s.anchorFrame)) / s.framesPerBeat
        var n = Int64(TempoClock.floor(beat / step)) &- 1
        while signedFrame(ofStep: n, beatUnit: beatUnit) < Int64(at) { n &+= 1 }
        state.pointee.nextStep = n
        state.pointee.nextFrame = frame(ofStep: n, beatUnit: beatUnit)
    }

    /// The slot and octave (0…octaves − 1) step `k` of the pattern plays (k: steps since
    /// it started); the table holds at least one touch.
    @_noLocks
    func choose(_ k: Int) -> (slot: Int, octave: Int) {
        let n = state.pointee.count
        let octaves = min(max(state.pointee.settings.octaves, 1), 4)
        let length = n &* octaves
        var p = k % length
        var descending = false, byOrder = false
        switch state.pointee.settings.pattern {
        case .down: descending = true
        case .played: byOrder = true
        case .upDown:
            let cycle = length > 1 ? 2 &* length &- 2 : 1
            let q = k % cycle
            p = q < length ? q : cycle &- q
        case .random:
            var x = state.pointee.random
            x ^= x << 13; x ^= x >> 7; x ^= x << 17
            state.pointee.random = x
            p = Int(x % UInt64(length))
        default: break
        }
        if descending { p = length &- 1 &- p }
        return (ranked(p % n, byOrder: byOrder), p / n)
    }

    /// The slot of rank `rank` (0: lowest pitch, or earliest down with `byOrder`).
    @_noLocks
    func ranked(_ rank: Int, byOrder: Bool) -> Int {
        let n = state.pointee.count
        var i = 0
        while i < n {
            var below = 0, j = 0
            while j < n {
                if j != i && precedes(j, i, byOrder: byOrder) { below &+= 1 }
                j &+= 1
            }
            if below == rank { return i }
            i &+= 1
        }
        return 0
    }

    @_noLocks @inline(__always)
    func precedes(_ a: Int, _ b: Int, byOrder: Bool) -> Bool {
        if byOrder || slots[a].ratio == slots[b].ratio { return slots[a].order < slots[b].order }
        return slots[a].ratio < slots[b].ratio
    }
}
