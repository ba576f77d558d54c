// SPDX-License-Identifier: GPL-3.0-or-later
import BendAudio
import BendEngine
import BendTestSupport
import CSndFile
import Foundation
import XCTest

/// A tone file's sustain loop (WAV `smpl`, written with libsndfile here) as the voices
/// play it: the attack once, the loop while held, the tail after the touch ends;
/// measured in the rendered output.
final class LoopPlaybackTests: XCTestCase {
    var dir = ""
    override func setUpWithError() throws { dir = try makeTemporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    static let rate = 48_000.0
    /// Power of `x` at `hz` (a Hann-windowed single-bin DFT), linear.
    static func power(_ x: ArraySlice<Float>, _ hz: Double) -> Double {
        var re = 0.0, im = 0.0
        let n = x.count
        for (i, v) in x.enumerated() {
            let w = 0.5 - 0.5 * cos(2 * Double.pi * Double(i) / Double(n))
            let p = 2 * Double.pi * hz * Double(i) / rate
            re += w * Double(v) * cos(p); im += w * Double(v) * sin(p)
        }
        return (re * re + im * im) / Double(n * n)
    }

    /// 0.1 s of 1000 Hz (the attack), a loop of 480 frames (4 cycles of 400 Hz), then
    /// 0.2 s of 600 Hz (the tail); each 0.5 in amplitude, each starting at a rising zero
    /// crossing. The loop is frames 4800 ..< 5280.
    static func attackLoopTail() -> [Float] {
        func sine(_ hz: Double, _ frames: Int) -> [Float] { (0..<frames).map { Float(0.5 * sin(2 * Double.pi * hz * Double($0) / rate)) } }
        return sine(1000, 4800) + sine(400, 480) + sine(600, 9600)
    }

    /// `path` loaded and laid out (`RegionMaker`), played by one touch from frame 0 to
    /// `up` at `ratio`: the left channel over √2 (the pan stage's centre), 48 000 frames.
    func play(_ path: String, interpolation: Interpolation, ratio: Float = 1, up: Int = 24_000, crossfade: Int = 0,
              frames: Int = 48_000) throws -> (left: [Float], voicesAfter: Int, region: SoundRegion) {
        let loaded = try ToneLoader.load(path: path, outputRate: Self.rate, findRoot: false)
        let layout = RegionMaker.layout(loaded, crossfadeFrames: crossfade)
        let levels = interpolation == .bandLimited ? try RegionMaker.levels(layout, path: path) : nil
        let region = RegionMaker.region(layout, rate: Self.rate, levels: levels, releaseFades: false)
        let h = RenderHarness(voices: 4, period: 256, region: region) { $0.interpolation = interpolation }
        defer { h.free() }
        let out = h.render(frames: frames, events: [EngineEvent(frame: 0, kind: .down, key: h.key(1), value: ratio, gain: 1),
                                                    EngineEvent(frame: UInt64(up), kind: .up, key: h.key(1))])
        return (Measure.channel(out, 0).map { $0 * Float(2.0.squareRoot()) }, h.mixer.activeVoices, region)
    }

    /// Attack once, the loop's period repeated while held, the tail after the release
    /// (no 400 Hz of the loop in it), then silence and the voice freed; no sample step
    /// larger than the file's own largest. Cubic and band-limited.
    func testSustainLoopPlaysTheAttackOnceThenLoopsThenTheTail() throws {
        let path = dir + "/loop.wav"
        let x = Self.attackLoopTail()
        writeInstrumentFile(path, x, rate: 48_000, note: 60, loop: (4800, 5280, Int32(SF_LOOP_FORWARD)))
        for interpolation in [Interpolation.cubic, .bandLimited] {
            let (y, voicesAfter, region) = try play(path, interpolation: interpolation)
            XCTAssertEqual(region.loopStart, 4800)
            XCTAssertEqual(region.loopEnd, 5280)
            let attack = Self.power(y[480..<4320], 1000)
            XCTAssertGreaterThan(attack, 0.01, "\(interpolation): the attack sounds")
            let later = Self.power(y[6000..<24_000], 1000)
            XCTAssertLessThan(10 * log10(later / attack), -80, "\(interpolation): the attack is heard once")
            var periodError: Float = 0
            for n in 6000..<24_000 { periodError = max(periodError, abs(y[n] - y[n - 480])) }
            XCTAssertLessThan(periodError, 1e-3, "\(interpolation): the held sound repeats the loop's period (480 frames)")
            XCTAssertGreaterThan(Self.power(y[6000..<24_000], 400), 0.01, "\(interpolation): the loop sounds")
            // Released at 24 000 (40 cycles of the loop: at its start); the tail starts at
            // the loop's end, 480 frames later, and lasts 9600 frames.
            let tail = y[24_600..<33_600]
            XCTAssertGreaterThan(Self.power(tail, 600), 0.01, "\(interpolation): the tail plays after the release")
            XCTAssertLessThan(10 * log10(Self.power(tail, 400) / Self.power(tail, 600)), -60, "\(interpolation): the loop stopped")
            XCTAssertEqual(Measure.rms(y[36_000...]), 0, "\(interpolation): silent after the tail")
            XCTAssertEqual(voicesAfter, 0, "\(interpolation): the voice ended with its sound")
            let fileStep = Measure.maxStep(x[...])
            XCTAssertLessThanOrEqual(Measure.maxStep(y[200..<36_000]), fileStep * 1.05, "\(interpolation): no click at the seams")
        }
    }

    /// A release in the attack (before the loop has started) plays on through the
    /// loop's first pass into the tail.
    func testReleaseInTheAttackPlaysThroughToTheTail() throws {
        let path = dir + "/loop.wav"
        writeInstrumentFile(path, Self.attackLoopTail(), rate: 48_000, note: 60, loop: (4800, 5280, Int32(SF_LOOP_FORWARD)))
        let (y, _, _) = try play(path, interpolation: .cubic, up: 2000)
        XCTAssertGreaterThan(Self.power(y[5400..<14_800], 600), 0.01, "the tail follows the loop's first pass")
        XCTAssertLessThan(Self.power(y[5400..<14_800], 400), 1e-7, "no second pass of the loop")
    }

    /// A bright tone (a band-limited sawtooth of 127 frames) whose loop is 320 frames, not
    /// a whole number of its periods: the seam jumps. Band-limited reads keep alias and
    /// image energy ≤ −75 dB against the looped sound's harmonics (150 Hz apart) through
    /// every seam, at ratios up to 4; cubic does not.
    func testAliasThroughTheSeamStaysBelow75dB() throws {
        let path = dir + "/bright.wav"
        let saw = AliasMeter.sawtooth(period: 127)
        let x = (0..<12_000).map { saw[$0 % 127] }
        writeInstrumentFile(path, x, rate: 48_000, note: 60, loop: (9_600, 9_920, Int32(SF_LOOP_FORWARD)))
        var figures: [String] = []
        var worst = -Double.infinity
        for ratio: Float in [0.7, 1.3, 2.2, 4.0] {
            let start = Int(Double(9_600 + 4 * 2048) / Double(ratio)) + 512  // past the attack and the junction
            for interpolation in [Interpolation.bandLimited, .cubic] {
                let (y, _, _) = try play(path, interpolation: interpolation, ratio: ratio, up: 200_000, frames: start + 32_768)
                let played = Double(Int32(ratio * Float(1 << 24) + 0.5)) / Double(1 << 24)
                // The looped sound's harmonics, DC among them (the loop's mean is not 0).
                let bands = (0...160).map { Double($0) * 150 * played }.filter { $0 < Self.rate / 2 }.map { (lo: $0, hi: $0) }
                let alias = AliasMeter.measure(y[start..<(start + 32_768)], rate: Self.rate, bands: bands).aliasDB
                figures.append(String(format: "%@ %.1f: %.1f dB", "\(interpolation)", ratio, alias))
                if interpolation == .bandLimited { worst = max(worst, alias) } else {
                    XCTAssertGreaterThan(alias, -75, "cubic aliases at \(ratio) (the measure sees alias)")
                }
            }
        }
        print("alias through the seam: " + figures.joined(separator: ", "))
        XCTAssertLessThanOrEqual(worst, -75, figures.joined(separator: ", "))
    }

    /// A loop whose ends are not a zero crossing (a 400 Hz sine cut at 0.3 of a cycle)
    /// clicks at every seam; `--loop-crossfade 10` (480 frames) takes the click away:
    /// the largest step is the sine's own.
    func testLoopCrossfadeSmoothsASeamThatIsNotAZeroCrossing() throws {
        let path = dir + "/seam.wav"
        let x = (0..<24_000).map { Float(0.5 * sin(2 * Double.pi * 400 * Double($0) / Self.rate)) }
        writeInstrumentFile(path, x, rate: 48_000, note: 60, loop: (12_000, 12_036 + 4_800, Int32(SF_LOOP_FORWARD)))
        let sineStep = Measure.maxStep(x[...])
        let (raw, _, _) = try play(path, interpolation: .cubic, up: 60_000, frames: 40_000)
        XCTAssertGreaterThan(Measure.maxStep(raw[20_000..<40_000]), 3 * sineStep, "without a crossfade the seam clicks")
        let (smooth, _, _) = try play(path, interpolation: .cubic, up: 60_000, crossfade: 480, frames: 40_000)
        XCTAssertLessThanOrEqual(Measure.maxStep(smooth[200..<40_000]), sineStep * 1.05, "the crossfaded seam does not click")
        let level = Measure.rms(smooth[20_000..<40_000]) / Measure.rms(x[0..<12_000])
        XCTAssertEqual(Measure.dB(level), 0, accuracy: 0.5, "the crossfade keeps the level")
    }
}
