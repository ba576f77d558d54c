// SPDX-License-Identifier: GPL-3.0-or-later
/// The send effects of `Mixer` (`MixerConfiguration.effects`): three buses — reverb,
/// delay, chorus — that every voice sends to at its own levels, and their effects
/// (`Reverb`, `EchoDelay`, `Chorus`), after the pan stage and before the master gain and
/// limiter. Sends, not inserts: one reverb for all voices, as in sfizz's `effect1`/`effect2`
/// buses and a mixing desk's aux sends.
///
/// **Send groups.** Voices are mixed into shared buses, so a voice cannot be scaled on its
/// own after the mix. Each voice belongs to a send group: group 0 holds every voice at the
/// instrument's default sends (`EffectSettings.reverbSend`…, `setDefaultSend`) and mixes
/// into the mixer's own buses, as without effects. A `.send` event for a touch gives its
/// voice a group of its own (one of `groupCount − 1`, taken from a free list; its voices
/// in a zone crossfade share it), which starts at group 0's levels and glides (10 ms,
/// linear per frame) to the level asked: the voice's sound moves from one bus to another
/// without a step, and its send never jumps. When the groups run out, a touch keeps
/// group 0's sends (`sendGroupsExhausted` counts it). Each group has its own mono, left
/// and right buses (as `Mixer.mono`); the pan stage adds them into the mix and, times
/// their send levels, into each bus's sends, and pans each send by the same pan as the
/// mix (`PanStage.swift`), so a voice's send sits where the voice does.
///
/// **Byte for byte without sends.** A bus whose sends are all 0 is not computed, and an
/// effect with no input and no tail left (below −140 dBFS) is not run, so with every send
/// at 0 the output is the mixer's without effects, bit for bit.
///
/// Plain pointers allocated at setup; everything here runs on the render thread,
/// `@_noLocks`.
public struct SendEffects: @unchecked Sendable {
    /// Send groups, group 0 (the default) included.
    public static var groupCount: Int { @_noLocks @inline(__always) get { 32 } }
    /// Length of a send level's glide, seconds.
    static var sendGlideSeconds: Double { @_noLocks @inline(__always) get { 0.010 } }
    /// An effect is asleep when its last period's output peak is below this (−140 dBFS).
    static var quiet: Float { @_noLocks @inline(__always) get { 1e-7 } }

    let reverb: Reverb
    let delay: EchoDelay
    let chorus: Chorus
    /// Floats of each bus (`Mixer.busFrames`).
    let busFrames: Int
    /// Groups 1…: their mono, left and right buses, `3·busFrames` floats a group (group g's
    /// at `(g − 1)·3·busFrames`). Owner: render.
    let groupBuses: UnsafeMutablePointer<Float>
    /// Per group and bus (`g·3 + bus`): the send level now, its target (linear 0…1), its
    /// step per frame and frames left of its glide.
    let level: UnsafeMutablePointer<Float>
    let target: UnsafeMutablePointer<Float>
    let step: UnsafeMutablePointer<Float>
    let left: UnsafeMutablePointer<Int32>
    /// Per group and bus: the frame of the current period its glide starts at (0: the
    /// period's first; a group taken mid-period glides from the frame it was taken).
    let start: UnsafeMutablePointer<Int32>
    /// Per group: voices in it (0: free). Group 0's count is not kept.
    let members: UnsafeMutablePointer<Int32>
    /// Per group: the period it was last zeroed for (`State.period`).
    let stamp: UnsafeMutablePointer<UInt64>
    /// The free groups, a stack; and the groups freed in the current period, which may
    /// still hold its frames (they join the free stack at the next period's start).
    let free: UnsafeMutablePointer<UInt8>
    let retired: UnsafeMutablePointer<UInt8>
    /// Per voice: its group (0: the default).
    let voiceGroup: UnsafeMutablePointer<UInt8>
    /// The groups used in the current period, in order of first use.
    let used: UnsafeMutablePointer<UInt8>
    /// Per bus: its sends' mono, left and right buses (as a group's), and its panned send
    /// (interleaved stereo, `2·busFrames` floats): the effect's input.
    let sendBuses: UnsafeMutablePointer<Float>
    let sendStereo: UnsafeMutablePointer<Float>
    let state: UnsafeMutablePointer<State>

    struct State {
        var period: UInt64 = 0
        var freeCount = 0
        var retiredCount = 0
        var usedCount = 0
        /// Per effect: frames it stays awake after its last input (its latency: the reverb's
        /// pre-delay and lines, the delay's time, the chorus's reads), counting down; and
        /// whether it ran in the last period.
        var awake = SIMD4<Int32>()
        var ran = SIMD4<UInt8>()
        /// Frames an effect stays awake after input: the reverb's and chorus's (0.5 s).
        var latencyFrames: Int32 = 0
        /// Per bus: computed in this period (its send and panned buffers hold it).
        var active = SIMD4<UInt8>()
        /// Per effect (reverb, delay, chorus): its last output peak, linear.
        var tail = SIMD4<Float>()
        var glideFrames: Int32 = 1
        var tempo = 120.0
        var delaySettings = DelaySettings()
        var toReverb: Float = 0
        var exhausted = 0
    }

