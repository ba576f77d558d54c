// SPDX-License-Identifier: GPL-3.0-or-later
import Synchronization

/// The render loop: every voice, mixed into interleaved stereo float frames.
///
/// Owned by one render thread. Control threads reach it only through the event rings
/// made by `addSource()` at setup; each event is applied at its frame (sample-accurate).
/// Counters for other threads (`activeVoices`, `peak`, `position`) are atomics.
///
/// Pitch: a voice reads the tone at `ratio` frames per output frame (0…
/// `EngineLimits.maximumRatio`, a fixed-point increment with `fractionBits` fractional
/// bits) with 4-point Hermite interpolation. Below a ratio of `EngineLimits.silenceRatio`
/// (0.05) the voice fades linearly to silence, so ratio 0 (the pad's left edge) gives
/// silence, never a held (DC) sample value. The fade is applied twice: to the gain target
/// (gain · ratio / silenceRatio), so it glides with the gain over the whole glide time
/// however fast the ratio passes 0.05 — moving to or away from the edge never clicks —
/// and per frame to the instantaneous ratio, so a ratio of exactly 0 is exactly silent.
/// Ratio and gain glide linearly to each new target over `smoothingSeconds` (see
/// `VoiceBank`).
///
/// Pan: one value for all voices, so voices are mixed to mono and the equal-power pan
/// (`EqualPowerPan`) is applied once per frame, gliding linearly over
/// `panSmoothingSeconds` to each new value.
///
/// Mix bus: after the pan stage and the send effects (`SendEffects.swift`), the master
/// gain (`configuration.gain`, gliding to `setMasterGain`'s) and the limiter (`Limiter`,
/// `configuration.limiter`; `setLimiting` turns it off and on), `MixBus.swift`.
///
/// Speed: each voice is mixed 8 frames at a time with SIMD8 vectors (`MixerKernel.swift`);
/// every per-frame value is a closed form of the frame number (no per-sample branches or
/// loop-carried chains); an event finds its voice through a hash table (`VoiceIndex`) and
/// splits only that voice's mixing at its frame (`render`).
///
/// Where each part lives: this file holds the state, setup and the period (`render`);
/// `EventMerge.swift` takes the sources' events in frame order and applies them;
/// `Mixer+Arpeggio.swift` the tempo clocks and the arpeggiator's steps between them;
/// `VoiceSpans.swift` mixes a voice span by span up to each of its events;
/// `VoiceStealing.swift` starts, steals and frees voices; `PanStage.swift` pans the mono
/// mix into the output; `MixerKernel.swift` and `VoiceBlock.swift` are the 8-frame inner
/// loop; `ToneLevels.swift` the band-limited tables; `Limiter.swift` the mix bus limiter.
///
/// A plain struct of pointers: copies share the same state; `deallocate()` frees it.
public struct Mixer: @unchecked Sendable {
    /// An attack this short (seconds) — bendsynth's own 4 ms, there to keep a note's start
    /// from clicking — is finished before a release starts, so a touch of any length sounds
    /// whole (a 1 ms tap: attack, then release); a longer one (a swell) is released as it stands.
    public static var shortAttackSeconds: Double { 0.02 }

    /// Fractional bits of the fixed-point phase and increment.
    public static var fractionBits: Int { @_noLocks @inline(__always) get { 24 } }

