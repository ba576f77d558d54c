// SPDX-License-Identifier: GPL-3.0-or-later
/// Voice state in structure-of-arrays form: slot `v` of every array is voice `v`.
/// Allocated once at setup for the configured polyphony; never grows.
///
/// A voice loops the tone from its start. Its read position (`phase`) is fixed-point,
/// `Mixer.fractionBits` fractional bits, so every implementation of the algorithm reads
/// the same positions. Its pitch ratio (a fixed-point increment) and gain glide linearly
/// to each new target over `glideLeft` frames: at frame n of a span (see `Mixer.render`), with
/// g = max(glideLeft − n, 0), increment = incTarget − incStep·g and gain = gainTarget −
/// gainStep·g, so both land exactly on their targets. Its envelope is a linear ramp 0…1
/// shaped by smoothstep (3r² − 2r³) between a floor and floor + span, rising for the
/// attack (and the decay), falling for the release or steal (`Envelope`).
/// A voice being stolen may hold a pending touch that starts when its fade ends.
///
/// Owner of every array: the render thread (`Mixer`); allocated and filled at setup.
struct VoiceBank {
    /// Touch that owns the voice.
    let key: UnsafeMutablePointer<TouchKey>
    /// Start order (a counter from `Mixer.State.nextAge`), for stealing the oldest.
    let age: UnsafeMutablePointer<UInt64>
    /// Read position in the tone, fixed-point frames (`Mixer.fractionBits` fractional
    /// bits), 0 ≤ phase < `ToneTable.loopFrames`·2^fractionBits.
    let phase: UnsafeMutablePointer<Int64>
    /// Pitch ratio as a fixed-point phase increment per frame (tone frames per output
    /// frame · 2^fractionBits): the glide's target.
    let incTarget: UnsafeMutablePointer<Int32>
    /// Change of the increment per frame of the glide (fixed-point, as `incTarget`).
    let incStep: UnsafeMutablePointer<Int32>
    /// Linear gain (edge fade included): the glide's target.
    let gainTarget: UnsafeMutablePointer<Float>
    /// Change of the linear gain per frame of the glide.
    let gainStep: UnsafeMutablePointer<Float>
    /// Frames left in the current glide of increment and gain, ≥ 0.
    let glideLeft: UnsafeMutablePointer<Int32>
    /// Envelope ramp, 0…1 (the envelope is its smoothstep).
    let ramp: UnsafeMutablePointer<Float>
    /// Change of the ramp per frame (> 0 held: attack, decay, sustain; < 0 release or
    /// steal fade).
    let rampStep: UnsafeMutablePointer<Float>
    /// The envelope's floor and span, linear gain: envelope = floor + span ·
    /// smoothstep(ramp) (`Envelope`). Attack 0 and 1; decay and sustain 1 and sustain − 1.
    let envFloor: UnsafeMutablePointer<Float>
    let envSpan: UnsafeMutablePointer<Float>
    /// Frames until the attack ends and the decay starts (> 0 only while an attack with a
    /// decay after it runs).
    let stageLeft: UnsafeMutablePointer<Int32>
    /// The voice's decay ramp step (> 0, 0 for none), sustain level (linear) and release
    /// ramp step (< 0): its `Envelope`'s.
    let decayStep: UnsafeMutablePointer<Float>
    let sustain: UnsafeMutablePointer<Float>
    let releaseStep: UnsafeMutablePointer<Float>
    /// A span of this voice must stop where a stage ends: its attack (`stageLeft` > 0) or
    /// the steal fade a touch waits on (`hasPending`). Checked once per span.
    let watch: UnsafeMutablePointer<Bool>
    /// The touch ended during a short attack: the release starts where the attack ends
    /// (`stageLeft` counts down to it).
    let releaseAfterAttack: UnsafeMutablePointer<Bool>
    /// A touch waiting for this voice's steal fade to end.
    let hasPending: UnsafeMutablePointer<Bool>
    /// The waiting touch.
    let pendingKey: UnsafeMutablePointer<TouchKey>
    /// The waiting touch's pitch ratio (ratio, as in `EngineEvent.value`).
    let pendingRatio: UnsafeMutablePointer<Float>
    /// The waiting touch's linear gain (edge fade included), and its gain before the edge
    /// fade (what picks a velocity layer).
    let pendingGain: UnsafeMutablePointer<Float>
    let pendingVelocity: UnsafeMutablePointer<Float>
    /// The region the waiting touch will start on, in the sound of slot `pendingSlot`
    /// (chosen when it came: the round robin counts it once).
    let pendingRegion: UnsafeMutablePointer<Int32>
    let pendingSlot: UnsafeMutablePointer<Int8>

