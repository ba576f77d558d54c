// SPDX-License-Identifier: GPL-3.0-or-later
import BendAudio
import BendControl
import BendEngine
import BendMIDI

/// The instrument core's face on a plugin host's audio thread (LV2's `run`, CLAP's
/// `process`): the host's MIDI in, applied at each event's frame; the MIDI the core's
/// sources send out (the phone pad's MPE), handed back at the frames they are due; the
/// mix bus's controls; and the render step into the host's two planar buffers, in steps
/// of the mixer's period bound (a host block may be any length).
///
/// Plain values and pointers made at setup (`InstrumentCore.hostRender`), no class
/// reference of its own to retain, so the host's audio thread takes no lock and
/// allocates nothing here (`@_noLocks`, checked in release builds).
/// - Thread: render (the host's audio thread), except where a member says setup.
public struct HostRender: @unchecked Sendable {
    /// The period step (publish the clock, render, meter).
    let driver: RenderDriver
    /// The mixer's period bound, frames: a longer block is rendered in steps of it.
    public let bound: Int
    /// Interleaved stereo float scratch, 2 × `bound` samples. Owner: render.
    let scratch: UnsafeMutablePointer<Float>
    /// The host's MIDI: the interpreter (inline state) and the gate into the engine's ring
    /// of its own source. Owner: render.
    let interpreter: UnsafeMutablePointer<MIDIInterpreter>
    let gate: TouchGate
    /// MIDI the core's sources send to the host, each packet at the stream frame it is due
    /// (`HostMIDIOut`); the render thread is its one consumer.
    let outgoing: SPSCRing<MIDIPacket>
    /// The block length the stream clock was last told (its stamping latency), frames.
    /// Owner: render.
    let clockBlock: UnsafeMutablePointer<Int>
    /// The host's MIDI's engine ring (the gate's), for the panic's release of every voice.
    let ring: SPSCRing<EngineEvent>
    /// The panic's counts: asked by a control thread (`requestPanic`), done by the render
    /// thread, and MIDI's CC 120/123 seen by it (`HostPanic`).
    let panics: AtomicCounters<HostPanic>

    /// - Thread: setup (the core makes it once).
    init(driver: RenderDriver, bound: Int, source: (index: UInt32, ring: SPSCRing<EngineEvent>)) {
        ring = source.ring
        panics = AtomicCounters()
        self.driver = driver
        self.bound = bound
        latencyFrames = driver.mixer.latencyFrames
        scratch = .allocate(capacity: 2 * bound)
        scratch.initialize(repeating: 0, count: 2 * bound)
        interpreter = .allocate(capacity: 1)
        interpreter.initialize(to: MIDIInterpreter())
        gate = TouchGate(source: source.index, ring: source.ring)
        outgoing = SPSCRing<MIDIPacket>(capacity: 8192)
        clockBlock = .allocate(capacity: 1)
        clockBlock.initialize(to: 0)
    }

    /// - Thread: setup (the core's deallocate, after the host's last block).
    func deallocate() {
        scratch.deallocate()
        interpreter.deinitialize(count: 1)
        interpreter.deallocate()
        gate.deallocate()
        outgoing.deallocate()
        clockBlock.deallocate()
        panics.deallocate()
    }

    // MARK: - The mix

    /// The stream frame of the next block's first frame.
    public var position: UInt64 { @_noLocks get { driver.mixer.position } }
    /// Frames per second.
    public var rate: Double { @_noLocks get { driver.mixer.configuration.rate } }
    /// What a host's latency report says, frames.
    public let latencyFrames: Int
    /// True when the mixer gave tones back that a control thread should free
    /// (`InstrumentCore.freeRetired`).
    public var hasRetired: Bool { @_noLocks get { driver.mixer.hasRetired } }

