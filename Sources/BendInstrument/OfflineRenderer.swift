// SPDX-License-Identifier: GPL-3.0-or-later
import BendAudio
import BendControl
import BendEngine
import BendSystem
import Foundation

/// `render`'s shell: a touch script played through the real engine (an offline
/// `Instrument`: `Mixer` + `ControlPort`) by the one `ScriptPlayer` and the render
/// driver's period step, period by period and faster than real time, to a file
/// (BendAudio's `RenderFile`) or a buffer.
///
/// Each entry's time becomes the stream frame `round(time · rate)` (`rate` = the tone's
/// rate); events are queued before the period they fall in and applied at their frame.
/// At most what the ring has room for (above its reserve for ups) is queued per period,
/// so the ring never overflows; a script with more events in one period (never a real
/// one) has the rest applied at the next period's first frame.
///
/// The sound ends after the first period that leaves no voice sounding once every
/// event is applied (the last release fade done, so within one period plus the release
/// time of the last `up`), at most 1 s (or 1.1 × the release time, when longer) after
/// the last event (a touch never lifted). With the send effects sounding (a reverb's or a
/// delay's tail, `Mixer.effectsTail`), it ends only once their tail is below −90 dBFS too,
/// at most `effectsTailLimitSeconds` after the last event (`note` says when that cut it).
/// The output lasts until the sound's end or the script's end (`TouchScript.end`: a MIDI
/// file's last end of track, a script's `end` line), whichever is later; one that runs
/// to the script's end stops on its frame, `round(end · rate)` (the last period cut
/// short). It is at least one period long.
public enum OfflineRenderer {
    /// Longest render after the last event, seconds.
    public static let tailLimitSeconds = 1.0
    /// Longest render after the last event while the effects' tail still sounds, seconds.
    public static let effectsTailLimitSeconds = 30.0
    /// The effects' tail counts as ended below this level: −90 dBFS.
    static let effectsTailFloor: Float = 3.162_277_7e-5

    /// Renders `script` to a stereo sound file at the tone's rate (`RenderFile.write`:
    /// a temporary file renamed over `path`; "-": WAV on standard output).
    /// - Parameters:
    ///   - script: the touches, times in seconds.
    ///   - tone: the loop every voice plays; its rate is the output rate.
    ///   - voices: polyphony (≥ 1).
    ///   - pitchMap: x → pitch ratio.
    ///   - rounding: pad touches rounded onto a tuning's steps (nil: not); `hold`
    ///     rounding is ticked every millisecond of the stream.
    ///   - periodFrames: frames per render call (≥ 1), as the live engine would use.
    ///   - path: the file to write.
    ///   - format: container and encoding (default float32 WAV).
    ///   - progress: called about every 0.1 s and once at the end (on this thread) with
    ///     the frames written and the script's length in frames.
    /// - Throws: `WAVFileError` naming `path` (see `RenderFile.write`).
    /// - Thread: any non-real-time thread (it makes and owns its own engine).
    @discardableResult
    public static func render(script: TouchScript, tone: ToneTable, voices: Int, pitchMap: PitchMap, rounding: PitchRounding? = nil,
                              periodFrames: Int = 256, configure: (inout MixerConfiguration) -> Void = { _ in },
                              to path: String, format: SoundFileFormat = .wavFloat,
                              progress: ((RenderProgress) -> Void)? = nil) throws -> RenderSummary {
        try render(script: script, region: SoundRegion(looping: tone), voices: voices, pitchMap: pitchMap, rounding: rounding,
                   periodFrames: periodFrames, configure: configure, to: path, format: format, progress: progress)
    }

