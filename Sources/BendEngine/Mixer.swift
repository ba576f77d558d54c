import Synchronization

/// Envelope, smoothing and polyphony settings of a `Mixer`.
public struct MixerConfiguration: Sendable {
    /// Output rate, frames per second.
    public var rate: Double
    /// Largest period the render call is given, frames.
    public var maxPeriodFrames: Int
    /// Polyphony: voices that can sound at once (1…65536).
    public var voices: Int
    /// Attack fade-in, seconds (≤ 0.005).
    public var attackSeconds: Double = 0.004
    /// Release fade-out, seconds (≤ 0.010).
    public var releaseSeconds: Double = 0.008
    /// Fade of a voice stolen for a new touch, seconds.
    public var stealSeconds: Double = 0.001
    /// Glide time of pitch ratio and gain to each new target (a linear ramp per
    /// sample, restarted from the current value by every move), seconds.
    public var smoothingSeconds: Double = 0.003
    /// Glide time of the pan to each new target (linear, per sample), seconds.
    public var panSmoothingSeconds: Double = 0.005
    /// Input sources (event rings) the mixer can take.
    public var maxSources: Int = 32
    /// Events each source's ring holds.
    public var eventsPerSource: Int = 4096
    /// How a voice reads between tone frames.
    public var interpolation: Interpolation = .cubic

    public init(rate: Double = 48_000, maxPeriodFrames: Int = 4096, voices: Int = 64) {
        self.rate = rate
        self.maxPeriodFrames = maxPeriodFrames
        self.voices = voices
    }
}

/// The render loop: every voice, mixed into interleaved stereo float frames.
///
/// Owned by one render thread. Control threads reach it only through the `EventRing`s
/// made by `addSource()` at setup; each event is applied at its frame (sample-accurate).
/// Counters for other threads (`activeVoices`, `peak`, `position`) are atomics.
///
/// Pitch: a voice reads the tone at `ratio` frames per output frame (0…`maximumRatio`,
/// a fixed-point increment with `fractionBits` fractional bits) with 4-point Hermite
/// interpolation (`hermite4`). Below a ratio of `silenceRatio` (0.05) the voice fades
/// linearly to silence, so ratio 0 (the pad's left edge) gives silence, never a held
/// (DC) sample value. The fade is applied twice: to the gain target (gain · ratio /
/// silenceRatio), so it glides with the gain over the whole glide time however fast the
/// ratio passes 0.05 — moving to or away from the edge never clicks — and per frame to
/// the instantaneous ratio, so a ratio of exactly 0 is exactly silent. Ratio and gain
/// glide linearly to each new target over `smoothingSeconds` (see `VoiceBank`).
///
/// Pan: one value for all voices, so voices are mixed to mono and the equal-power pan
/// (`EqualPowerPan`) is applied once per frame, gliding linearly over
/// `panSmoothingSeconds` to each new value.
///
/// Speed: each voice is mixed 8 frames at a time with SIMD8 vectors (`MixerKernel.swift`);
/// every per-frame value is a closed form of the frame number (no per-sample branches or
/// loop-carried chains); an event finds its voice through a hash table (`VoiceIndex`) and
/// splits only that voice's mixing at its frame (`render`).
///
/// A plain struct of pointers: copies share the same state; `deallocate()` frees it.
public struct Mixer: @unchecked Sendable {
    /// Pitch ratio below which a voice fades linearly to silence.
    public static var silenceRatio: Float { @_noLocks @inline(__always) get { 0.05 } }
    /// Largest pitch ratio; larger values are clamped.
    public static var maximumRatio: Float { @_noLocks @inline(__always) get { 8 } }
    /// Fractional bits of the fixed-point phase and increment.
    public static var fractionBits: Int { @_noLocks @inline(__always) get { 24 } }

    public let configuration: MixerConfiguration
    public let tone: ToneTable
    let voices: VoiceBank
    let index: VoiceIndex
    let state: UnsafeMutablePointer<State>
    let rings: UnsafeMutablePointer<EventRing>
    let mono: UnsafeMutablePointer<Float>
    let panEvents: UnsafeMutablePointer<PanEvent>
    let meters: UnsafeMutablePointer<Atomic<UInt64>>  // [position, activeVoices, peakBits]

