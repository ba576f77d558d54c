// SPDX-License-Identifier: GPL-3.0-or-later
import CSampleRate
import Foundation

/// Converts a tone from the file's rate to the output rate (libsamplerate,
/// `SRC_SINC_BEST_QUALITY`) so that its sustain loop stays seamless: the loop is
/// converted as the periodic signal a voice plays (the loop repeated forever), not as
/// the frames of the file, and its length at the output rate is made a whole number of
/// frames.
///
/// The output is three pieces on one grid of output frames, 1/`ratio` source frames
/// apart:
/// - the loop: the periodic signal (forward and backward loops: the loop repeated;
///   alternating: forward then backward), extended on both sides by its own
///   continuation, converted whole, and one period cut from the middle. Its output is
///   exactly periodic, so the seam a voice crosses on every pass is no seam at all.
/// - the attack (frames before the loop): the file's frames before the loop followed by
///   the loop's periodic signal, converted so that an output frame falls exactly on the
///   loop's first frame. It is converted backwards in time (the input reversed: the
///   windowed-sinc filter is symmetric), so the anchor is at the start of the input
///   where a whole number of output frames from it is easy to find.
/// - the tail (frames after the loop): the loop's periodic signal followed by the
///   file's frames after it, anchored on the loop's end.
/// The attack's join into the loop and the loop's into the tail are each crossed once
/// per note, and carry what the filter sees on the far side (a fraction of a frame of
/// the other piece's context): no click beyond the file's own.
///
/// **A loop that is not a whole number of frames at the new rate** (L source frames
/// times the ratio R, e.g. 48 001 frames × 147/160): the choice here is to repeat the
/// loop k times, the smallest k (from 1) for which k·L·R rounded to a whole number M
/// is within 0.01 cent of it, and to convert at the ratio M/(k·L) instead of R: the
/// pitch moves by 1200·log2(k·L·R/M) cents, at most 0.01 (reported when above). The
/// loop becomes k·L·R ≈ M frames, k periods of the file's loop. Why not the others:
/// - a fractional loop end (the engine jumping back by a non-whole number of frames)
///   would need the voices to carry a loop phase and every table to interpolate across
///   the seam — an engine change for what a repetition gives for free;
/// - repeating until k·L·R is exactly whole can take k = 160 (44.1 ↔ 48 kHz) and make
///   a 1 s loop 160 s long; 0.01 cent is far below what anyone hears (1 cent is the
///   smallest pitch step trained ears tell apart), and k stays small: k·L·R ≥ 86 600
///   frames always meets it, so a long loop keeps k = 1 and a short one grows to at
///   most ~2 s at 48 kHz.
/// An alternating loop must turn on a frame at both ends, so only (L − 1)·R must be
/// whole: it is converted at M/(L − 1), M = round((L − 1)·R), with k = 1, and its pitch
/// error (larger for a short loop) reported.
enum ToneRateConverter {
    /// Where the output frames fall, shared by every channel of a tone.
    struct Plan: Equatable {
        /// Output frames per source frame: `numerator` / `denominator` (the output
        /// rate / the file's rate, stretched as the type's doc says).
        var numerator: Int
        var denominator: Int
        var ratio: Double { Double(numerator) / Double(denominator) }
        /// The file's loop repeated this many times in the output's loop (≥ 1).
        var repetitions: Int
        /// Output frames before the loop, in it, and after it.
        var attackFrames: Int
        var loopFrames: Int
        var tailFrames: Int
        /// 1200·log2(R / ratio): what the stretch does to the pitch, cents.
        var pitchErrorCents: Double
        /// The source frames: the file's length and loop.
        var frames: Int
        var loopStart: Int
        var loopEnd: Int
        var alternating: Bool
        var totalFrames: Int { attackFrames + loopFrames + tailFrames }
    }

    /// Largest pitch error a repetition count is chosen to stay within, cents.
    static let pitchTolerance = 0.01

    /// Output loop length up to which the loop is repeated to meet `pitchTolerance`:
    /// 2^17 frames (any length from 86 600 frames meets it with k = 1).
    static let repetitionLimit = 1 << 17