    /// `render(script:tone:…)` of a sound region (a tone with its loop points, stereo).
    @discardableResult
    public static func render(script: TouchScript, region: SoundRegion, voices: Int, pitchMap: PitchMap, rounding: PitchRounding? = nil,
                              periodFrames: Int = 256, configure: (inout MixerConfiguration) -> Void = { _ in },
                              to path: String, format: SoundFileFormat = .wavFloat,
                              progress: ((RenderProgress) -> Void)? = nil) throws -> RenderSummary {
        let sound = Sound(region: region)
        defer { sound.deallocate() }
        return try render(script: script, sound: sound, voices: voices, pitchMap: pitchMap, rounding: rounding, periodFrames: periodFrames,
                          configure: configure, to: path, format: format, progress: progress)
    }

    /// `render(script:tone:…)` of a sound (a tone's region, or an instrument's regions).
    @discardableResult
    public static func render(script: TouchScript, sound: Sound, voices: Int, pitchMap: PitchMap, rounding: PitchRounding? = nil,
                              periodFrames: Int = 256, configure: (inout MixerConfiguration) -> Void = { _ in },
                              to path: String, format: SoundFileFormat = .wavFloat,
                              progress: ((RenderProgress) -> Void)? = nil, note: (String) -> Void = { _ in }) throws -> RenderSummary {
        let rate = sound[0].held.rate
        return try RenderFile.write(to: path, rate: rate, format: format, scriptFrames: Int((script.duration * rate).rounded()),
                                    progress: progress) { sink in
            try renderPeriods(script: script, sound: sound, voices: voices, pitchMap: pitchMap, rounding: rounding,
                              periodFrames: periodFrames, configure: configure, note: note, sink)
        }
    }

    /// Renders `script` as `render(…, to:)` does, into memory.
    /// - Returns: interleaved stereo float samples (left, right, …), 2 per frame.
    /// - Thread: any non-real-time thread.
    public static func renderToBuffer(script: TouchScript, tone: ToneTable, voices: Int, pitchMap: PitchMap,
                                      rounding: PitchRounding? = nil, periodFrames: Int = 256,
                                      configure: (inout MixerConfiguration) -> Void = { _ in }) -> [Float] {
        renderToBuffer(script: script, region: SoundRegion(looping: tone), voices: voices, pitchMap: pitchMap, rounding: rounding,
                       periodFrames: periodFrames, configure: configure)
    }

    /// `renderToBuffer(script:tone:…)` of a sound region.
    public static func renderToBuffer(script: TouchScript, region: SoundRegion, voices: Int, pitchMap: PitchMap,
                                      rounding: PitchRounding? = nil, periodFrames: Int = 256,
                                      configure: (inout MixerConfiguration) -> Void = { _ in }) -> [Float] {
        let sound = Sound(region: region)
        defer { sound.deallocate() }
        return renderToBuffer(script: script, sound: sound, voices: voices, pitchMap: pitchMap, rounding: rounding,
                              periodFrames: periodFrames, configure: configure)
    }

    /// `renderToBuffer(script:tone:…)` of a sound (a tone's region, or an instrument's).
    public static func renderToBuffer(script: TouchScript, sound: Sound, voices: Int, pitchMap: PitchMap,
                                      rounding: PitchRounding? = nil, periodFrames: Int = 256,
                                      configure: (inout MixerConfiguration) -> Void = { _ in }) -> [Float] {
        var out: [Float] = []
        renderPeriods(script: script, sound: sound, voices: voices, pitchMap: pitchMap, rounding: rounding,
                      periodFrames: periodFrames, configure: configure) { out.append(contentsOf: $0) }
        return out
    }

