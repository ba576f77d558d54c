// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendSystem
import BendEngine
import Foundation
import Synchronization
import Glibc

/// What an offline render produced.
public struct RenderSummary: Sendable, Equatable {
    /// Stereo frames rendered.
    public var frames: Int
    /// Duration, seconds (frames / rate).
    public var seconds: Double
    /// Largest absolute sample of either channel, linear (1 = full scale).
    public var peak: Float
}

/// Renders a touch script through the real engine (an offline `Instrument`: `Mixer` +
/// `ControlPort`) and the render driver's period step, period by period and faster
/// than real time, to a file or a buffer (the offline sink).
///
/// Each entry's time becomes the stream frame `round(time · rate)` (`rate` = the tone's
/// rate); events are sent before the period they fall in and applied at their frame.
/// At most one ring's worth (4096) is sent per period, so the ring never overflows; a
/// script with more events in one period (never a real one) has the rest applied at the
/// next period's first frame.
///
/// The sound ends after the first period that leaves no voice sounding once every
/// event is applied (the last release fade done, so within one period plus the release
/// time of the last `up`), at most 1 s (or 1.1 × the release time, when longer) after
/// the last event (a touch never lifted).
/// The output lasts until the sound's end or the script's end (`TouchScript.end`: a MIDI
/// file's last end of track, a script's `end` line), whichever is later; one that runs
/// to the script's end stops on its frame, `round(end · rate)` (the last period cut
/// short). It is at least one period long.
public enum OfflineRenderer {
    /// Longest render after the last event, seconds.
    public static let tailLimitSeconds = 1.0