    public let configuration: MixerConfiguration
    /// The first region's held table of the sound the mixer started with (a plain tone's
    /// tone). Read-only.
    public let tone: ToneTable
    /// That sound's first region, and whether the mixer made the sound around it (`init(configuration:region:)`:
    /// `deallocate` frees its arrays unless it was replaced and given back).
    let firstRegion: SoundRegion
    let ownsFirstSound: Bool
    /// The longest release of the sound the mixer started with, seconds (its regions' own,
    /// or the configuration's): what a stop waits for.
    public let longestReleaseSeconds: Double
    /// The sounds the voices play (`MixerSounds.swift`): `soundSlotCount` slots, each a
    /// sound given to the mixer (nil: free); new touches start on `State.currentSound`'s,
    /// older voices may still play a sound it replaced. Owner: render (setup fills slot 0).
    let sounds: UnsafeMutablePointer<UnsafeMutablePointer<Sound>?>
    /// Voices playing each slot's sound (count). Owner: render.
    let soundVoices: UnsafeMutablePointer<Int32>
    /// A sound a control thread gave (`replace`) for the render thread to take at its next
    /// period: the bits of an `UnsafeMutablePointer<Sound>`, 0 for none.
    let incomingSound: UnsafeMutablePointer<Atomic<Int>>
    /// Sounds no voice plays any more, given back (render → control: `takeRetired`).
    let retiredSounds: SPSCRing<Int>
    /// Every voice's state, structure-of-arrays. Owner: render.
    let voices: VoiceBank
    /// Touch → voice. Owner: render.
    let index: VoiceIndex
    /// The mixer's scalar state (`State`). Owner: render (setup before it starts).
    let state: UnsafeMutablePointer<State>
    /// One event ring per input source, `state.sourceCount` of them; each has one control
    /// thread as producer and the render thread as consumer.
    let rings: UnsafeMutablePointer<SPSCRing<EngineEvent>>
    /// The period's mono mix, linear amplitude per frame (frames 0..<period, padded to a
    /// whole 8-frame block plus 8: `busFrames`). Owner: render; zeroed at each period's
    /// start. The left and right buses of stereo and panned voices follow it,
    /// `busFrames` apart (`VoiceOutput`), zeroed when a period first uses them.
    let mono: UnsafeMutablePointer<Float>
    /// Floats of each bus.
    let busFrames: Int
    /// The period's pan events, `state.panEventCount` of them. Owner: render.
    let panEvents: UnsafeMutablePointer<PanEvent>
    /// Written by render, read by any thread (relaxed): [position (frames), activeVoices
    /// (count), peak, limiter gain (the last period's smallest, 1 = none), the effects' tail
    /// (`effectsTail`) — the last three Float bits, linear — and a fade-out asked for
    /// (frames, 0: none; written by any thread, taken by render: `fadeOutMix`)].
    let meters: UnsafeMutablePointer<Atomic<UInt64>>
    /// Per input source (`configuration.maxSources`): the stream frame after which its
    /// queued events are dropped (`cut(source:atFrame:)`), `UInt64.max` for none. Written
    /// by the source's control thread, reset by render when it applies the source's
    /// `.releaseSource` (relaxed; ordered by the source's ring).
    let cuts: UnsafeMutablePointer<Atomic<UInt64>>
    /// The low-pass filter's coefficients (`configuration.filter`), or nil: no filter.
    /// Read-only. Owner: setup.
    let lowPass: LowPassGrid?
    /// The mix bus limiter (`configuration.limiter`), or nil. Owner: render.
    let limiter: Limiter?
    let effects: SendEffects?  // `configuration.effects`, or nil. Owner: render.
    /// The tempo (`TempoTrack`) and the arpeggiator (`configuration.arpeggiator`). Owner: render.
    let tempoTrack: TempoTrack, arpeggiator: Arpeggiator