    /// The offline assembly and its loop: the render driver's period step as fast as it
    /// goes, each period's events queued by the script's `ScriptPlayer` before it, each
    /// rendered period (interleaved stereo) handed to `sink` (the file, or a buffer).
    /// - Returns: frames rendered and the peak sample.
    @discardableResult
    static func renderPeriods(script: TouchScript, sound: Sound, voices: Int, pitchMap: PitchMap,
                              rounding: PitchRounding? = nil,
                              periodFrames: Int, configure: (inout MixerConfiguration) -> Void = { _ in }, note: (String) -> Void = { _ in },
                              _ sink: (UnsafeBufferPointer<Float>) throws -> Void) rethrows -> (frames: Int, peak: Float) {
        precondition(voices >= 1 && periodFrames >= 1)
        let tone = sound[0].held
        // Denormals flushed as on the live render thread, so both paths render alike.
        let savedFloatEnvironment = FloatEnvironment.flushDenormals()
        defer { FloatEnvironment.restore(savedFloatEnvironment) }
        var configuration = MixerConfiguration(rate: tone.rate, maxPeriodFrames: periodFrames, voices: voices)
        configure(&configuration)
        let instrument = Instrument(configuration: configuration, sound: sound, live: false)
        defer { instrument.deallocate() }
        let mixer = instrument.mixer
        let player = ScriptPlayer(script: script, target: instrument.addPort(pitchMap: pitchMap, rounding: rounding), rate: tone.rate)
        player.start(atFrame: 0)
        let driver = instrument.driver()
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 2 * periodFrames)
        defer { buffer.deallocate() }

        let lastEvent = script.entries.isEmpty ? 0 : player.frame(ofEntry: script.entries.count - 1)
        // (A region's own release, or a tail after its sustain loop, may be longer than the
        // mixer's: the mixer's longest is the longer.)
        let limit = lastEvent + UInt64((max(tailLimitSeconds, 1.1 * mixer.longestReleaseSeconds) * tone.rate).rounded())
        let effectsLimit = lastEvent + UInt64((max(effectsTailLimitSeconds, 1.1 * mixer.longestReleaseSeconds) * tone.rate).rounded())
        // The script's own end (a MIDI file's end of track): the output runs at least to it.
        let endFrame = player.endFrame
        var position: UInt64 = 0
        var peak: Float = 0
        let tempoChanges = script.tempo?.clocks(rate: tone.rate) ?? []
        var nextTempo = 0
        // Periods still to render once the voices are silent: the limiter's look-ahead
        // holds the mix's last frames.
        var flush = (mixer.latencyFrames + periodFrames - 1) / periodFrames
        // The sound has ended (the rule above); what follows is silence up to `endFrame`.
        var soundDone = false
        while true {
            // The ring is empty here: everything queued before was due in an earlier period.
            player.queue(before: position + UInt64(periodFrames), tickingToEnd: true)
            // A MIDI file's tempo map leads the clock (`TempoSource.midiFile`): each change
            // is published before the period it falls in, and taken at its frame.
            while nextTempo < tempoChanges.count && tempoChanges[nextTempo].frame < position + UInt64(periodFrames) {
                mixer.publishTempo(tempoChanges[nextTempo])
                nextTempo += 1
            }
            _ = driver.period(frames: periodFrames, into: .float(buffer))
            peak = max(peak, mixer.peak)
            // Silence after the sound's end stops on the script's end frame.
            let frames = soundDone ? Int(min(UInt64(periodFrames), endFrame - position)) : periodFrames
            try sink(UnsafeBufferPointer(start: buffer, count: 2 * frames))
            position += UInt64(frames)
            let ringing = mixer.effectsTail >= effectsTailFloor
            if !soundDone && player.isQueued && mixer.activeVoices == 0 && !ringing {
                if flush == 0 { soundDone = true } else { flush -= 1 }
            }
            if !soundDone && player.isQueued && position >= (ringing && mixer.activeVoices == 0 ? effectsLimit : limit) {
                soundDone = true
                if ringing && mixer.activeVoices == 0 {
                    note("the effects' tail was still at \(String(format: "%.1f", 20 * log10(Double(mixer.effectsTail)))) dBFS when the render stopped, \(Int(effectsTailLimitSeconds)) s after the last event")
                }
            }
            if soundDone && position >= endFrame { break }
        }
        return (Int(position), peak)
    }
}