    /// The mix bus's gain, linear; it glides over 10 ms.
    @_noLocks public func setMasterGain(_ linear: Float) { driver.mixer.setMasterGain(linear) }
    @_noLocks public func setLimiting(_ on: Bool) { driver.mixer.setLimiting(on) }
    @_noLocks public func setInterpolation(_ interpolation: Interpolation) { driver.mixer.setInterpolation(interpolation) }
    /// Voices at once, 1 … the core's voices.
    @_noLocks public func setVoiceLimit(_ voices: Int) { driver.mixer.setVoiceLimit(voices) }
    /// The default send to bus `bus` (0 reverb, 1 delay, 2 chorus) glides to `level`
    /// (`Mixer.setDefaultSend`).
    @_noLocks public func setDefaultSend(bus: Int, _ level: Float) {
        driver.mixer.setDefaultSend(bus == 0 ? .reverb : bus == 1 ? .delay : .chorus, level.isNaN ? 0 : level)
    }
    /// A host's effect controls: the reverb's decay (s) and width, the delay's time (ms, or
    /// `delayBeats` quarter notes of the tempo clock when above 0) and feedback; NaN keeps
    /// the default. The rest stay at their defaults (`Mixer.setEffects`: each glides or
    /// crossfades).
    @_noLocks public func setEffectControls(reverbDecay: Double, reverbWidth: Double, delayMilliseconds: Double, delayBeats: Double = 0,
                                            delayFeedback: Double) {
        var reverb = ReverbSettings(), delay = DelaySettings()
        if !reverbDecay.isNaN { reverb.decaySeconds = min(max(reverbDecay, 0.2), 20) }
        if !reverbWidth.isNaN { reverb.width = min(max(reverbWidth, 0), 1) }
        if delayBeats > 0 {
            delay.time = .beats(min(delayBeats, 16))
        } else if !delayMilliseconds.isNaN {
            delay.time = .milliseconds(min(max(delayMilliseconds, 1), 4000))
        }
        if !delayFeedback.isNaN { delay.feedback = min(max(delayFeedback, 0), 0.98) }
        driver.mixer.setEffects(reverb: reverb, delay: delay, chorus: ChorusSettings())
    }

    /// The host's transport from stream frame `frame` on: beat `beat` (of `beatUnit`, from
    /// the song's start) at `bpm`, `beatsPerBar` a bar, rolling at `speed` (0 or below:
    /// stopped). Published as a tempo clock (`Mixer.publishTempo`): the arpeggiator's grid
    /// and the delay's note values follow it.
    @_noLocks @discardableResult
    public func publishTransport(atFrame frame: UInt64, beat: Double, bpm: Double, beatsPerBar: Double, beatUnit: Double, speed: Double) -> Bool {
        var c = TempoClock(frame: frame, beat: beat, bpm: bpm, rate: rate, source: .host, beatsPerBar: beatsPerBar, beatUnit: beatUnit,
                           playing: speed > 0)
        c.beatsPerFrame *= max(speed, 0)
        return driver.mixer.publishTempo(c)
    }

    /// The arpeggiator's controls (`ArpSettings`, `Mixer.setArpeggiator`), from the next
    /// block: its pattern (`ArpPattern`'s raw value; 0 off), step 1/`division` (dotted or
    /// triplet), octaves, gate, swing and latch.
    @_noLocks
    public func setArpeggiator(pattern: Int, division: Int, dotted: Bool, triplet: Bool, octaves: Int, gate: Double, swing: Double, latch: Bool) {
        var a = ArpSettings()
        a.pattern = ArpPattern(rawValue: UInt8(truncatingIfNeeded: pattern)) ?? .off
        a.division = division
        a.dotted = dotted
        a.triplet = triplet
        a.octaves = octaves
        a.gate = gate
        a.swing = swing
        a.latch = latch
        driver.mixer.setArpeggiator(a)
    }

    // MARK: - The host's MIDI in

    /// One MIDI event of the host's at stream frame `frame`, through the same interpreter
    /// and gate as `--midi-in`. Returns false when its bytes were not one message (counted
    /// by the caller, never stalling the block).
    @_noLocks
    public func midi(_ bytes: UnsafeRawBufferPointer, atFrame frame: UInt64) -> Bool {
        let gate = self.gate
        let before = interpreter.pointee.strayBytes, panicsBefore = interpreter.pointee.panics
        interpreter.pointee.interpretInRealTime(bytes: bytes) { touch in
            gate.apply(touch, atFrame: frame, prepare: TouchGate.pitched) { _, _ in }
        }
        if interpreter.pointee.panics != panicsBefore {
            // CC 120/123: the panic, here on the render thread: this source's notes ended
            // above; every other voice (the phone pad's) is released at the same frame.
            gate.releaseAll(atFrame: frame) { _, _ in }
            _ = ring.push(EngineEvent(frame: gate.lastFrame, kind: .releaseAll))
            panics.add(at: HostPanic.fromMIDI.rawValue)
        }
        return interpreter.pointee.strayBytes == before
    }