    /// The mixer's scalar state. Owner: the render thread (`render` and what it calls);
    /// `init` and `addSource` write it at setup, before the render thread starts. The
    /// fields marked "setup" are read-only once rendering has started.
    struct State {
        /// Stream frame at which the next period starts (frames rendered so far).
        /// Owner: render; published through `meters`.
        var position: UInt64 = 0
        /// Voices sounding or fading (count): `voices.active[0..<activeCount]`.
        /// Owner: render (`VoiceStealing.swift`).
        var activeCount = 0
        /// Free voices (count): `voices.free[0..<freeCount]`. Owner: render
        /// (`VoiceStealing.swift`).
        var freeCount = 0
        /// Voices that may sound at once (count, 1…`configuration.voices`; `Int.max`:
        /// all of them): a touch beyond it steals (`setVoiceLimit`). Owner: render
        /// (`VoiceStealing.swift`).
        var voiceLimit = Int.max
        /// Input sources (count): `rings[0..<sourceCount]`. Owner: setup (`addSource`).
        var sourceCount = 0
        /// Start order given to the next touch (a counter; older voices are stolen
        /// first). Owner: render (`VoiceStealing.swift`).
        var nextAge: UInt64 = 1
        /// Pan the pan glide heads to, −1 (left)…+1 (right). Owner: render (pan stage).
        var panTarget: Float = 0
        /// Pan change per frame of the pan glide (pan units per frame). Owner: render
        /// (pan stage).
        var panStep: Float = 0
        /// Frames left in the pan glide, ≥ 0. Owner: render (pan stage).
        var panLeft: Int32 = 0
        /// How voices read the tone (`configuration.interpolation`). Owner: setup.
        var interpolation = Interpolation.cubic
        /// Length of a pitch ratio and gain glide, frames (1…
        /// `EngineLimits.maximumGlideFrames`). Owner: setup.
        var glideFrames: Int32 = 1
        /// Length of a pan glide, frames (1…`EngineLimits.maximumGlideFrames`).
        /// Owner: setup.
        var panGlideFrames: Int32 = 1
        /// A voice's timbre before its touch says any (`FilterSettings.initialTimbre`).
        /// Owner: setup.
        var initialTimbre: Float = 1
        /// The voices' envelope (`configuration.envelope`). Owner: setup.
        var envelope = Envelope(rate: 48_000, attackSeconds: 0, releaseSeconds: 0)
        /// Envelope ramp change per frame of a steal fade (< 0). Owner: setup.
        var stealStep: Float = 0
        /// Frames of the current period already panned into the output (0…period).
        /// Owner: render (pan stage).
        var pannedTo = 0
        /// Pan events of the current period waiting for the pan stage (count, ≤
        /// `Mixer.panEventCapacity`). Owner: render (event merge adds, pan stage takes).
        var panEventCount = 0
        /// Master gain (linear, ≥ 0) at the end of the last period, and the gain its glide
        /// heads to (`setMasterGain`). Owner: render (mix bus); setup starts both at
        /// `configuration.gain`.
        var gain: Float = 1
        var gainTarget: Float = 1
        /// Frames left in the master gain's glide (0: none), and its length, frames.
        /// Owner: render (mix bus); the length: setup.
        var gainLeft: Int32 = 0
        var gainGlideFrames: Int32 = 1
        /// The limiter limits (true), or only delays while its gain recovers to 1 over
        /// its release (`setLimiting(false)`). Owner: render (mix bus).
        var limiting = true
        /// Frames of the current period. Owner: render.
        var periodFrames = 0
        /// The current period's left and right buses hold stereo or panned voices (and
        /// were zeroed for it). Owner: render.
        var stereoBuses = false
        /// The slot of `sounds` new touches start on. Owner: render.
        var currentSound = 0
        /// Attack ramp steps from this one up (attacks of at most `shortAttackSeconds`) are
        /// finished before a release starts. Owner: setup.
        var shortAttackStep: Float = 1
        /// A zone crossfade's length, frames (≥ 1), and its place's change per frame
        /// (1 / its frames). Owner: setup.
        var crossfadeFrames: Int32 = 1
        var crossfadeStep: Float = 1
        /// Voices waiting to cross on to another zone after their crossfade (an upper
        /// bound: `crossPendingZones` looks when it is not 0). Owner: render.
        var zoneChecks = 0
    }

    /// - Parameters:
    ///   - configuration: rate, period bound, polyphony, envelope times.
    ///   - tone: the loop every voice plays, at `configuration.rate`.
    /// - Thread: setup.
    public init(configuration: MixerConfiguration, tone: ToneTable) {
        self.init(configuration: configuration, region: SoundRegion(looping: tone))
    }

    /// - Parameters:
    ///   - configuration: rate, period bound, polyphony, envelope times.
    ///   - region: the sound every voice plays, at `configuration.rate` (its arrays are the
    ///     mixer's: `deallocate` frees them, not the region's tables).
    /// - Thread: setup.
    public init(configuration: MixerConfiguration, region: SoundRegion) {
        self.init(configuration: configuration, sound: Sound(region: region), ownsSound: true)
    }

    /// - Parameters:
    ///   - configuration: rate, period bound, polyphony, envelope times.
    ///   - sound: what the voices play, at `configuration.rate`; the caller keeps it (and its
    ///     tables) alive until it comes back from `takeRetired` or the mixer is freed, and
    ///     then frees it.
    /// - Thread: setup.
    public init(configuration: MixerConfiguration, sound: Sound) {
        self.init(configuration: configuration, sound: sound, ownsSound: false)
    }