    /// The grid for a file of `frames` frames with the loop `loopStart ..< loopEnd`,
    /// converted by `ratio` (output rate / file's rate).
    static func plan(frames: Int, loopStart: Int, loopEnd: Int, alternating: Bool, ratio: Double) -> Plan {
        precondition(0 <= loopStart && loopStart < loopEnd && loopEnd <= frames)
        let length = loopEnd - loopStart
        let turning = alternating && length >= 2
        // The source span that must be a whole number of output frames.
        let span = turning ? length - 1 : length
        var best: (k: Int, m: Int, cents: Double)?
        var k = 1
        while true {
            let exact = Double(k * span) * ratio
            let m = max(1, Int(exact.rounded()))
            let whole = abs(exact - Double(m)) <= 1e-9 * exact
            let cents = whole ? 0 : 1200 * log2(exact / Double(m))
            if best == nil || abs(cents) < abs(best!.cents) { best = (k, m, cents) }
            if abs(cents) <= pitchTolerance || turning || Double(m) > Double(repetitionLimit) { break }
            k += 1
        }
        let (reps, m, cents) = best!
        let denominator = reps * span
        // Attack: output frames at loopStart − i/ratio for i = 1…ceil(loopStart·ratio)
        // (the first at or before the file's start).
        let attack = (loopStart * m + denominator - 1) / denominator
        // Tail: frames after the loop's end up to the file's end.
        let after = frames - loopEnd
        let tail = turning ? ((after + 1) * m + denominator - 1) / denominator - 1 : (after * m + denominator - 1) / denominator
        return Plan(numerator: m, denominator: denominator, repetitions: reps, attackFrames: attack,
                    loopFrames: turning ? m + 1 : m, tailFrames: max(0, tail), pitchErrorCents: cents,
                    frames: frames, loopStart: loopStart, loopEnd: loopEnd, alternating: turning)
    }

    /// One channel (`x`, `plan.frames` source frames) on the plan's grid:
    /// `plan.totalFrames` frames, all finite.
    static func convert(_ x: [Float], plan: Plan, fail: (String) -> ToneLoadError) throws -> [Float] {
        let (s, e, n) = (plan.loopStart, plan.loopEnd, plan.frames)
        let length = e - s
        let m = plan.numerator, d = plan.denominator
        // The loop's periodic signal at source frame s + t, any t.
        let period = plan.alternating ? 2 * (length - 1) : length
        func periodic(_ t: Int) -> Float {
            var u = t % period
            if u < 0 { u += period }
            return x[s + (u < length ? u : period - u)]
        }
        // Context: more than the sinc filter reaches (SINC_BEST: ~150 input frames at
        // ratio ≥ 1, ~150/ratio below), and a whole number of output frames long (a
        // multiple of d / gcd(m, d)), so an output frame falls on the anchor exactly.
        let step = d / gcd(m, d)
        let reach = max(8192, Int(2048 / min(plan.ratio, 1)))
        let context = (reach + step - 1) / step * step
        let anchor = context / step * (m / gcd(m, d))  // output frame of the anchor

        var out = [Float]()
        out.reserveCapacity(plan.totalFrames)
        if plan.attackFrames > 0 {
            // Reversed: input frame j is source frame s + context − j.
            let count = context + s + reach
            let reversed = try run(count: count, ratio: plan.ratio, from: anchor + 1, frames: plan.attackFrames, fail: fail) { j in
                let t = s + context - j
                return t >= s ? periodic(t - s) : (t >= 0 ? x[t] : 0)
            }
            out.append(contentsOf: reversed.reversed())
        }
        let span = plan.alternating ? length - 1 : plan.repetitions * length
        out += try run(count: 2 * context + span + 1, ratio: plan.ratio, from: anchor, frames: plan.loopFrames, fail: fail) { j in
            periodic(j - context)
        }
        if plan.tailFrames > 0 {
            // Anchored on the loop's end (forward) or its last frame (alternating, whose
            // last output frame is on it).
            let a = plan.alternating ? e - 1 : e
            let count = context + (n - a) + reach
            out += try run(count: count, ratio: plan.ratio, from: anchor + (plan.alternating ? 1 : 0), frames: plan.tailFrames,
                           fail: fail) { j in
                let t = a - context + j
                return t < e ? periodic(t - s) : (t < n ? x[t] : 0)
            }
        }
        return out
    }

    /// Converts the `count` input frames `input(0) …` by `ratio` with libsamplerate and
    /// returns output frames `from ..< from + frames` (all finite).
    static func run(count: Int, ratio: Double, from start: Int, frames: Int, fail: (String) -> ToneLoadError,
                    _ input: (Int) -> Float) throws -> [Float] {
        let extended = [Float](unsafeUninitializedCapacity: count) { buffer, initialized in
            for j in 0..<count { buffer[j] = input(j) }
            initialized = count
        }
        let capacity = Int((Double(count) * ratio).rounded(.up)) + 16
        var output = [Float](repeating: 0, count: capacity)
        var generated = 0
        let status = extended.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                var data = SRC_DATA()
                data.data_in = input.baseAddress
                data.input_frames = input.count
                data.data_out = out.baseAddress
                data.output_frames = out.count
                data.src_ratio = ratio
                data.end_of_input = 1
                let status = src_simple(&data, Int32(SRC_SINC_BEST_QUALITY), 1)
                generated = data.output_frames_gen
                return status
            }
        }
        if status != 0 { throw fail("libsamplerate: " + String(cString: src_strerror(status))) }
        guard generated >= start + frames else {
            throw fail("libsamplerate produced \(generated) frames; expected at least \(start + frames)")
        }
        let result = Array(output[start..<(start + frames)])
        if result.contains(where: { !$0.isFinite }) { throw fail("libsamplerate produced a non-finite sample") }
        return result
    }

    static func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }
}
