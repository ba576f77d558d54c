import BendEngine
import CFFTW
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

    /// The longest tone (frames at the output rate) levels are made for: 2^20, 21.8 s at
    /// 48 kHz. Its levels take 320 MB (10 levels of 4 rows of 8 bytes a frame), and
    /// making them twice that again for a moment; the loader takes tones up to 2^24
    /// samples, whose levels would take 5 GB.
    public static let maximumFrames = 1 << 20

    /// FFTW's planner is not thread-safe (only `fftw_execute` is): plans are made and
    /// destroyed under this lock. Levels are made at load, never on the render thread.
    private static let planner = Mutex(())

    /// The tone's levels. `samples`: one loop at the output rate, at least 1 frame.
    /// - Throws: `ToneLoadError` (with `path`) when FFTW cannot plan the transforms.
    public static func make(_ samples: [Float], path: String) throws -> ToneLevels {
        let n = samples.count
        guard n <= maximumFrames else {
            throw ToneLoadError(path: path, reason: "\(n) frames at the output rate: band-limited tables are made for tones of at most "
                                + "\(maximumFrames) frames (they take 320 bytes a frame; this one would take \(320 * n / 1_048_576) MB); "
                                + "use --interp cubic, or a shorter tone")
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
        // The loop's spectrum: bins 0…n/2 (FFTW's r2c), unnormalized.
        let bins = n / 2 + 1
        let spectrum = fftw_alloc_complex(bins)!, padded = fftw_alloc_complex(size / 2 + 1)!
        let input = fftw_alloc_real(n)!, output = fftw_alloc_real(size)!
        defer { fftw_free(spectrum); fftw_free(padded); fftw_free(input); fftw_free(output) }
        for i in 0..<n { input[i] = Double(samples[i]) }
        // The plans are this call's alone (made, executed and destroyed here); only the
        // planner's global state needs the lock.
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
        // sequence is one inverse transform of the kept bins times H_m.
        let response = (0..<bins).map { j in LevelFit.response(omega: 2 * Double.pi * Double(j) / Double(size)) }
        var levels: [[Float]] = []
        var legendre = [Double](repeating: 0, count: 4 * size)  // a_m of piece i at m·size + i
        for ratio in ratios {
            // Bins kept: j·ratio < n/2 (below the output's Nyquist frequency at `ratio`);
            // level 0 keeps all, its Nyquist bin halved (mirrored at 4n − n/2 by the c2r).
            let scale = 1 / Double(n)
            let keep = (0..<bins).map { j -> Double in
                if ratio == 1 { return 2 * j == n ? scale / 2 : scale }
                return Double(j) * ratio < Double(n) / 2 ? scale : 0
            }
            for m in 0..<4 {
                for j in 0..<(size / 2 + 1) {
                    // The kept bin times H_m (complex); nothing above the tone's bins.
                    let (hr, hi) = j < bins ? response[j][m] : (0, 0)
                    let (xr, xi) = j < bins ? (spectrum[j].0 * keep[j], spectrum[j].1 * keep[j]) : (0, 0)
                    padded[j].0 = xr * hr - xi * hi
                    padded[j].1 = xr * hi + xi * hr
                }
                fftw_execute(inverse)  // destroys `padded`, refilled for each level and m
                legendre.withUnsafeMutableBufferPointer { a in
                    for i in 0..<size { a[m * size + i] = output[i] }
                }
            }
            levels.append(LevelFit.rows(legendre, count: size))
        }
        let starts = ratios.dropLast().map { $0 * (1 - zoneWidth) }
        return ToneLevels(rows: levels, aliasFreeRatio: ratios, crossfadeStart: starts)
    }
}