    /// The voice is not plain: it plays its region's tables (`region`) through
    /// `Mixer.mixSpecialSpan` (a stereo, panned, looped, filtered or crossfading voice),
    /// not the plain path. Set at start.
    let special: UnsafeMutablePointer<Bool>
    /// The region the voice plays (in its sound, `soundSlot`).
    let region: UnsafeMutablePointer<UnsafePointer<SoundRegion>?>
    /// The table the voice reads: its region's held table, or its release table
    /// (`released`). (Points into its sound's `Sound.tables`.)
    let table: UnsafeMutablePointer<UnsafePointer<ToneTable>>
    /// The voice reads its region's `release` table (released in a sustain loop).
    let released: UnsafeMutablePointer<Bool>
    /// Released before its sustain loop's start: it goes on to `release` once its phase
    /// reaches the loop (checked at each span).
    let switchPending: UnsafeMutablePointer<Bool>
    /// Phase (fixed-point, of the table read) past which the table is silent for good:
    /// the voice ends there (`Int64.max`: never).
    let endPhase: UnsafeMutablePointer<Int64>
    /// A stereo or panned voice's side gains (`voicePanGains`: 1 and 1 at the centre).
    let panLeft: UnsafeMutablePointer<Float>
    let panRight: UnsafeMutablePointer<Float>
    /// The slot of the sound the voice plays (`Mixer.sounds`), −1 while it is free; and its
    /// region's index in that sound.
    let soundSlot: UnsafeMutablePointer<Int8>
    let regionIndex: UnsafeMutablePointer<Int32>
    /// The region's playback rate per unit of voice ratio and its level (`RegionPlacement`
    /// `pitchScale`, `gain`): the increments and gains of the glide carry them.
    let scale: UnsafeMutablePointer<Float>
    let regionGain: UnsafeMutablePointer<Float>
    /// The edge fade's slope per increment unit (`Mixer.edgeFadeScale` of `scale`).
    let fadeSlope: UnsafeMutablePointer<Float>
    /// The touch's pitch ratio and linear gain (edge fade included) the glide heads to,
    /// before the region's scale and level.
    let ratioTarget: UnsafeMutablePointer<Float>
    let touchGain: UnsafeMutablePointer<Float>
    /// The touch's gain at its start, before the edge fade (its velocity layer).
    let velocity: UnsafeMutablePointer<Float>
    /// A zone crossfade (`ZoneCrossfade.swift`): the voice's part (none, coming in, going
    /// out), its frames left from the voice's `mixedTo` (of `Mixer.State.crossfadeFrames`),
    /// the crossfade law's correlation, and the other voice of the crossfade (−1: none).
    let crossfadeRole: UnsafeMutablePointer<CrossfadeRole>
    let crossfadeLeft: UnsafeMutablePointer<Int32>
    let crossfadeCorrelation: UnsafeMutablePointer<Float>
    let partner: UnsafeMutablePointer<Int32>
    /// The voice's pitch left its region during its crossfade: it crosses on after it
    /// (`Mixer.crossPendingZones`).
    let zoneCheck: UnsafeMutablePointer<Bool>
    /// A move of its touch goes on to `Mixer.followPitch`: its region is a zone of several,
    /// or it is part of a crossfade (one test on the plain voices' common path).
    let followsPitch: UnsafeMutablePointer<Bool>

    /// The timbre (0…1: the low-pass filter's cutoff, `FilterSettings`) the voice glides
    /// to, its change per frame and the glide's frames left; whether no timbre has come
    /// since the voice started (the first is taken at once, not glided to).
    let timbreTarget: UnsafeMutablePointer<Float>
    let timbreStep: UnsafeMutablePointer<Float>
    let timbreLeft: UnsafeMutablePointer<Int32>
    let timbreFresh: UnsafeMutablePointer<Bool>
    /// The filter's state (`LowPassState`: ic1, ic2) of the left (or only) channel and of
    /// the right.
    let filterLeft: UnsafeMutablePointer<SIMD2<Float>>
    let filterRight: UnsafeMutablePointer<SIMD2<Float>>
    /// The filter still rings (its state above −120 dB) after the last span: a voice
    /// whose envelope has ended lives on until it has rung out (cutting it would click).
    let ringing: UnsafeMutablePointer<Bool>

