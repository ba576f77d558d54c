// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import Glibc

/// The control ports' values as the render thread last applied them, and their way into
/// the engine: at the start of each block (LV2 control ports hold one value per run),
/// each value that changed goes to the mixer (master gain — gliding over 10 ms —, the
/// limiter, the interpolation, the voice limit) or the MIDI interpreter (the bend range of channels
/// outside an MPE zone, the tone's note: held notes move at the block's first frame; with
/// a scale, a new tone note or root has the worker make the keys again).
/// The pad's settings (pitch map, octaves, scale root, rounding) and `web` are read by
/// the web pad's control thread.
struct PluginControls {
    var gainDB: Float = .nan
    var limiter: Float = .nan
    var interpolation: Float = .nan
    var bendRange: Float = .nan
    var toneNote: Float = .nan
    var scaleRoot: Float = .nan
    var voices: Float = .nan
    /// The send effects' ports, in `PluginPort` order from `reverbSend`, then `delaySync`.
    var effects = SIMD8<Float>(repeating: .nan)
    /// The arpeggiator's ports, in `PluginPort` order from `arp` (lanes 6 and 7 unused).
    var arp = SIMD8<Float>(repeating: .nan)
    /// The web pad: on (> 0.5), and the pad settings it was served with.
    var web: Float = 0
    var pad: (Float, Float, Float, Float, Float, Float) = (.nan, .nan, .nan, .nan, .nan, .nan)
}

extension PluginRender {
    /// Applies the control ports that changed since the last block, at stream frame
    /// `frame` (the block's first).
    /// - Thread: render.
    @_noLocks
    func applyControls(atFrame frame: UInt64) {
        let gainDB = control(PluginPort.gain, default: Float(SoundDefaults.gainDB))
        if gainDB != state.pointee.controls.gainDB {
            state.pointee.controls.gainDB = gainDB
            // dB → linear (pow: libm, no lock); −60 dB and below: silence.
            let linear: Float = gainDB <= -60 ? 0 : _unsafePerformance { powf(10, min(gainDB, 24) / 20) }
            host.setMasterGain(linear)
        }
        let limiter = control(PluginPort.limiter, default: 1)
        if limiter != state.pointee.controls.limiter {
            state.pointee.controls.limiter = limiter
            host.setLimiting(limiter > 0.5)
        }
        let interpolation = control(PluginPort.interpolation, default: 0)
        if interpolation != state.pointee.controls.interpolation {
            state.pointee.controls.interpolation = interpolation
            host.setInterpolation(interpolation >= 1.5 ? .linear : interpolation >= 0.5 ? .cubic : .bandLimited)
        }
        let voices = control(PluginPort.voices, default: 64)
        if voices != state.pointee.controls.voices {
            state.pointee.controls.voices = voices
            host.setVoiceLimit(voices.isNaN ? 64 : Int(min(max(voices, 1), Float(PluginPort.maximumVoices)) + 0.5))  // ≥ 1: rounds to nearest
        }
        let bendRange = control(PluginPort.bendRange, default: 2)
        if bendRange != state.pointee.controls.bendRange {
            state.pointee.controls.bendRange = bendRange
            host.setBendRange(Double(bendRange), atFrame: frame)
        }
        let toneNote = control(PluginPort.toneNote, default: 69)
        let scaleRoot = control(PluginPort.scaleRoot, default: 0)
        let retune = toneNote != state.pointee.controls.toneNote || scaleRoot != state.pointee.controls.scaleRoot
        if toneNote != state.pointee.controls.toneNote {
            state.pointee.controls.toneNote = toneNote
            host.setToneNote(Double(toneNote), atFrame: frame)
        }
        state.pointee.controls.scaleRoot = scaleRoot
        // A scale's keys hang on its root (the tone's pitch when 0): the worker makes
        // them again.
        if retune && state.pointee.scalePathCount > 0 {
            askWorker(WorkMessage.retune, path: UnsafeRawBufferPointer(start: nil, count: 0))
        }
        applyEffects()
        applyArpeggiator()
        applyWeb()
    }

