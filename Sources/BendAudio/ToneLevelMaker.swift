// SPDX-License-Identifier: GPL-3.0-or-later
import BendEngine
import CFFTW
import Foundation
import Synchronization

/// Makes a tone's band-limited levels (`ToneLevels`) by FFT (FFTW), once, at load:
/// never on the render thread.
///
/// The tone loops, so it is periodic: its n-point discrete Fourier transform holds it
/// exactly, as n/2 + 1 harmonics of the loop. Level k keeps the harmonics j that stay
/// below the output's Nyquist frequency at ratio R_k = 2^(k/3) — j·R_k < n/2 — and is
/// their sum, a function known exactly between the tone's frames. The engine reads it
/// as cubic pieces, `ToneLevels.oversampling` (4) per tone frame, each the cubic nearest
/// to the level over its interval in the least-squares sense (`LevelFit`): four inverse
/// transforms of those bins, zero-padded to 4n points, give each piece's Legendre
/// coefficients. Nothing is lost below the cut-off (no transition band: a harmonic is
/// kept whole or dropped), nothing is left above it, and every level is time-aligned
/// with the tone, so a crossfade between two levels never combs. Level 0 keeps every
/// harmonic, the tone's Nyquist bin (n even) split evenly between ±n/2 as the cosine it
/// is.
///
/// Levels run from ratio 1 up to `EngineLimits.maximumRatio` (8: the top of the MIDI
/// pitch range; 10 levels, a third of an octave apart), so no ratio the engine plays
/// aliases.
///
/// Crossfade zones: a voice at ratio r reading level k + 1 keeps every output harmonic
/// below the output's Nyquist frequency × r / R_{k+1}; in the zone (r ≥ 0.98·R_k) that is
/// ≥ 0.98 / 2^(1/3) = 0.78 of it, 18.7 kHz at 48 kHz: above `passband` (18 kHz), so
/// harmonics below 18 kHz keep their level at every ratio. The zone from level k to
/// k + 1 is the 2 % of ratios below R_k.
///
/// Memory: the levels take `bytesPerFrame` (320) bytes a tone frame as the engine holds
/// them (10 levels × 4 pieces × 8 bytes). They are made one level at a time, each
/// straight into its 16-bit steps (`ToneLevels(steps:…)`), so the Float rows of all
/// levels (640 bytes a frame) never exist at once: what is held while making is the
/// steps so far, one level's Float rows (64 bytes a frame) and the transforms' buffers
/// (in place: 40 bytes a frame), at most 1.5× the tables; `ToneTable.install` frees
/// each level's steps as it copies them. The one scale of the steps: each level is
/// quantized in its own steps as it is made (its largest coefficient / 32 767), and
/// the levels whose steps are finer than the largest's are rounded again onto that
/// one's at the end — a coefficient then lies within one step of its value instead of
/// half a step (−90 dB below the tone's largest coefficient instead of −96; the levels
/// of most tones share the largest step, and none is rounded twice).
///
/// (libsamplerate, which made these levels before, keeps only 94 % of its lower rate's
/// Nyquist band flat: it lost the tone's top 6 %, which ratios below 0.75 bring under
/// 18 kHz. The tone loader still uses it to convert a file's sample rate.)
public enum ToneLevelMaker {
    /// Output harmonics kept within ±0.5 dB, as a fraction of the output's Nyquist
    /// frequency: 0.75 (18 kHz at 48 kHz).
    public static let passband = 0.75
    /// Ratio between the cut-offs of adjacent levels: 2^(1/3), the widest step whose
    /// next level still keeps `passband` in the crossfade zone (0.98 / 2^(1/3) = 0.78 >
    /// 0.75; 2^(1/4), as with libsamplerate's filters, took 13 levels to reach ratio 8).
    static let levelStep = 1.259_921_049_894_873
    /// Width of a crossfade zone, as a fraction of its upper end: 2 % (a voice in a zone
    /// reads two levels: narrow zones keep that rare).
    static let zoneWidth = 0.02

    /// Bytes a tone frame's levels take in the engine: 10 levels × 4 pieces × 8 bytes.
    public static let bytesPerFrame = 320