    /// Frames of the current period already mixed into the mono mix (0 at each period's
    /// start): events catch a voice up to their frame, the period's end the rest.
    let mixedTo: UnsafeMutablePointer<Int32>
    /// Where voice `v` sits in `active` while it sounds, −1 when free.
    let activeIndex: UnsafeMutablePointer<Int32>
    /// Indices of sounding voices, dense, `Mixer.State.activeCount` of them.
    let active: UnsafeMutablePointer<Int32>
    /// Indices of free voices, a stack, `Mixer.State.freeCount` of them.
    let free: UnsafeMutablePointer<Int32>

    init(capacity: Int) {
        precondition(capacity >= 1)
        key = .allocate(capacity: capacity); key.initialize(repeating: TouchKey(source: 0, touch: 0), count: capacity)
        age = .allocate(capacity: capacity); age.initialize(repeating: 0, count: capacity)
        phase = .allocate(capacity: capacity); phase.initialize(repeating: 0, count: capacity)
        incTarget = .allocate(capacity: capacity); incTarget.initialize(repeating: 0, count: capacity)
        incStep = .allocate(capacity: capacity); incStep.initialize(repeating: 0, count: capacity)
        gainTarget = .allocate(capacity: capacity); gainTarget.initialize(repeating: 0, count: capacity)
        gainStep = .allocate(capacity: capacity); gainStep.initialize(repeating: 0, count: capacity)
        glideLeft = .allocate(capacity: capacity); glideLeft.initialize(repeating: 0, count: capacity)
        ramp = .allocate(capacity: capacity); ramp.initialize(repeating: 0, count: capacity)
        rampStep = .allocate(capacity: capacity); rampStep.initialize(repeating: 0, count: capacity)
        envFloor = .allocate(capacity: capacity); envFloor.initialize(repeating: 0, count: capacity)
        envSpan = .allocate(capacity: capacity); envSpan.initialize(repeating: 1, count: capacity)
        stageLeft = .allocate(capacity: capacity); stageLeft.initialize(repeating: 0, count: capacity)
        decayStep = .allocate(capacity: capacity); decayStep.initialize(repeating: 0, count: capacity)
        sustain = .allocate(capacity: capacity); sustain.initialize(repeating: 1, count: capacity)
        releaseStep = .allocate(capacity: capacity); releaseStep.initialize(repeating: -1, count: capacity)
        watch = .allocate(capacity: capacity); watch.initialize(repeating: false, count: capacity)
        releaseAfterAttack = .allocate(capacity: capacity); releaseAfterAttack.initialize(repeating: false, count: capacity)
        hasPending = .allocate(capacity: capacity); hasPending.initialize(repeating: false, count: capacity)
        pendingKey = .allocate(capacity: capacity); pendingKey.initialize(repeating: TouchKey(source: 0, touch: 0), count: capacity)
        pendingRatio = .allocate(capacity: capacity); pendingRatio.initialize(repeating: 0, count: capacity)
        pendingGain = .allocate(capacity: capacity); pendingGain.initialize(repeating: 0, count: capacity)
        pendingVelocity = .allocate(capacity: capacity); pendingVelocity.initialize(repeating: 0, count: capacity)
        pendingRegion = .allocate(capacity: capacity); pendingRegion.initialize(repeating: 0, count: capacity)
        pendingSlot = .allocate(capacity: capacity); pendingSlot.initialize(repeating: 0, count: capacity)
        special = .allocate(capacity: capacity); special.initialize(repeating: false, count: capacity)
        region = .allocate(capacity: capacity); region.initialize(repeating: nil, count: capacity)
        table = .allocate(capacity: capacity)
        released = .allocate(capacity: capacity); released.initialize(repeating: false, count: capacity)
        switchPending = .allocate(capacity: capacity); switchPending.initialize(repeating: false, count: capacity)
        endPhase = .allocate(capacity: capacity); endPhase.initialize(repeating: .max, count: capacity)
        panLeft = .allocate(capacity: capacity); panLeft.initialize(repeating: 1, count: capacity)
        panRight = .allocate(capacity: capacity); panRight.initialize(repeating: 1, count: capacity)
        soundSlot = .allocate(capacity: capacity); soundSlot.initialize(repeating: -1, count: capacity)
        regionIndex = .allocate(capacity: capacity); regionIndex.initialize(repeating: 0, count: capacity)
        scale = .allocate(capacity: capacity); scale.initialize(repeating: 1, count: capacity)
        regionGain = .allocate(capacity: capacity); regionGain.initialize(repeating: 1, count: capacity)
        fadeSlope = .allocate(capacity: capacity); fadeSlope.initialize(repeating: Mixer.edgeFadeScale(1), count: capacity)
        ratioTarget = .allocate(capacity: capacity); ratioTarget.initialize(repeating: 0, count: capacity)
        touchGain = .allocate(capacity: capacity); touchGain.initialize(repeating: 0, count: capacity)
        velocity = .allocate(capacity: capacity); velocity.initialize(repeating: 0, count: capacity)
        crossfadeRole = .allocate(capacity: capacity); crossfadeRole.initialize(repeating: .none, count: capacity)
        crossfadeLeft = .allocate(capacity: capacity); crossfadeLeft.initialize(repeating: 0, count: capacity)
        crossfadeCorrelation = .allocate(capacity: capacity); crossfadeCorrelation.initialize(repeating: 0, count: capacity)
        partner = .allocate(capacity: capacity); partner.initialize(repeating: -1, count: capacity)
        zoneCheck = .allocate(capacity: capacity); zoneCheck.initialize(repeating: false, count: capacity)
        followsPitch = .allocate(capacity: capacity); followsPitch.initialize(repeating: false, count: capacity)
        timbreTarget = .allocate(capacity: capacity); timbreTarget.initialize(repeating: 1, count: capacity)
        timbreStep = .allocate(capacity: capacity); timbreStep.initialize(repeating: 0, count: capacity)
        timbreLeft = .allocate(capacity: capacity); timbreLeft.initialize(repeating: 0, count: capacity)
        timbreFresh = .allocate(capacity: capacity); timbreFresh.initialize(repeating: true, count: capacity)
        filterLeft = .allocate(capacity: capacity); filterLeft.initialize(repeating: SIMD2(), count: capacity)
        filterRight = .allocate(capacity: capacity); filterRight.initialize(repeating: SIMD2(), count: capacity)
        ringing = .allocate(capacity: capacity); ringing.initialize(repeating: false, count: capacity)
        mixedTo = .allocate(capacity: capacity); mixedTo.initialize(repeating: 0, count: capacity)
        activeIndex = .allocate(capacity: capacity); activeIndex.initialize(repeating: -1, count: capacity)
        active = .allocate(capacity: capacity)
        free = .allocate(capacity: capacity)
        for i in 0..<capacity { free[i] = Int32(capacity - 1 - i) }
    }