    init(configuration: MixerConfiguration, sound: Sound, ownsSound: Bool) {
        precondition(configuration.voices >= 1 && configuration.maxPeriodFrames >= 1)
        self.configuration = configuration
        tone = sound.regions[0].held
        firstRegion = sound.regions[0]
        longestReleaseSeconds = max(configuration.releaseSeconds, Double(sound.longestReleaseFrames) / configuration.rate)
        sounds = .allocate(capacity: Mixer.soundSlotCount)
        sounds.initialize(repeating: nil, count: Mixer.soundSlotCount)
        let first = UnsafeMutablePointer<Sound>.allocate(capacity: 1)
        first.initialize(to: sound)
        sounds[0] = first
        soundVoices = .allocate(capacity: Mixer.soundSlotCount)
        soundVoices.initialize(repeating: 0, count: Mixer.soundSlotCount)
        incomingSound = .allocate(capacity: 1)
        incomingSound.initialize(to: Atomic(0))
        retiredSounds = SPSCRing(capacity: 64)
        ownsFirstSound = ownsSound
        lowPass = configuration.filter.map { LowPassGrid($0, rate: configuration.rate) }
        voices = VoiceBank(capacity: configuration.voices)
        index = VoiceIndex(voices: configuration.voices)
        state = .allocate(capacity: 1)
        let rate = configuration.rate
        let longest = Double(EngineLimits.maximumGlideFrames)
        var s = State()
        s.freeCount = configuration.voices
        s.interpolation = configuration.interpolation
        s.glideFrames = Int32(min(max(1, (configuration.smoothingSeconds * rate).rounded()), longest))
        s.panGlideFrames = Int32(min(max(1, (configuration.panSmoothingSeconds * rate).rounded()), longest))
        s.envelope = configuration.envelope
        s.initialTimbre = Float(min(max(configuration.filter?.initialTimbre ?? 1, 0), 1))
        s.stealStep = -Float(1 / max(1, configuration.stealSeconds * rate))
        s.crossfadeFrames = Int32(min(max(1, (configuration.zoneCrossfadeSeconds * rate).rounded()), Double(Int32.max / 2)))
        s.crossfadeStep = 1 / Float(s.crossfadeFrames)
        s.shortAttackStep = Float(1 / max(1, Mixer.shortAttackSeconds * rate)) * (1 - 1e-6)
        s.gain = max(configuration.gain, 0)
        s.gainTarget = s.gain
        s.gainGlideFrames = Int32(min(max(1, (Mixer.gainGlideSeconds * rate).rounded()), longest))
        state.initialize(to: s)
        rings = .allocate(capacity: configuration.maxSources)
        // A voice's last block loads and stores back unchanged (adding 0) up to 7 frames
        // past its span, and the pan stage reads up to 7 past any pan event's frame.
        busFrames = ((configuration.maxPeriodFrames + 7) & ~7) + 8
        mono = .allocate(capacity: 3 * busFrames)
        panEvents = .allocate(capacity: Mixer.panEventCapacity)
        meters = .allocate(capacity: 6)
        for i in 0..<6 { (meters + i).initialize(to: Atomic(0)) }
        cuts = .allocate(capacity: configuration.maxSources)
        for i in 0..<configuration.maxSources { (cuts + i).initialize(to: Atomic(UInt64.max)) }
        meters[3].store(UInt64(Float(1).bitPattern), ordering: .relaxed)
        limiter = configuration.limiter ? Limiter(rate: rate) : nil
        let (frames, bpm) = (busFrames, configuration.tempo)
        effects = configuration.effects.map { SendEffects($0, rate: rate, tempo: bpm, voices: configuration.voices, busFrames: frames) }
        tempoTrack = TempoTrack(bpm: bpm, rate: rate)
        arpeggiator = Arpeggiator(settings: configuration.arpeggiator, framesPerBeat: tempoTrack.clock.pointee.framesPerBeat(rate: rate))
    }

    /// Creates the event ring of one more input source and returns it with its index
    /// (the `TouchKey.source` its events must carry).
    /// - Thread: setup, before the render thread starts.
    public func addSource() -> (index: UInt32, ring: SPSCRing<EngineEvent>) {
        let i = state.pointee.sourceCount
        precondition(i < configuration.maxSources, "too many input sources")
        let ring = SPSCRing<EngineEvent>(capacity: configuration.eventsPerSource)
        (rings + i).initialize(to: ring)
        state.pointee.sourceCount = i + 1
        return (UInt32(i), ring)
    }

    /// Drops the events of input source `source` queued for after stream frame `frame`
    /// (a script's events are queued seconds ahead): until render applies the source's
    /// next `.releaseSource`, which then takes effect at `frame` at the latest. Play's stop
    /// ends a script there, so nothing it had queued sounds after the stop.
    /// - Thread: the source's control thread (its ring's producer), before it pushes the
    ///   `.releaseSource`.
    public func cut(source: UInt32, atFrame frame: UInt64) {
        cuts[Int(source)].store(frame, ordering: .relaxed)
    }