    struct State {
        var position: UInt64 = 0
        var activeCount = 0
        var freeCount = 0
        var sourceCount = 0
        var nextAge: UInt64 = 1
        var panTarget: Float = 0
        var panStep: Float = 0
        var panLeft: Int32 = 0
        var cubic = true
        var glideFrames: Int32 = 1
        var panGlideFrames: Int32 = 1
        var attackStep: Float = 0
        var releaseStep: Float = 0
        var stealStep: Float = 0
        /// Frames of the current period already panned into the output.
        var pannedTo = 0
        /// Pan events of the current period waiting for the pan stage.
        var panEventCount = 0
    }

    /// A pan change at a frame of the current period, applied by the pan stage.
    struct PanEvent {
        var offset: Int
        var target: Float
        /// Nothing sounded when it came: taken at once instead of glided to.
        var immediate: Bool
    }
    /// Pan events one period can hold before the pan stage runs early.
    static var panEventCapacity: Int { @_noLocks @inline(__always) get { 64 } }

    /// - Parameters:
    ///   - configuration: rate, period bound, polyphony, envelope times.
    ///   - tone: the loop every voice plays, at `configuration.rate`.
    /// - Thread: setup.
    public init(configuration: MixerConfiguration, tone: ToneTable) {
        precondition(configuration.voices >= 1 && configuration.maxPeriodFrames >= 1)
        self.configuration = configuration
        self.tone = tone
        voices = VoiceBank(capacity: configuration.voices)
        index = VoiceIndex(voices: configuration.voices)
        state = .allocate(capacity: 1)
        let rate = configuration.rate
        var s = State()
        s.freeCount = configuration.voices
        if case .linear = configuration.interpolation { s.cubic = false }
        s.glideFrames = Int32(min(max(1, (configuration.smoothingSeconds * rate).rounded()), 1_048_576))
        s.panGlideFrames = Int32(min(max(1, (configuration.panSmoothingSeconds * rate).rounded()), 1_048_576))
        s.attackStep = Float(1 / max(1, configuration.attackSeconds * rate))
        s.releaseStep = -Float(1 / max(1, configuration.releaseSeconds * rate))
        s.stealStep = -Float(1 / max(1, configuration.stealSeconds * rate))
        state.initialize(to: s)
        rings = .allocate(capacity: configuration.maxSources)
        // A voice's last block loads and stores back unchanged (adding 0) up to 7 frames
        // past its span, and the pan stage reads up to 7 past any pan event's frame.
        mono = .allocate(capacity: ((configuration.maxPeriodFrames + 7) & ~7) + 8)
        panEvents = .allocate(capacity: Mixer.panEventCapacity)
        meters = .allocate(capacity: 3)
        for i in 0..<3 { (meters + i).initialize(to: Atomic(0)) }
    }

    /// Fixed-point phase increment for a pitch `ratio` (clamped to 0…`maximumRatio`;
    /// NaN counts as 0), rounded to the nearest 2^−fractionBits.
    @_noLocks @inline(__always)
    static func increment(ratio: Float) -> Int32 {
        let r = ratio.isNaN ? 0 : min(max(ratio, 0), maximumRatio)
        return Int32(r * Float(1 << fractionBits) + 0.5)  // r ≥ 0: rounds to nearest
    }

    /// Creates the event ring of one more input source and returns it with its index
    /// (the `TouchKey.source` its events must carry).
    /// - Thread: setup, before the render thread starts.
    public func addSource() -> (index: UInt32, ring: EventRing) {
        let i = state.pointee.sourceCount
        precondition(i < configuration.maxSources, "too many input sources")
        let ring = EventRing(capacity: configuration.eventsPerSource)
        (rings + i).initialize(to: ring)
        state.pointee.sourceCount = i + 1
        return (UInt32(i), ring)
    }

    /// Stream position: frames rendered so far. - Thread: any.
    public var position: UInt64 { @_noLocks get { meters[0].load(ordering: .relaxed) } }
    /// Voices sounding after the last period (including fading ones). - Thread: any.
    public var activeVoices: Int { @_noLocks get { Int(meters[1].load(ordering: .relaxed)) } }
    /// Largest absolute sample of the last period. - Thread: any.
    public var peak: Float { @_noLocks get { Float(bitPattern: UInt32(truncatingIfNeeded: meters[2].load(ordering: .relaxed))) } }