    func deallocate() {
        key.deallocate(); age.deallocate(); phase.deallocate()
        incTarget.deallocate(); incStep.deallocate(); gainTarget.deallocate(); gainStep.deallocate(); glideLeft.deallocate()
        ramp.deallocate(); rampStep.deallocate(); envFloor.deallocate(); envSpan.deallocate(); stageLeft.deallocate()
        decayStep.deallocate(); sustain.deallocate(); releaseStep.deallocate(); watch.deallocate()
        releaseAfterAttack.deallocate(); hasPending.deallocate(); pendingKey.deallocate(); pendingRatio.deallocate(); pendingGain.deallocate()
        pendingVelocity.deallocate(); pendingRegion.deallocate(); pendingSlot.deallocate()
        special.deallocate(); region.deallocate(); table.deallocate(); released.deallocate(); switchPending.deallocate(); endPhase.deallocate()
        panLeft.deallocate(); panRight.deallocate()
        soundSlot.deallocate(); regionIndex.deallocate(); scale.deallocate(); regionGain.deallocate(); fadeSlope.deallocate()
        ratioTarget.deallocate(); touchGain.deallocate(); velocity.deallocate()
        crossfadeRole.deallocate(); crossfadeLeft.deallocate(); crossfadeCorrelation.deallocate()
        partner.deallocate(); zoneCheck.deallocate(); followsPitch.deallocate()
        timbreTarget.deallocate(); timbreStep.deallocate(); timbreLeft.deallocate(); timbreFresh.deallocate()
        filterLeft.deallocate(); filterRight.deallocate(); ringing.deallocate()
        mixedTo.deallocate(); activeIndex.deallocate(); active.deallocate(); free.deallocate()
    }