    /// Stream position: frames rendered so far. - Thread: any.
    public var position: UInt64 { @_noLocks get { meters[0].load(ordering: .relaxed) } }
    /// Voices sounding after the last period (including fading ones). - Thread: any.
    public var activeVoices: Int { @_noLocks get { Int(meters[1].load(ordering: .relaxed)) } }
    /// The limiter's smallest gain in the last period, linear (1: no reduction, also
    /// without a limiter). - Thread: any.
    public var limiterGain: Float { @_noLocks get { Float(bitPattern: UInt32(truncatingIfNeeded: meters[3].load(ordering: .relaxed))) } }
    /// Frames the output lags the mix by: the limiter's look-ahead (0 without it).
    public var latencyFrames: Int { limiter?.latencyFrames ?? 0 }
    /// Largest absolute sample of the last period. - Thread: any.
    public var peak: Float { @_noLocks get { Float(bitPattern: UInt32(truncatingIfNeeded: meters[2].load(ordering: .relaxed))) } }

    /// The first region of the sound the mixer started with. - Thread: any.
    public var region: SoundRegion { firstRegion }

    /// Frees everything but the sounds given to it (`init(configuration:sound:)`,
    /// `replace`) and their tables: a sound still held or waiting in `takeRetired` is the
    /// caller's to free (`heldSounds`). - Thread: setup, after the render thread stopped.
    public func deallocate() {
        for i in 0..<Mixer.soundSlotCount {
            guard let box = sounds[i] else { continue }
            if i == 0 && ownsFirstSound { box.pointee.deallocate() }
            box.deinitialize(count: 1)
            box.deallocate()
        }
        sounds.deallocate()
        soundVoices.deallocate()
        let pending = incomingSound.pointee.exchange(0, ordering: .acquiring)
        if let box = UnsafeMutablePointer<Sound>(bitPattern: pending) { box.deinitialize(count: 1); box.deallocate() }
        incomingSound.deallocate()
        while let bits = retiredSounds.peek() {
            retiredSounds.pop()
            if let box = UnsafeMutablePointer<Sound>(bitPattern: bits) { box.deinitialize(count: 1); box.deallocate() }
        }
        retiredSounds.deallocate()
        lowPass?.deallocate()
        for i in 0..<state.pointee.sourceCount { rings[i].deallocate() }
        rings.deallocate()
        voices.deallocate()
        index.deallocate()
        state.deallocate()
        mono.deallocate()
        panEvents.deallocate()
        meters.deallocate()
        cuts.deallocate()
        limiter?.deallocate()
        effects?.deallocate()
        tempoTrack.deallocate(); arpeggiator.deallocate()
    }

    // MARK: - Render (real-time)

    /// Renders `frames` interleaved stereo float frames into `out` (2·frames samples),
    /// applying every queued event whose frame falls inside the period at its offset.
    ///
    /// Events are taken in frame order across all sources (`takeEvents`: ties go to the
    /// lower source index; late events count as frame 0 of the period). A voice is mixed
    /// into the period's mono mix in spans that end only at its own events ("catching
    /// up" to the event's frame before applying it, `VoiceSpans.swift`), so an event
    /// costs one more span for its voice, not for every voice. Pan events are kept for
    /// the pan stage, which pans the mono mix into `out` at the end, split at their
    /// frames (`PanStage.swift`).
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
        state.pointee.periodFrames = frames
        state.pointee.stereoBuses = false

        if let effects { beginSends(effects) }
        if meters[5].load(ordering: .relaxed) != 0 { takeFadeRequest() }
        takeIncomingSound()
        if state.pointee.zoneChecks > 0 { crossPendingZones() }
        beginTempo(at: start)
        takeEvents(from: start, to: end, out: out)
        endTempo(at: end, start: start, out: out)

        // Every voice to the period's end; the next period starts them all at 0.
        var a = 0
        while a < state.pointee.activeCount {
            let v = Int(voices.active[a])
            if mixSpan(v, to: Int32(frames)) { continue }
            voices.mixedTo[v] = 0
            a += 1
        }
        panStage(out, to: frames)
        if let effects { runEffects(effects, out, frames: frames) }
        let (limiterGain, peak) = mixBus(out, frames: frames)

        state.pointee.position = end
        meters[0].store(end, ordering: .relaxed)
        meters[1].store(UInt64(state.pointee.activeCount), ordering: .relaxed)
        meters[2].store(UInt64(peak.bitPattern), ordering: .relaxed)
        meters[3].store(UInt64(limiterGain.bitPattern), ordering: .relaxed)
    }
}
