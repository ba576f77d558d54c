import BendEngine
import CSampleRate

/// Makes a tone's band-limited levels (`ToneLevels`) with libsamplerate, once, at load:
/// never on the render thread.
///
/// A tone of n frames (one loop at the output rate) gives level k as periodic
/// conversions: m_{k−1} → m_k frames with `SRC_SINC_BEST_QUALITY` (low-passes the loop
/// below m_k/2 cycles per loop, i.e. below the output's Nyquist frequency × m_k/n), then
/// m_k → 2m_k (SINC_BEST) → 4n frames (`SRC_SINC_FASTEST`): the 4× oversampled table. Level 0 skips the first step (m_0 = n);
/// each next m is the last divided by 2^(1/4) and rounded, until n/m reaches
/// `EngineLimits.padMaximumRatio` (4: the highest ratio a pad gives; 9 levels for a long
/// loop — ratios 4…8, which only raw engine events reach, read the top level and may
/// alias). Level k is alias-free up to ratio n/m_k: its stop band
/// (libsamplerate's SINC_BEST: −115 dB at the Nyquist frequency of the lower rate, −63 dB
/// at 99 % of it, measured) then lands at the output's Nyquist frequency.
///
/// Each conversion treats its input as a loop: the input is extended on both sides by
/// whole loops, so the filter sees the loop's own continuation and the output's first
/// frame falls exactly on the input's first (every level is time-aligned with level 0,
/// so a crossfade between two levels never combs).
///
/// Crossfade zones: libsamplerate's pass band is flat (within 0.05 dB) up to 94 % of the
/// lower rate's Nyquist frequency, so level k + 1 keeps every harmonic below
/// `passband` × the output's Nyquist frequency (18 kHz at 48 kHz with 0.75) from ratio
/// `passband` / 0.94 × n/m_{k+1} on; the zone from level k to k + 1 ends at n/m_k and
/// starts 2 % below (or where level k + 1's pass band begins, when that is lower). Harmonics in the tone's own top 6 % (above 22.6 kHz in a
/// 48 kHz tone) are lost by the first conversion.
public enum ToneLevelMaker {
    /// Output harmonics kept within ±0.5 dB, as a fraction of the output's Nyquist
    /// frequency: 0.75 (18 kHz at 48 kHz).
    public static let passband = 0.75
    /// Flat pass band of libsamplerate's SINC_BEST filter, fraction of the lower rate's
    /// Nyquist frequency (measured: −0.05 dB at 0.944, −0.54 dB at 0.952).
    static let converterPassband = 0.94
    /// Ratio between the cut-offs of adjacent levels: 2^(1/4).
    static let levelStep = 1.189_207_115_002_721

    /// The tone's levels. `samples`: one loop at the output rate, at least 1 frame.
    /// - Throws: `ToneLoadError` (with `path`) when libsamplerate fails.
    public static func make(_ samples: [Float], path: String) throws -> ToneLevels {
        func fail(_ reason: String) -> ToneLoadError { ToneLoadError(path: path, reason: reason) }
        let n = samples.count
        let k = ToneLevels.oversampling
        var sizes = [n]
        while Double(n) / Double(sizes.last!) < Double(EngineLimits.padMaximumRatio) && sizes.last! > 1 {
            let m = sizes.last!
            let target = max(1, min(m - 1, Int((Double(m) / levelStep).rounded())))
            // Within 1.5 % below the target, the size whose conversions align with the
            // least context (see `resample`): a long loop then costs about its own
            // length per conversion, not three times it.
            var best = target, bestCost = Int.max
            for candidate in max(1, Int(Double(target) * 0.985))...target {
                let cost = m / ToneLoader.gcd(m, candidate) + candidate / ToneLoader.gcd(candidate, k * n) + 2 * candidate / ToneLoader.gcd(2 * candidate, k * n)
                if cost < bestCost { best = candidate; bestCost = cost }
            }
            sizes.append(best)
        }
        if sizes.count < 2 { sizes.append(max(1, n / 2)) }
        var levels: [[Float]] = []
        var narrowed = samples
        for m in sizes {
            // Each level narrowed from the last (a cascade: the filter's cost is the
            // input's length, which shrinks), then oversampled to 4n.
            if m != narrowed.count { narrowed = try resample(narrowed, to: m, fail: fail) }
            // Oversampled in two steps: ×2 with SINC_BEST (its sharp filter at the
            // loop's Nyquist frequency), then to 4n with SINC_FASTEST, which only has to
            // keep the content below half its input's Nyquist frequency (flat there:
            // −0.00 dB to 68 % of it) and stop the images above 1.5 times it (−106 dB
            // from 100 %): a third of the time of one SINC_BEST step to 4n.
            let doubled = try resample(narrowed, to: 2 * m, quality: Int32(SRC_SINC_BEST_QUALITY), fail: fail)
            levels.append(try resample(doubled, to: k * n, quality: Int32(SRC_SINC_FASTEST), fail: fail))
        }
        let aliasFree = sizes.map { Double(n) / Double($0) }
        var starts: [Double] = []
        for z in 0..<(sizes.count - 1) {
            // 2 % wide (a voice in a zone reads two levels: narrow zones keep that rare),
            // or wider when level k + 1's pass band needs it; at least 1 % wide (tiny
            // loops' last levels, whose sizes step by more than 2^(1/4)).
            let wanted = passband / converterPassband * aliasFree[z + 1] * 1.005
            starts.append(min(max(wanted, aliasFree[z] * 0.98), aliasFree[z] * 0.99))
        }
        return ToneLevels(samples: levels, aliasFreeRatio: aliasFree, crossfadeStart: starts)
    }

    /// One loop of `loop.count` frames converted to exactly `frames` frames (the same
    /// period), with `quality` (SINC_BEST by default).
    static func resample(_ loop: [Float], to frames: Int, quality: Int32 = Int32(SRC_SINC_BEST_QUALITY),
                         fail: (String) -> ToneLoadError) throws -> [Float] {
        let n = loop.count
        let ratio = Double(frames) / Double(n)
        // Context on each side, from the loop's own continuation, more than the filter
        // reaches (~150 input frames at ratio ≥ 1, ~150/ratio below), and a whole
        // multiple of n/gcd(n, frames) input frames, so that it lasts a whole number of
        // output frames: the output's first frame then falls exactly on the input's
        // first (no fractional time shift between levels).
        let unit = n / ToneLoader.gcd(n, frames)
        let context = (Int(2048 / min(ratio, 1)) + unit - 1) / unit * unit
        return try ToneLoader.convertLoop(mono: loop, context: context, ratio: ratio, quality: quality,
                                          start: context / unit * (frames / ToneLoader.gcd(n, frames)), frames: frames, fail: fail)
    }
}