    /// (Re)starts voice `v` for a touch: phase 0, parameters at their targets at once,
    /// the attack of `envelope` from silence, playing region `index` of `sound` (in sound
    /// slot `slot`: the caller counts the voice in it); through the low-pass filter from
    /// `timbre` when `filtered` (its state kept when the voice restarts for the touch
    /// that stole it: the old sound's ring-out goes on). A crossfade it was part of goes
    /// on without it.
    @_noLocks @inline(__always)
    func start(_ v: Int, key k: TouchKey, ratio r: Float, gain g: Float, velocity touchVelocity: Float, age a: UInt64, envelope: Envelope,
               sound: Sound, index: Int, slot: Int, filtered: Bool = false, timbre: Float = 1) {
        if filtered {
            timbreTarget[v] = timbre; timbreStep[v] = 0; timbreLeft[v] = 0; timbreFresh[v] = true
            if !hasPending[v] { filterLeft[v] = SIMD2(); filterRight[v] = SIMD2(); ringing[v] = false }
        }
        leaveCrossfade(v)
        zoneCheck[v] = false
        let region = UnsafePointer(sound.regions + index)
        let placement = region.pointee.placement
        followsPitch[v] = placement.zoned
        self.region[v] = region
        table[v] = UnsafePointer(sound.tables + 2 * index)
        soundSlot[v] = Int8(truncatingIfNeeded: slot)
        regionIndex[v] = Int32(truncatingIfNeeded: index)
        scale[v] = placement.pitchScale
        fadeSlope[v] = Mixer.edgeFadeScale(placement.pitchScale)
        regionGain[v] = placement.gain
        released[v] = false
        switchPending[v] = false
        special[v] = !region.pointee.isPlain || filtered
        endPhase[v] = region.pointee.heldEndPhase
        panLeft[v] = region.pointee.panLeft
        panRight[v] = region.pointee.panRight
        key[v] = k
        age[v] = a
        phase[v] = 0
        ratioTarget[v] = r
        touchGain[v] = g
        velocity[v] = touchVelocity
        incTarget[v] = Mixer.increment(ratio: r * placement.pitchScale); incStep[v] = 0
        gainTarget[v] = g * placement.gain; gainStep[v] = 0
        glideLeft[v] = 0
        let envelope = placement.envelope ?? envelope
        ramp[v] = 0; rampStep[v] = envelope.attackStep
        envFloor[v] = 0; envSpan[v] = envelope.attackSpan
        decayStep[v] = envelope.decayStep; sustain[v] = envelope.sustain; releaseStep[v] = envelope.releaseStep
        let decays = envelope.decayStep > 0
        stageLeft[v] = decays ? envelope.attackFrames : 0
        watch[v] = decays
        releaseAfterAttack[v] = false
        hasPending[v] = false
    }

    /// Voice `v` leaves the zone crossfade it is part of (it ends, or restarts for another
    /// touch): the other voice goes on with its own part alone.
    @_noLocks @inline(__always)
    func leaveCrossfade(_ v: Int) {
        let p = Int(partner[v])
        if p >= 0 && Int(partner[p]) == v { partner[p] = -1 }
        partner[v] = -1
        crossfadeRole[v] = .none
    }
}

/// A voice's part in a zone crossfade (`ZoneCrossfade.swift`).
enum CrossfadeRole: UInt8, BitwiseCopyable {
    case none
    /// The voice on the region the pitch crossed into: its gain rises (the law's b).
    case incoming
    /// The voice on the region left behind: its gain falls (the law's a); it ends there.
    case outgoing

    // (Compared by raw value: the synthesized `==` is not checked-safe in debug builds.)
    var isNone: Bool { @_noLocks @inline(__always) get { rawValue == 0 } }
    var isIncoming: Bool { @_noLocks @inline(__always) get { rawValue == 1 } }
    var isOutgoing: Bool { @_noLocks @inline(__always) get { rawValue == 2 } }
}
