// SPDX-License-Identifier: GPL-3.0-or-later
import BendEngine
import Foundation

/// A sample as an instrument's region plays it: frames `offset … end` of the file, its
/// loop (the region's, else the file's, else none), at the output rate — the part of a
/// tone file's loading (`ToneLoader`) a region needs, with the region's choices.
///
/// The file is read once however many regions play it (`ToneLoader.FileAudio`, shared by
/// the caller). A slice that loops is converted as `ToneLoader` converts a tone (the loop
/// kept seamless: `ToneRateConverter`); one that plays once is converted with silence
/// around it, so its first and last frames see no wrap-around. The samples are taken as
/// they are (no DC removed: an instrument's samples are its maker's; a one-shot's mean
/// taken out would be a step at its start).
struct RegionSample {
    /// At the output rate, one array per channel (1 or 2; 3 or more are mixed down).
    var channels: [[Float]]
    /// The loop at the output rate (frames of `channels`, end exclusive), nil: none.
    var loop: (start: Int, end: Int, direction: SoundRegion.Direction)?
    /// What was done (mix-down, resampling, the loop's pitch change), for the log.
    var notes: [String]

    /// Silence a slice that plays once is converted with, frames at the file's rate on
    /// each side (libsamplerate's best sinc filter is far shorter).
    static let padding = 8192

    /// - Parameters:
    ///   - offset, end: the slice, source frames (`end` exclusive), inside the file.
    ///   - loop: the region's loop (source frames, end exclusive), or nil for the file's;
    ///   - loops: whether the region loops (its `loop_mode`): nil loop and no loop in the
    ///     file then loops the whole slice.
    /// - Throws: `ToneLoadError` naming `path` (libsamplerate's reason).
    static func make(_ file: ToneLoader.FileAudio, path: String, outputRate: Double, offset: Int, end: Int,
                     loop requested: (start: Int, end: Int)?, loops: Bool) throws -> RegionSample {
        precondition(0 <= offset && offset < end && end <= file.frames)
        func fail(_ reason: String) -> ToneLoadError { ToneLoadError(path: path, reason: reason) }
        var notes: [String] = []
        let count = file.channels
        var sources: [[Float]]
        if count <= 2 {
            sources = (0..<count).map { c in (offset..<end).map { file.interleaved[$0 * count + c] } }
        } else {
            let all = ToneLoader.deinterleave(file.interleaved, channels: count).map { Array($0[offset..<end]) }
            sources = [ToneLoader.mixDown(all, notes: &notes)]
        }
        let frames = end - offset
        // The loop in the slice's frames.
        var loop: (start: Int, end: Int, direction: SoundRegion.Direction)?
        if loops {
            if let (s, e) = requested {
                loop = (min(max(s - offset, 0), frames - 1), min(max(e - offset, 1), frames), .forward)
            } else {
                var ignored: [String] = []
                let own = ToneLoader.sustainLoop(file.instrument, frames: file.frames, notes: &ignored)
                if own.fromFile && own.start >= offset && own.end <= end {
                    loop = (own.start - offset, own.end - offset, RegionMaker.direction(own.mode))
                } else {
                    loop = (0, frames, .forward)
                }
            }
            if let l = loop, l.end <= l.start { loop = (l.start, min(l.start + 1, frames), l.direction) }
        }
        guard Double(file.rate) != outputRate else { return RegionSample(channels: sources, loop: loop, notes: notes) }
        let ratio = outputRate / Double(file.rate)
        if let (s, e, d) = loop {
            let plan = ToneRateConverter.plan(frames: frames, loopStart: s, loopEnd: e, alternating: d == .alternating, ratio: ratio)
            let channels = try sources.map { try ToneRateConverter.convert($0, plan: plan, fail: fail) }
            notes.append("resampled \(file.rate) Hz → \(ToneLoader.formatRate(outputRate)) Hz with the loop kept seamless")
            if abs(plan.pitchErrorCents) > ToneRateConverter.pitchTolerance {
                notes.append("the loop's length at \(ToneLoader.formatRate(outputRate)) Hz is rounded to whole frames: its pitch moves by \(format2(plan.pitchErrorCents)) cents")
            }
            return RegionSample(channels: channels, loop: (plan.attackFrames, plan.attackFrames + plan.loopFrames, d), notes: notes)
        }
        // Once: the slice between silences, converted as one period, the silence cut off.
        let padded = frames + 2 * padding
        let plan = ToneRateConverter.plan(frames: padded, loopStart: 0, loopEnd: padded, alternating: false, ratio: ratio)
        let first = Int((Double(padding) * plan.ratio).rounded()), kept = max(1, Int((Double(frames) * plan.ratio).rounded()))
        let channels = try sources.map { source -> [Float] in
            let silence = [Float](repeating: 0, count: padding)
            let converted = try ToneRateConverter.convert(silence + source + silence, plan: plan, fail: fail)
            return Array(converted[first..<min(first + kept, converted.count)])
        }
        notes.append("resampled \(file.rate) Hz → \(ToneLoader.formatRate(outputRate)) Hz")
        return RegionSample(channels: channels, loop: nil, notes: notes)
    }
}