    /// The longest tone (frames at the output rate) levels are made for: 1 536 000,
    /// 32 s at 48 kHz (16 s at 96 kHz). Its levels take 492 MB; the loader takes tones
    /// up to 2^24 samples, whose levels would take 5 GB.
    public static let maximumFrames = 1_536_000

    /// FFTW's planner is not thread-safe (only `fftw_execute` is): plans are made and
    /// destroyed under this lock. Levels are made at load, never on the render thread.
    private static let planner = Mutex(())

    /// Memory the levels of a tone of `frames` frames take, bytes (about).
    public static func tableBytes(frames: Int) -> Int { bytesPerFrame * frames }

    /// Why a tone of `frames` frames (at the output rate) gets no levels, or nil when it
    /// does: longer than `maximumFrames`, or its levels and their making would not fit
    /// in the memory the system has available (`MemAvailable`, /proc/meminfo).
    public static func refusal(frames: Int) -> String? {
        let megabytes = (tableBytes(frames: frames) + 500_000) / 1_000_000
        if frames > maximumFrames {
            return "\(frames) frames at the output rate: band-limited tables are made for tones of at most \(maximumFrames) frames "
                + "(32 s at 48 kHz; \(bytesPerFrame) bytes a frame: this one's would take \(megabytes) MB)"
        }
        if let available = availableMemory(), 2 * tableBytes(frames: frames) > available {
            return "band-limited tables for \(frames) frames would take \(megabytes) MB, and twice that while they are made; "
                + "\(available / 1_000_000) MB of memory is available"
        }
        return nil
    }