    /// Frees everything (not the tone). - Thread: setup, after the render thread stopped.
    public func deallocate() {
        for i in 0..<state.pointee.sourceCount { rings[i].deallocate() }
        rings.deallocate()
        voices.deallocate()
        index.deallocate()
        state.deallocate()
        mono.deallocate()
        panEvents.deallocate()
        meters.deallocate()
    }

    // MARK: - Render (real-time)

    /// Renders `frames` interleaved stereo float frames into `out` (2·frames samples),
    /// applying every queued event whose frame falls inside the period at its offset.
    ///
    /// Events are taken in frame order across all sources (ties: the lower source
    /// index first; late events count as frame 0 of the period). A voice is mixed into
    /// the period's mono mix in spans that end only at its own events ("catching up"
    /// to the event's frame before applying it), so an event costs one more span for
    /// its voice, not for every voice. Pan events are kept for the pan stage, which
    /// pans the mono mix into `out` at the end, split at their frames.
    /// - Parameter frames: 1…`maxPeriodFrames`.
    /// - Thread: render.
    @_noLocks
    public func render(into out: UnsafeMutablePointer<Float>, frames: Int) {
        precondition(frames >= 1 && frames <= configuration.maxPeriodFrames, "render: frames outside 1…maxPeriodFrames")
        let start = state.pointee.position
        let end = start &+ UInt64(frames)
        let padded = (frames + 7) & ~7
        var i = 0
        while i < padded { mono[i] = 0; i += 1 }
        state.pointee.pannedTo = 0
        state.pointee.panEventCount = 0

        // Events in frame order across the sources: find the ring with the earliest
        // head (and the next earliest frame), then take that ring's events up to there.
        let sources = state.pointee.sourceCount
        while true {
            var best = -1, bestFrame = end
            var second = Int.max, secondFrame = end
            var r = 0
            while r < sources {
                if let event = rings[r].peek() {
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
            while let event = ring.peek() {
                let frame = max(event.frame, start)
                // Ties go to the lower source index.
                if frame > secondFrame || (frame == secondFrame && (second < best || frame == end)) { break }
                ring.pop()
                // (Never before what the pan stage has already written out: only after
                // a flood of pan events, for an event pushed late during this render.)
                let offset = max(Int32(truncatingIfNeeded: frame &- start), Int32(state.pointee.pannedTo))
                if case .move = event.kind {
                    move(event, at: offset)  // the common event, inline
                } else {
                    apply(event, at: offset, out: out)
                }
            }
        }

        // Every voice to the period's end; the next period starts them all at 0.
        var a = 0
        while a < state.pointee.activeCount {
            let v = Int(voices.active[a])
            if mixSpan(v, to: Int32(frames)) { continue }
            voices.mixedTo[v] = 0
            a += 1
        }
        panStage(out, to: frames)

        state.pointee.position = end
        var peak: Float = 0
        i = 0
        while i < 2 * frames {
            peak = max(peak, abs(out[i]))
            i += 1
        }
        meters[0].store(end, ordering: .relaxed)
        meters[1].store(UInt64(state.pointee.activeCount), ordering: .relaxed)
        meters[2].store(UInt64(peak.bitPattern), ordering: .relaxed)
    }

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
            // waiting for it starts there (its attack from silence).
            var stop = frame
            if voices.hasPending[v] && voices.rampStep[v] < 0 {
                let q = voices.ramp[v] / -voices.rampStep[v]  // frames to the fade's end, ≥ 0
                if q < Float(frame &- from) {
                    let whole = Int32(q)
                    stop = from &+ max(Float(whole) < q ? whole &+ 1 : whole, 1)
                }
            }
            if state.pointee.cubic {
                mixVoiceCubic(v, into: mono + Int(from), count: Int(stop &- from))
            } else {
                mixVoiceLinear(v, into: mono + Int(from), count: Int(stop &- from))
            }
            voices.mixedTo[v] = stop
            from = stop
            if voices.rampStep[v] < 0 && voices.ramp[v] <= 0 {
                if !voices.hasPending[v] { break }
                voices.start(v, key: voices.pendingKey[v], ratio: voices.pendingRatio[v],
                             gain: voices.pendingGain[v], age: voices.age[v], attackStep: state.pointee.attackStep)
            }
        }
        if voices.rampStep[v] < 0 && voices.ramp[v] <= 0 && !voices.hasPending[v] {
            freeVoice(at: Int(voices.activeIndex[v]))
            return true
        }
        return false
    }