    /// The arpeggiator's ports (`HostRender.setArpeggiator`; the `arp` port's values are
    /// `ArpPattern`'s raw values).
    /// - Thread: render.
    @_noLocks
    func applyArpeggiator() {
        var now = SIMD8<Float>()
        var i = 0
        while i < 6 { now[i] = control(PluginPort.arp + i, default: PluginRender.arpDefaults[i]); i += 1 }
        guard any(now .!= state.pointee.controls.arp) else { return }
        state.pointee.controls.arp = now
        let pattern = now[0].isNaN ? 0 : Int(min(max(now[0], 0), 5) + 0.5)
        let rate = PluginPort.arpRate(now[1].isNaN ? 4 : Int(min(max(now[1], 0), 6) + 0.5))
        host.setArpeggiator(pattern: pattern, division: rate.division, dotted: rate.dotted, triplet: rate.triplet,
                            octaves: now[2].isNaN ? 1 : Int(min(max(now[2], 1), 4) + 0.5),
                            gate: now[3].isNaN ? 0.5 : Double(min(max(now[3], 0.05), 1)),
                            swing: now[4].isNaN ? 0 : Double(min(max(now[4], 0), 1)), latch: now[5] > 0.5)
    }

    /// The arpeggiator's port defaults (bendsynth.ttl's), in port order from `arp`.
    static var arpDefaults: SIMD8<Float> { @_noLocks @inline(__always) get { SIMD8(0, 4, 1, 0.5, 0, 0, 0, 0) } }

    /// The send effects' ports: the default sends glide, the reverb and delay settings
    /// glide or crossfade (`HostRender.setEffectControls`; the delay's time a note value of
    /// the tempo while `delay_sync` is on).
    /// - Thread: render.
    @_noLocks
    func applyEffects() {
        var now = SIMD8<Float>()
        var i = 0
        while i < 7 { now[i] = control(PluginPort.reverbSend + i, default: PluginRender.effectDefaults[i]); i += 1 }
        now[7] = control(PluginPort.delaySync, default: 0)
        let was = state.pointee.controls.effects
        guard any(now .!= was) else { return }
        state.pointee.controls.effects = now
        if now[0] != was[0] { host.setDefaultSend(bus: 0, now[0]) }
        if now[3] != was[3] { host.setDefaultSend(bus: 1, now[3]) }
        if now[6] != was[6] { host.setDefaultSend(bus: 2, now[6]) }
        let sync = now[7]
        host.setEffectControls(reverbDecay: Double(now[1]), reverbWidth: Double(now[2]), delayMilliseconds: Double(now[4]),
                               delayBeats: PluginPort.delayNoteBeats(sync.isNaN ? 0 : Int(min(max(sync, 0), 7) + 0.5)),
                               delayFeedback: Double(now[5]))
    }

    /// The effect ports' defaults (bendsynth.ttl's), in port order from `reverbSend`, then
    /// `delaySync`'s.
    static var effectDefaults: SIMD8<Float> { @_noLocks @inline(__always) get { SIMD8(0, 2.2, 1, 0, 375, 0.35, 0, 0) } }
}

extension PluginRender {
    /// The web pad: turned on or off, or (while on) its settings changed: the worker
    /// serves it again with them.
    /// - Thread: render.
    @_noLocks
    func applyWeb() {
        let web = control(PluginPort.web, default: 0)
        let pad = (control(PluginPort.toneNote, default: 69), control(PluginPort.scaleRoot, default: 0), control(PluginPort.pitchMap, default: 0),
                   control(PluginPort.octaves, default: 2), control(PluginPort.round, default: Float(WebPadSettings.round(of: SoundDefaults.padRounding))), control(PluginPort.roundRate, default: 80))
        let on = web > 0.5, wasOn = state.pointee.controls.web > 0.5
        let old = state.pointee.controls.pad
        let padChanged = pad.0 != old.0 || pad.1 != old.1 || pad.2 != old.2 || pad.3 != old.3 || pad.4 != old.4 || pad.5 != old.5
        state.pointee.controls.web = web
        if on && (!wasOn || padChanged) {
            state.pointee.controls.pad = pad
            askWorker(WorkMessage.webStart, path: UnsafeRawBufferPointer(start: nil, count: 0))
        } else if !on && wasOn {
            askWorker(WorkMessage.webStop, path: UnsafeRawBufferPointer(start: nil, count: 0))
        }
    }
}