    /// MemAvailable from /proc/meminfo, bytes; nil when unreadable.
    static func availableMemory() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("MemAvailable:") }),
              let kB = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") else { return nil }
        return kB * 1024
    }

    /// The tone's levels. `samples`: one loop at the output rate, at least 1 frame.
    /// - Throws: `ToneLoadError` (with `path`) when the tone is refused (`refusal`) or
    ///   FFTW cannot plan the transforms.
    public static func make(_ samples: [Float], path: String) throws -> ToneLevels {
        let n = samples.count
        if let reason = refusal(frames: n) {
            throw ToneLoadError(path: path, reason: reason + "; use --interp cubic, or a shorter tone")
        }
        let oversampling = ToneLevels.oversampling
        let size = oversampling * n
        // 2^(k/3): exact at the octaves (a harmonic at exactly the output's Nyquist
        // frequency at ratio 2, 4 or 8 is dropped, not kept by a rounding).
        let thirds: [Double] = [1, levelStep, 2 / levelStep]
        var ratios: [Double] = []
        for k in 0...9 {
            let ratio: Double = Double(1 << (k / 3)) * thirds[k % 3]
            if ratio <= Double(EngineLimits.maximumRatio) { ratios.append(ratio) }
        }
        // The loop's spectrum: bins 0…n/2 (FFTW's r2c, in place), unnormalized; the
        // inverse transforms in place too (their real output over their complex input).
        let bins = n / 2 + 1, paddedBins = size / 2 + 1
        let spectrum = fftw_alloc_complex(bins)!, padded = fftw_alloc_complex(paddedBins)!
        defer { fftw_free(spectrum); fftw_free(padded) }
        let input = UnsafeMutableRawPointer(spectrum).assumingMemoryBound(to: Double.self)
        let output = UnsafeMutableRawPointer(padded).assumingMemoryBound(to: Double.self)
        for i in 0..<n { input[i] = Double(samples[i]) }
        // The plans are this call's alone (made, executed and destroyed here); only the
        // planner's global state needs the lock. (FFTW_ESTIMATE leaves the arrays alone.)
        nonisolated(unsafe) var forwardPlan: fftw_plan?, inversePlan: fftw_plan?
        planner.withLock { _ in
            forwardPlan = fftw_plan_dft_r2c_1d(Int32(n), input, spectrum, UInt32(FFTW_ESTIMATE))
            inversePlan = fftw_plan_dft_c2r_1d(Int32(size), padded, output, UInt32(FFTW_ESTIMATE))
        }
        defer { planner.withLock { _ in
            if let p = forwardPlan { fftw_destroy_plan(p) }
            if let p = inversePlan { fftw_destroy_plan(p) }
        } }
        guard let forward = forwardPlan, let inverse = inversePlan else {
            throw ToneLoadError(path: path, reason: "FFTW could not plan a \(n)-point transform")
        }
        fftw_execute(forward)
        // Each level's rows: per table frame i, the cubic in t ∈ [0, 1) closest to the
        // level between table positions i and i + 1 in the least-squares sense (its
        // Legendre coefficients a_m = (2m + 1)/2 ∫ s(i + (u + 1)/2) P_m(u) du, u ∈ [−1, 1]).
        // For one harmonic e^{iωx} (ω per table frame) a_m is e^{iωi} times
        // H_m(ω) = e^{iω/2} (2m + 1) i^m j_m(ω/2) (j_m: spherical Bessel), so each a_m
        // sequence is one inverse transform of the kept bins times H_m, added into the
        // rows with its weights (`LevelFit.weights`).
        var response = [Double](repeating: 0, count: 8 * bins)  // H_m(ω_j) at 8j + 2m (re, im)
        for j in 0..<bins {
            for (m, h) in LevelFit.response(omega: 2 * Double.pi * Double(j) / Double(size)).enumerated() {
                response[8 * j + 2 * m] = h.0
                response[8 * j + 2 * m + 1] = h.1
            }
        }
        var rows = [Float](repeating: 0, count: 4 * size)  // one level's, reused
        var steps: [[Int16]] = []
        var scales: [Float] = []
        let scale = 1 / Double(n)
        for ratio in ratios {
            for i in rows.indices { rows[i] = 0 }
            for m in 0..<4 {
                for j in 0..<paddedBins {
                    // Bins kept: j·ratio < n/2 (below the output's Nyquist frequency at
                    // `ratio`); level 0 keeps all, its Nyquist bin halved (mirrored at
                    // 4n − n/2 by the c2r). Nothing above the tone's bins.
                    var keep = 0.0
                    if j < bins { keep = ratio == 1 ? (2 * j == n ? scale / 2 : scale) : (Double(j) * ratio < Double(n) / 2 ? scale : 0) }
                    if keep == 0 {
                        padded[j].0 = 0
                        padded[j].1 = 0
                        continue
                    }
                    let (hr, hi) = (response[8 * j + 2 * m], response[8 * j + 2 * m + 1])
                    let (xr, xi) = (spectrum[j].0 * keep, spectrum[j].1 * keep)
                    padded[j].0 = xr * hr - xi * hi
                    padded[j].1 = xr * hi + xi * hr
                }
                fftw_execute(inverse)  // `padded` becomes a_m, refilled for the next m
                let w = LevelFit.weights[m]
                let (w0, w1, w2, w3) = (Float(w[0]), Float(w[1]), Float(w[2]), Float(w[3]))
                rows.withUnsafeMutableBufferPointer { r in
                    for i in 0..<size {
                        let a = Float(output[i])
                        r[4 * i] += w0 * a
                        r[4 * i + 1] += w1 * a
                        r[4 * i + 2] += w2 * a
                        r[4 * i + 3] += w3 * a
                    }
                }
            }
            let (levelScale, levelSteps) = ToneLevels.steps(of: rows)
            steps.append(levelSteps)
            scales.append(levelScale)
        }
        // One scale for all: the coarsest; finer levels rounded again onto it.
        let common = scales.max()!
        for k in steps.indices where scales[k] != common {
            let factor = Double(scales[k]) / Double(common)
            steps[k].withUnsafeMutableBufferPointer { q in
                for i in 0..<q.count { q[i] = Int16((Double(q[i]) * factor).rounded()) }
            }
        }
        let starts = ratios.dropLast().map { $0 * (1 - zoneWidth) }
        return ToneLevels(steps: steps, scale: common, aliasFreeRatio: ratios, crossfadeStart: starts)
    }
}
