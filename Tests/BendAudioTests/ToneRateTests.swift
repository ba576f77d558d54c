// SPDX-License-Identifier: GPL-3.0-or-later
import BendAudio
import BendEngine
import BendTestSupport
import XCTest

/// Issue 28, "A tone at another rate": a looped tone converted to the output rate
/// keeps its seam seamless. A band-limited sawtooth of 378 periods per loop, written at
/// one rate, loaded at another, played at ratio 1 through the band-limited tables; the
/// energy off its harmonics in a 65 536-frame window that crosses the loop's seam,
/// under a 4-term Blackman–Harris window (`AliasMeter`), must stay ≤ −75 dB.
final class ToneRateTests: XCTestCase {
    /// A band-limited sawtooth loop of `frames` frames holding `periods` periods: every
    /// harmonic below 0.95 of `rate`'s Nyquist frequency, amplitude 0.5·(2/π)/h.
    static func sawtooth(frames: Int, periods: Int, rate: Double) -> [Float] {
        let top = Int(0.95 * Double(frames) / 2 / Double(periods))
        return (0..<frames).map { i in
            var s = 0.0
            for h in 1...top { s += sin(2 * Double.pi * Double(h * periods * i) / Double(frames)) / Double(h) }
            return Float(0.5 * 2 / Double.pi * s)
        }
    }

    /// Off-harmonic energy (dB against the harmonics) of the tone in `path` loaded at
    /// `rate` and played at ratio 1, in a window centred on the first loop seam; and the
    /// loaded tone.
    static func offHarmonicEnergy(path: String, periods: Int, rate: Double) throws -> (Double, LoadedTone) {
        let tone = try ToneLoader.load(path: path, outputRate: rate, findRoot: false)
        let levels = try ToneLevelMaker.make(tone.samples, path: path)
        let n = tone.samples.count
        let window = 65_536
        let h = RenderHarness(voices: 4, period: 256, rate: rate, tone: tone.samples, levels: levels) { $0.interpolation = .bandLimited }
        defer { h.free() }
        // The seam is at frame n (a voice starts at the loop's frame 0); the window
        // holds it in its middle, after the 5 ms attack.
        let first = max(2_048, n - window / 2)
        let out = h.render(frames: first + window, events: [EngineEvent(frame: 0, kind: .down, key: h.key(1), value: 1, gain: 1)])
        let left = Array(Measure.channel(out, 0)[first...])
        // The loop holds `periods` · repetitions periods in n frames.
        let f0 = Double(periods * tone.loop.repetitions) * rate / Double(n)
        let bands = (1...).lazy.map { Double($0) * f0 }.prefix { $0 < rate / 2 }.map { (lo: $0, hi: $0) }
        return (AliasMeter.measure(left[...], rate: rate, bands: Array(bands)).aliasDB, tone)
    }

    func check(sourceRate: Int, frames: Int, rates: [Double], file: StaticString = #filePath, line: UInt = #line) throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/saw.wav"
        writeSoundFile(path, Self.sawtooth(frames: frames, periods: 378, rate: Double(sourceRate)), rate: sourceRate)
        for rate in rates {
            let (db, tone) = try Self.offHarmonicEnergy(path: path, periods: 378, rate: rate)
            print(String(format: "%d frames at %d Hz → %.0f Hz: %d frames (loop ×%d, %.4f cents): off-harmonic %.1f dB",
                         frames, sourceRate, rate, tone.samples.count, tone.loop.repetitions, tone.loop.pitchErrorCents, db))
            XCTAssertLessThanOrEqual(db, -75, "\(frames) frames at \(sourceRate) Hz played at \(rate) Hz", file: file, line: line)
            XCTAssertLessThanOrEqual(abs(tone.loop.pitchErrorCents), 0.01, file: file, line: line)
        }
    }

    /// The tone: 1 s at 48 kHz, 378 periods, at 44.1, 88.2 and 96 kHz (the
    /// loop a whole number of frames at each).
    func testOneSecondAt48kHzIsSeamlessAt44100_88200_96000() throws {
        try check(sourceRate: 48_000, frames: 48_000, rates: [44_100, 88_200, 96_000])
    }

    /// A loop one frame longer: 48 001 frames are 44 100.92 frames at 44.1 kHz and
    /// 88 201.84 at 88.2 kHz (rounding them clicked at every seam), and 44 101 frames
    /// at 44.1 kHz are 96 002.18 at 96 kHz.
    func testAwkwardLoopLengthsAreSeamlessAt44100_88200_96000() throws {
        try check(sourceRate: 48_000, frames: 48_001, rates: [44_100, 88_200])
        try check(sourceRate: 44_100, frames: 44_101, rates: [96_000])
    }

    /// The ends of the range: 22 050 and 192 000 Hz, from an awkward length.
    func testAwkwardLoopLengthIsSeamlessAt22050And192000() throws {
        try check(sourceRate: 48_000, frames: 48_001, rates: [22_050, 192_000])
    }
}