    /// The panic asked by a control thread (`InstrumentCore.panic`): the host's notes end
    /// at the next block's first frame. - Thread: any.
    @_noLocks
    public func requestPanic() { panics.add(at: HostPanic.asked.rawValue) }

    /// CC 120/123 the host's MIDI carried (each a panic done here). - Thread: any.
    public var midiPanics: Int { @_noLocks get { panics.get(at: HostPanic.fromMIDI.rawValue) } }

    /// A panic asked since the last block: the host's notes end now. - Thread: render.
    @_noLocks
    func takePanic() {
        let asked = panics.get(at: HostPanic.asked.rawValue)
        guard asked != panics.get(at: HostPanic.done.rawValue) else { return }
        panics.set(at: HostPanic.done.rawValue, asked)
        releaseAll()
    }

    /// The bend range of channels outside an MPE zone, semitones; held notes bend anew at `frame`.
    @_noLocks
    public func setBendRange(_ semitones: Double, atFrame frame: UInt64) {
        let gate = self.gate
        interpreter.pointee.setDefaultBendRange(semitones) { touch in gate.apply(touch, atFrame: frame, prepare: TouchGate.pitched) { _, _ in } }
    }

    /// The MIDI note ratio 1 stands for; held notes move at `frame`.
    @_noLocks
    public func setToneNote(_ note: Double, atFrame frame: UInt64) {
        let gate = self.gate
        interpreter.pointee.setToneNote(note) { touch in gate.apply(touch, atFrame: frame, prepare: TouchGate.pitched) { _, _ in } }
    }

    /// The MIDI note ratio 1 stands for now.
    public var toneNote: Double { @_noLocks get { interpreter.pointee.toneNote } }

    /// The keys' pitches (a scale's, or 12-TET); held notes move at `frame`.
    @_noLocks
    public func setKeys(_ keys: KeyboardTuning, atFrame frame: UInt64) {
        let gate = self.gate
        interpreter.pointee.setKeys(keys) { touch in gate.apply(touch, atFrame: frame, prepare: TouchGate.pitched) { _, _ in } }
    }

    /// Every note of the host's ends at the next block's first frame (a host's reset).
    /// - Thread: render, or setup while the host renders no block (activate).
    @_noLocks
    public func releaseAll() {
        let gate = self.gate, frame = position
        interpreter.pointee.releaseAllInRealTime { touch in gate.apply(touch, atFrame: frame, prepare: TouchGate.pitched) { _, _ in } }
        gate.releaseAll(atFrame: frame) { _, _ in }
    }

    // MARK: - MIDI out, and the block

    /// The next outgoing packet due before stream frame `end` (taken), nil when none is.
    @_noLocks
    public func nextOutgoing(before end: UInt64) -> MIDIPacket? {
        guard let p = outgoing.peek(), p.frame < end else { return nil }
        outgoing.pop()
        return p
    }

    /// Renders `frames` frames (any count, 0 included) into the host's two buffers. The
    /// stream clock follows the host's block length (a source's touches are stamped one
    /// block ahead); each step publishes the time its first frame is due.
    @_noLocks
    public func render(frames: Int, left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>) {
        takePanic()
        if let clock = driver.clock, frames != clockBlock.pointee, frames > 0 {
            clockBlock.pointee = frames
            clock.setPeriodFrames(frames)
        }
        driver.block(frames: frames, left: left, right: right, scratch: scratch, step: bound)
    }
}

/// `HostRender.panics`' slots.
enum HostPanic: Int, CaseIterable {
    /// Panics asked by control threads, and those the render thread has done.
    case asked, done
    /// CC 120/123 in the host's MIDI.
    case fromMIDI
}