    /// Renders `script` to a stereo 32-bit float WAV at the tone's rate.
    ///
    /// Written to a temporary file in `path`'s directory (`.NAME.PID.RANDOM.tmp`), then
    /// renamed over `path`: `path` is never left half-written, and on any error the
    /// temporary file is removed and `path` is untouched.
    /// - Parameters:
    ///   - script: the touches, times in seconds.
    ///   - tone: the loop every voice plays; its rate is the output rate.
    ///   - voices: polyphony (≥ 1).
    ///   - pitchMap: x → pitch ratio.
    ///   - rounding: pad touches rounded onto a tuning's steps (nil: not); `hold`
    ///     rounding is ticked every millisecond of the stream.
    ///   - periodFrames: frames per render call (≥ 1), as the live engine would use.
    ///   - path: the WAV to write.
    /// - Throws: `WAVFileError` naming `path`: "sf_open" (e.g. the directory is missing),
    ///   "sf_writef_float", "sf_close" with libsndfile's text, "rename" with `strerror`.
    /// - Thread: any non-real-time thread (it makes and owns its own engine).
    ///   - format: container and encoding (default float32 WAV); `path` "-" writes it to
    ///     standard output (no temporary file).
    ///   - progress: called about every `progressInterval` seconds and once at the end
    ///     (on this thread) with the frames written and the script's length in frames.
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
                              progress: ((RenderProgress) -> Void)? = nil) throws -> RenderSummary {
        let tone = sound[0].held
        let rate = Int(tone.rate.rounded())
        var meter = RenderProgress.Meter(scriptFrames: Int((script.duration * tone.rate).rounded()), rate: tone.rate, report: progress)
        if path == "-" {
            // libsndfile writes no WAV to a pipe (its header is finished by seeking back):
            // render to a temporary file, then copy it to standard output.
            let dir = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
            let file = dir + "/.bendsynth-render.\(getpid()).\(UInt32.random(in: 0...UInt32.max)).wav"
            defer { unlink(file) }
            let summary = try render(script: script, sound: sound, voices: voices, pitchMap: pitchMap, rounding: rounding,
                                     periodFrames: periodFrames, configure: configure, to: file, format: format, progress: progress)
            try copyToStandardOutput(file)
            return summary
        }
        let target = try OfflineRenderer.outputTarget(path)
        let url = URL(fileURLWithPath: target)
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp").path
        let writer = try FloatWAVWriter(path: temporary, displayPath: path, rate: rate, channels: 2, rf64: true, format: format)
        OfflineRenderer.temporaryPath.withLock { $0 = temporary }
        defer { OfflineRenderer.temporaryPath.withLock { $0 = nil } }
        do {
            let (frames, peak) = try renderPeriods(script: script, sound: sound, voices: voices, pitchMap: pitchMap,
                                                   rounding: rounding, periodFrames: periodFrames, configure: configure) { period in
                try writer.write(period.baseAddress!, frames: period.count / 2)
                meter.advance(period.count / 2)
            }
            try writer.close()
            meter.finish()
            if rename(temporary, target) != 0 {
                let code = errno
                throw WAVFileError(path: path, call: "rename", reason: String(cString: strerror(code)))
            }
            return RenderSummary(frames: frames, seconds: Double(frames) / tone.rate, peak: peak)
        } catch {
            try? writer.close()
            unlink(temporary)
            throw error
        }
    }

    /// Copies `file` to descriptor 1 (EINTR retried, short writes continued).
    static func copyToStandardOutput(_ file: String) throws {
        let fd = open(file, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw WAVFileError(path: "standard output", call: "open", reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw WAVFileError(path: "standard output", call: "read", reason: String(cString: strerror(errno))) }
            if n == 0 { return }
            var done = 0
            while done < n {
                let w = buffer.withUnsafeBytes { write(1, $0.baseAddress! + done, n - done) }
                if w < 0 && errno == EINTR { continue }
                guard w > 0 else { throw WAVFileError(path: "standard output", call: "write", reason: String(cString: strerror(errno))) }
                done += w
            }
        }
    }

    /// The temporary file of the render in progress, for `removeTemporaryFile()`.
    static let temporaryPath = Mutex<String?>(nil)

    /// Removes the half-written temporary file of the render in progress, if any (for a
    /// SIGINT/SIGTERM handler: `path` itself is untouched until the final rename).
    /// - Thread: any.
    public static func removeTemporaryFile() {
        temporaryPath.withLock { path in
            if let p = path { unlink(p) }
            path = nil
        }
    }

    /// Where the WAV really goes: `path`, or the file a symbolic link at `path` points to.
    /// - Throws: `WAVFileError` when `path` exists and is not a regular file (a directory,
    ///   a device such as /dev/null): the render would replace it.
    static func outputTarget(_ path: String) throws -> String {
        var target = path
        var info = stat()
        // Follow links (also one whose file does not exist yet), at most 16 deep.
        for _ in 0..<16 {
            guard lstat(target, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK,
                  let destination = try? FileManager.default.destinationOfSymbolicLink(atPath: target) else { break }
            target = destination.hasPrefix("/") ? destination
                : URL(fileURLWithPath: target).deletingLastPathComponent().appendingPathComponent(destination).path
        }
        if stat(target, &info) == 0 && (info.st_mode & S_IFMT) != S_IFREG {
            throw WAVFileError(path: path, call: "stat", reason: "exists and is not a regular file; expected a WAV file path")
        }
        return target
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

    /// The offline sink: runs the render driver's period step as fast as it goes and
    /// hands each rendered period (interleaved stereo) to `sink` (the WAV file, or a
    /// buffer). Events are sent before the period they fall in.
    /// - Returns: frames rendered and the peak sample.
    @discardableResult
    static func renderPeriods(script: TouchScript, sound: Sound, voices: Int, pitchMap: PitchMap,
                              rounding: PitchRounding? = nil,
                              periodFrames: Int, configure: (inout MixerConfiguration) -> Void = { _ in },
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
        let port = instrument.addPort(pitchMap: pitchMap, rounding: rounding)
        // `hold` rounding moves resting touches between events: a tick each millisecond.
        let tickFrames = UInt64(max(1, (tone.rate / 1000).rounded()))
        var nextTick: UInt64 = 0
        let driver = instrument.driver()
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 2 * periodFrames)
        defer { buffer.deallocate() }

        let entries = script.entries
        let eventFrames = entries.map { UInt64(max(0, ($0.time * tone.rate).rounded())) }
        let lastEvent = eventFrames.last ?? 0
        // (A region's own release, or a tail after its sustain loop, may be longer than the
        // mixer's: the mixer's longest is the longer.)
        let limit = lastEvent + UInt64((max(tailLimitSeconds, 1.1 * mixer.longestReleaseSeconds) * tone.rate).rounded())
        // The script's own end (a MIDI file's end of track): the output runs at least to it.
        let endFrame = UInt64(max(0, (script.duration * tone.rate).rounded()))
        let perPeriod = configuration.eventsPerSource
        var next = 0
        var position: UInt64 = 0
        var peak: Float = 0
        // Periods still to render once the voices are silent: the limiter's look-ahead
        // holds the mix's last frames.
        var flush = (mixer.latencyFrames + periodFrames - 1) / periodFrames
        // The sound has ended (the rule above); what follows is silence up to `endFrame`.
        var soundDone = false
        while true {
            let end = position + UInt64(periodFrames)
            // The ring is empty here: everything sent before was due in an earlier period.
            var sent = 0
            while next < entries.count && eventFrames[next] < end && sent < perPeriod {
                while port.needsTicks && nextTick < eventFrames[next] {
                    port.tick(atFrame: nextTick)
                    nextTick += tickFrames
                }
                port.send(entries[next].event, atFrame: eventFrames[next])
                next += 1
                sent += 1
            }
            while port.needsTicks && nextTick < end {
                port.tick(atFrame: nextTick)
                nextTick += tickFrames
            }
            _ = driver.period(frames: periodFrames, into: .float(buffer))
            peak = max(peak, mixer.peak)
            // Silence after the sound's end stops on the script's end frame.
            let frames = soundDone ? Int(min(UInt64(periodFrames), endFrame - position)) : periodFrames
            try sink(UnsafeBufferPointer(start: buffer, count: 2 * frames))
            position += UInt64(frames)
            if !soundDone && next == entries.count && mixer.activeVoices == 0 {
                if flush == 0 { soundDone = true } else { flush -= 1 }
            }
            if next == entries.count && position >= limit { soundDone = true }
            if soundDone && position >= endFrame { break }
        }
        return (Int(position), peak)
    }
}