    /// `catchUp` of every sounding voice.
    @_noLocks
    func catchUpAll(to frame: Int32) {
        var a = 0
        while a < state.pointee.activeCount {
            if !catchUp(Int(voices.active[a]), to: frame) { a += 1 }
        }
    }

    /// Pans the mono mix into `out` from where the pan stage stands up to `frame`,
    /// applying the kept pan events at their frames.
    @_noLocks
    func panStage(_ out: UnsafeMutablePointer<Float>, to frame: Int) {
        var e = 0
        while e < state.pointee.panEventCount {
            let event = panEvents[e]
            let from = state.pointee.pannedTo
            if event.offset > from {
                panToStereo(mono + from, into: out + 2 * from, count: event.offset - from)
                state.pointee.pannedTo = event.offset
            }
            setPan(event.target, immediate: event.immediate)
            e += 1
        }
        state.pointee.panEventCount = 0
        let from = state.pointee.pannedTo
        if frame > from {
            panToStereo(mono + from, into: out + 2 * from, count: frame - from)
            state.pointee.pannedTo = frame
        }
    }

    /// The pan glides to `target` from where it is now, or jumps there when `immediate`.
    @_noLocks
    func setPan(_ target: Float, immediate: Bool) {
        if immediate {
            state.pointee.panTarget = target
            state.pointee.panStep = 0
            state.pointee.panLeft = 0
            return
        }
        let s = state.pointee
        let now = s.panTarget - s.panStep * Float(s.panLeft)
        state.pointee.panTarget = target
        state.pointee.panStep = (target - now) / Float(s.panGlideFrames)
        state.pointee.panLeft = s.panGlideFrames
    }

    // MARK: - Events (real-time)

    /// The gain a voice glides to: `gain`, faded linearly to 0 below `silenceRatio`.
    @_noLocks @inline(__always)
    static func edgeFadedGain(_ gain: Float, ratio: Float) -> Float {
        gain * min(max(ratio, 0) * (1 / silenceRatio), 1)
    }

