// SPDX-License-Identifier: GPL-3.0-or-later
/// Estimates the pitch of a looped tone: YIN (de Cheveigné & Kawahara 2002) on the
/// loop, then the loop's own spectrum lines.
///
/// YIN: the difference function d(τ) = Σ (x[j] − x[j + τ])² over a window, read
/// circularly (the loop repeats, so the frames after its end are its start), its
/// cumulative-mean normalization d′(τ) = d(τ)·τ / Σ_{1…τ} d, the first dip of d′ below
/// `threshold` that is also near the deepest one (within 2× + 0.02), and a parabola
/// through the dip for the fraction of a frame. Why YIN: on a steady tone it finds the period, not a
/// strong harmonic (the normalization keeps d′ near 1 at short lags), and d′ at the
/// dip says how periodic the tone is (noise never dips).
///
/// Then the lines: a tone of L frames played as a loop is periodic in L, so everything
/// it holds is at multiples of rate/L; its fundamental is the multiple nearest YIN's
/// estimate (at most rate/2L away: 2.6 cents at 330 Hz for a 1 s loop). For the usual
/// loop of whole cycles this gives the pitch exactly, where the parabola is good to a
/// tenth of a cent or so.
///
/// Written here rather than taken from a library: Debian's audio-analysis libraries
/// (aubio, which has YIN) would add a dependency for 60 lines. Runs at load, never on
/// the render thread.
public enum PitchDetector {
    /// Lowest and highest pitch looked for, Hz: 25 (below the piano's A0) … 4 200 (its
    /// top C).
    public static let range: ClosedRange<Double> = 25...4_200
    /// YIN's threshold on d′: 0.15 (the paper's 0.10–0.15; a dip deeper than this is a
    /// period).
    static let threshold = 0.15
    /// A tone whose best dip is shallower than this has no steady pitch: 0.35.
    static let aperiodic = 0.35

    /// The pitch of `loop` (one loop at `rate` frames per second), Hz, or nil when it
    /// has none (silence, noise, a loop shorter than two periods of the lowest pitch).
    public static func pitch(_ loop: [Float], rate: Double) -> Double? {
        let n = loop.count
        let maxLag = min(Int(rate / range.lowerBound), n / 2)
        let minLag = max(2, Int(rate / range.upperBound))
        guard maxLag > minLag + 2 else { return nil }
        // Window: at least three periods of the lowest pitch, at most the loop, taken
        // from the loop's middle.
        let window = min(n, max(3 * maxLag, 4_096))
        let origin = (n - window) / 2
        let x = loop.map(Double.init)
        guard x.contains(where: { $0 != 0 }) else { return nil }
        var d = [Double](repeating: 0, count: maxLag + 2)
        for tau in 1...(maxLag + 1) {
            var sum = 0.0
            var k = (origin + tau) % n
            for j in origin..<(origin + window) {
                let diff = x[j] - x[k]
                sum += diff * diff
                k = k + 1 == n ? 0 : k + 1
            }
            d[tau] = sum
        }
        // Cumulative-mean normalized difference.
        var normalized = [Double](repeating: 1, count: maxLag + 2)
        var running = 0.0
        for tau in 1...(maxLag + 1) {
            running += d[tau]
            normalized[tau] = running > 0 ? d[tau] * Double(tau) / running : 1
        }
        // The first dip (a local minimum) that is deep both against the threshold and
        // against the deepest dip: a partial high above the fundamental ripples d′ with
        // its own short period, and a ripple below the threshold on the way down to the
        // period's dip (0.10 at 207 frames against 0.0001 at 218, for 220 + 440 + 3300 Hz
        // at 48 kHz) is not a period.
        let deepest = (minLag...maxLag).min { normalized[$0] < normalized[$1] }!
        let floor = normalized[deepest]
        guard floor < aperiodic else { return nil }
        let accept = min(threshold, 2 * floor + 0.02)
        var best = deepest
        for tau in minLag...maxLag where normalized[tau] < accept
            && normalized[tau] <= normalized[tau - 1] && normalized[tau] <= normalized[tau + 1] {
            best = tau
            break
        }
        let lag = best
        // Parabola through the dip (on d′), for the fraction of a frame.
        let (a, b, c) = (normalized[lag - 1], normalized[lag], normalized[lag + 1])
        let curvature = a - 2 * b + c
        let shift = curvature > 0 ? max(-0.5, min(0.5, 0.5 * (a - c) / curvature)) : 0
        let hz = rate / (Double(lag) + shift)
        // The loop's spectrum line nearest to it.
        let line = rate / Double(n)
        let multiple = (hz / line).rounded()
        return multiple >= 1 ? multiple * line : hz
    }
}