    /// - Thread: setup.
    init(_ settings: EffectSettings, rate: Double, tempo: Double, voices: Int, busFrames: Int) {
        reverb = Reverb(rate: rate, settings: settings.reverb)
        delay = EchoDelay(rate: rate, settings: settings.delay, tempo: tempo)
        chorus = Chorus(rate: rate, settings: settings.chorus)
        self.busFrames = busFrames
        let groups = SendEffects.groupCount
        groupBuses = .allocate(capacity: (groups - 1) * 3 * busFrames)
        groupBuses.initialize(repeating: 0, count: (groups - 1) * 3 * busFrames)
        level = .allocate(capacity: groups * 3); level.initialize(repeating: 0, count: groups * 3)
        target = .allocate(capacity: groups * 3); target.initialize(repeating: 0, count: groups * 3)
        step = .allocate(capacity: groups * 3); step.initialize(repeating: 0, count: groups * 3)
        left = .allocate(capacity: groups * 3); left.initialize(repeating: 0, count: groups * 3)
        start = .allocate(capacity: groups * 3); start.initialize(repeating: 0, count: groups * 3)
        members = .allocate(capacity: groups); members.initialize(repeating: 0, count: groups)
        stamp = .allocate(capacity: groups); stamp.initialize(repeating: .max, count: groups)
        free = .allocate(capacity: groups)
        retired = .allocate(capacity: groups)
        for g in 0..<(groups - 1) { free[g] = UInt8(groups - 1 - g) }
        voiceGroup = .allocate(capacity: voices); voiceGroup.initialize(repeating: 0, count: voices)
        used = .allocate(capacity: groups); used.initialize(repeating: 0, count: groups)
        sendBuses = .allocate(capacity: 3 * 3 * busFrames); sendBuses.initialize(repeating: 0, count: 9 * busFrames)
        sendStereo = .allocate(capacity: 3 * 2 * busFrames); sendStereo.initialize(repeating: 0, count: 6 * busFrames)
        state = .allocate(capacity: 1)
        var s = State()
        s.freeCount = groups - 1
        s.glideFrames = Int32(max(1, (SendEffects.sendGlideSeconds * rate).rounded()))
        s.latencyFrames = Int32(0.5 * rate)
        s.tempo = tempo
        s.delaySettings = settings.delay
        s.toReverb = Float(min(max(settings.delay.toReverb, 0), 1))
        state.initialize(to: s)
        let defaults = [settings.reverbSend, settings.delaySend, settings.chorusSend]
        for b in 0..<3 {
            let l = Float(min(max(defaults[b], 0), 1))
            level[b] = l
            target[b] = l
        }
    }

    func deallocate() {
        reverb.deallocate(); delay.deallocate(); chorus.deallocate()
        groupBuses.deallocate(); level.deallocate(); target.deallocate(); step.deallocate(); left.deallocate()
        start.deallocate(); retired.deallocate()
        members.deallocate(); stamp.deallocate(); free.deallocate(); voiceGroup.deallocate(); used.deallocate()
        sendBuses.deallocate(); sendStereo.deallocate(); state.deallocate()
    }

    /// Bus `bus`'s level in group `g` glides to `value` (0…1) from where it stands at its
    /// glide's start (`start`).
    @_noLocks
    func glide(_ g: Int, _ bus: Int, to value: Float) {
        let v = value.isNaN ? 0 : min(max(value, 0), 1)
        let i = g &* 3 &+ bus
        target[i] = v
        let frames = state.pointee.glideFrames
        step[i] = (v - level[i]) / Float(frames)
        left[i] = frames
    }

    /// The level of slot `i` (`g·3 + bus`) at frame `n` of the current period.
    @_noLocks @inline(__always)
    func level(_ i: Int, at n: Int) -> Float {
        let s = Int(start[i]), l = Int(left[i])
        if n < s { return level[i] }
        return n &- s < l ? level[i] + step[i] * Float(n &- s &+ 1) : target[i]
    }

    /// The level is settled at `value`: no glide, and `value` its target.
    @_noLocks @inline(__always)
    func settled(_ i: Int, at value: Float) -> Bool { left[i] == 0 && target[i] == value }

    /// Bus `bus` has a send in some group (a level or a target above 0).
    @_noLocks @inline(__always)
    func sends(_ bus: Int) -> Bool {
        if level[bus] != 0 || target[bus] != 0 { return true }
        var g = 1
        while g < SendEffects.groupCount {
            if members[g] > 0 && (level[g &* 3 &+ bus] != 0 || target[g &* 3 &+ bus] != 0) { return true }
            g &+= 1
        }
        return false
    }
}

/// What the send effects do, and the voices' default sends.
public struct EffectSettings: Sendable, Equatable {
    public var reverb = ReverbSettings()
    public var delay = DelaySettings()
    public var chorus = ChorusSettings()
    /// The voices' default send levels, linear 0…1. (The delay's note values are of the
    /// mixer's tempo clock: `Mixer.tempo`.)
    public var reverbSend = 0.0
    public var delaySend = 0.0
    public var chorusSend = 0.0

    public init() {}
}

/// A send bus (`EngineEvent.Kind.send`'s `bus`).
public enum SendBus: Sendable, CaseIterable, BitwiseCopyable {
    case reverb, delay, chorus

    /// The bus's number: 0, 1, 2 (`EngineEvent.bus`).
    public var index: UInt8 {
        @_noLocks @inline(__always) get {
            switch self {
            case .reverb: 0
            case .delay: 1
            case .chorus: 2
            }
        }
    }
}