    /// Bends the voice of a `.move` event's touch, from frame `offset` of the period.
    @_noLocks @inline(__always)
    func move(_ event: EngineEvent, at offset: Int32) {
        let v = index.find(event.key)
        if v >= 0 && !catchUp(v, to: offset) {
            retarget(v, key: event.key, ratio: event.value, gain: Mixer.edgeFadedGain(event.gain, ratio: event.value))
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
            } else {
                startVoice(event.key, ratio: event.value, gain: gain, at: offset)
            }
        case .move:
            move(event, at: offset)
        case .up:
            let v = index.find(event.key)
            if v >= 0 && !catchUp(v, to: offset) { release(v, key: event.key) }
        case .pan:
            let target = event.value.isNaN ? 0 : min(max(event.value, -1), 1)
            // When nothing sounds the new pan is taken at once (a glide would only leak
            // the old pan into the next touch's first milliseconds). Voices that are all
            // fading out may have ended before this frame: catch them up to know.
            var a = 0
            var allFading = true
            while a < state.pointee.activeCount && allFading {
                let v = Int(voices.active[a])
                allFading = voices.rampStep[v] < 0 && !voices.hasPending[v]
                a += 1
            }
            if allFading { catchUpAll(to: offset) }
            if state.pointee.panEventCount == Mixer.panEventCapacity {
                // A flood of pan events: pan everything up to here now.
                catchUpAll(to: offset)
                panStage(out, to: Int(offset))
            }
            panEvents[state.pointee.panEventCount] = PanEvent(offset: Int(offset), target: target,
                                                             immediate: state.pointee.activeCount == 0)
            state.pointee.panEventCount += 1
        case .releaseSource:
            catchUpAll(to: offset)
            releaseMatching(source: event.key.source, all: false)
        case .releaseAll:
            catchUpAll(to: offset)
            releaseMatching(source: 0, all: true)
        }
    }

    @_noLocks @inline(__always)
    func retarget(_ v: Int, key: TouchKey, ratio: Float, gain: Float) {
        if voices.hasPending[v] && voices.pendingKey[v].matches(key) {
            voices.pendingRatio[v] = ratio
            voices.pendingGain[v] = gain
        } else {
            // Glide from where the voice is now to the new target.
            let glide = state.pointee.glideFrames
            let left = voices.glideLeft[v]
            let incNow = voices.incTarget[v] &- voices.incStep[v] &* left
            let gainNow = voices.gainTarget[v] - voices.gainStep[v] * Float(left)
            let inc = Mixer.increment(ratio: ratio)
            voices.incTarget[v] = inc
            voices.incStep[v] = (inc &- incNow) / glide
            voices.gainTarget[v] = gain
            voices.gainStep[v] = (gain - gainNow) / Float(glide)
            voices.glideLeft[v] = glide
        }
    }

    @_noLocks
    func release(_ v: Int, key: TouchKey) {
        if voices.hasPending[v] && voices.pendingKey[v].matches(key) {
            voices.hasPending[v] = false  // the waiting touch ended before it sounded
        } else {
            voices.rampStep[v] = min(voices.rampStep[v], state.pointee.releaseStep)
        }
        index.remove(key, voice: v)
    }

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
                if voices.rampStep[v] > 0 { index.remove(voices.key[v], voice: v) }
                voices.rampStep[v] = min(voices.rampStep[v], state.pointee.releaseStep)
            }
            a += 1
        }
    }

    /// Starts a voice for `key` at frame `offset` of the period, stealing the oldest
    /// when every voice is busy.
    @_noLocks
    func startVoice(_ key: TouchKey, ratio: Float, gain: Float, at offset: Int32) {
        let age = state.pointee.nextAge
        state.pointee.nextAge = age &+ 1
        if state.pointee.freeCount == 0 {
            // Voices fading out may have ended before this frame and be free by now.
            var a = 0
            while a < state.pointee.activeCount {
                let v = Int(voices.active[a])
                if voices.rampStep[v] < 0 && !voices.hasPending[v] && catchUp(v, to: offset) { continue }
                a += 1
            }
        }
        if state.pointee.freeCount > 0 {
            state.pointee.freeCount -= 1
            let v = Int(voices.free[state.pointee.freeCount])
            voices.start(v, key: key, ratio: ratio, gain: gain, age: age, attackStep: state.pointee.attackStep)
            voices.active[state.pointee.activeCount] = Int32(v)
            voices.activeIndex[v] = Int32(state.pointee.activeCount)
            voices.mixedTo[v] = offset
            state.pointee.activeCount += 1
            index.insert(key, voice: v)
            return
        }
        // All voices busy: steal the oldest (a voice already fading counts as oldest),
        // fading it fast; the new touch starts on it when the fade ends.
        var victim = -1
        var best = UInt64.max
        var a = 0
        while a < state.pointee.activeCount {
            let v = Int(voices.active[a])
            // Fading voices first, then the oldest sounding one; a voice already
            // waiting for its fade last, the oldest waiting touch first among those.
            let rank = voices.hasPending[v] ? (1 << 63) | voices.age[v] : (voices.rampStep[v] < 0 ? 0 : voices.age[v] & ~(1 << 63))
            if rank < best || victim < 0 { best = rank; victim = v }
            a += 1
        }
        catchUp(victim, to: offset)  // its steal fade starts at this frame
        if voices.hasPending[victim] {
            index.remove(voices.pendingKey[victim], voice: victim)  // that waiting touch is dropped
        } else if voices.rampStep[victim] > 0 {
            index.remove(voices.key[victim], voice: victim)
        }
        index.insert(key, voice: victim)
        voices.rampStep[victim] = min(voices.rampStep[victim], state.pointee.stealStep)
        voices.hasPending[victim] = true
        voices.pendingKey[victim] = key
        voices.pendingRatio[victim] = ratio
        voices.pendingGain[victim] = gain
        voices.age[victim] = age
    }

    @_noLocks
    func freeVoice(at a: Int) {
        let v = voices.active[a]
        state.pointee.activeCount -= 1
        let moved = voices.active[state.pointee.activeCount]
        voices.active[a] = moved
        voices.activeIndex[Int(moved)] = Int32(a)
        voices.activeIndex[Int(v)] = -1
        voices.free[state.pointee.freeCount] = v
        state.pointee.freeCount += 1
    }
}
