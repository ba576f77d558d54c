// SPDX-License-Identifier: GPL-3.0-or-later
import XCTest
import BendEngine
import BendTestSupport

/// The per-voice low-pass filter (`FilterSettings`, `LowPass.swift`): its cutoff follows
/// the touch's timbre, measured in the rendered output.
final class FilterTests: XCTestCase {
    static let rate = 48_000.0

    /// The −3 dB point (`FilterMeasure`) of one voice of the flat tone at `timbre`.
    static func minus3dB(timbre: Float, q: Double = 0.5.squareRoot()) -> Double {
        func render(filter: FilterSettings?) -> [Double] {
            let h = RenderHarness(voices: 2, tone: FilterMeasure.flatTone) { $0.interpolation = .cubic; $0.filter = filter }
            defer { h.free() }
            let out = h.render(frames: 72_000, events: [EngineEvent(frame: 0, kind: .down, key: h.key(1), value: 1, gain: 1),
                                                        EngineEvent(frame: 0, kind: .timbre, key: h.key(1), value: timbre)])
            return FilterMeasure.harmonics(Measure.channel(out, 0)[24_000..<72_000])
        }
        return FilterMeasure.minus3dB(wet: render(filter: FilterSettings(q: q)), dry: render(filter: nil))
    }

    /// The −3 dB point lies within 5 % of the cutoff the timbre maps to (40 Hz·450^t).
    func testMinus3dBPointIsTheMappedCutoff() {
        for timbre: Float in [0.55, 0.7, 0.85] {
            let expected = FilterSettings().cutoff(timbre: Double(timbre))
            let measured = Self.minus3dB(timbre: timbre)
            print(String(format: "timbre %.2f: cutoff %.0f Hz, −3 dB at %.0f Hz", timbre, expected, measured))
            XCTAssertEqual(measured / expected, 1, accuracy: 0.05, "timbre \(timbre)")
        }
    }

    /// Energy above 1.5 kHz against the rest (dB) of `x`, where steps of the cutoff would
    /// put their zipper noise.
    static func highBand(_ x: [Float]) -> Double {
        let (magnitudes, size) = Measure.spectrum(x)
        var signal = 0.0, high = 0.0
        for (i, m) in magnitudes.enumerated() {
            if Double(i) * rate / Double(size) > 1500 { high += m * m } else { signal += m * m }
        }
        return 10 * log10(high / signal)
    }

    /// A sweep of the timbre 0.3 → 1 over one second, in 128 steps as MIDI CC 74 gives
    /// them, on a 440 Hz sine. The engine takes a filter record per 8-frame block; the
    /// reference mixer recomputes the filter every sample: they differ by less than −60
    /// dB of the signal, the engine adds no energy above 1.5 kHz to the reference's (the
    /// sweep's own sidebands), and no sample steps more than the sine (1 %: the filter's
    /// phase advancing as its cutoff rises adds 0.4 %).
    func testSweepHasNoZipperNoise() {
        let sine = Measure.sineTone()
        var configuration = MixerConfiguration(rate: Self.rate, maxPeriodFrames: 256, voices: 2)
        configuration.interpolation = .cubic
        configuration.filter = FilterSettings()
        let key = TouchKey(source: 0, touch: 1)
        var events = [EngineEvent(frame: 0, kind: .down, key: key, value: 1, gain: 1), EngineEvent(frame: 0, kind: .timbre, key: key, value: 0.3)]
        for step in 0..<128 {
            events.append(EngineEvent(frame: UInt64(4800 + step * 375), kind: .timbre, key: key, value: 0.3 + 0.7 * Float(step) / 127))
        }
        let h = RenderHarness(voices: 2, tone: sine) { $0 = configuration }
        defer { h.free() }
        let out = Measure.channel(h.render(frames: 56_000, events: events), 0)
        var reference = ReferenceMixer(tone: sine, configuration: configuration)
        let slow = reference.render(frames: 56_000, events: events)
        let ref = stride(from: 0, to: slow.count, by: 2).map { Float(slow[$0]) }
        let difference = zip(out, ref).map { $0 - $1 }
        XCTAssertLessThan(Measure.dB(Measure.rms(difference[4800...]) / Measure.rms(ref[4800...])), -60, "block against per-sample filter")
        let (engineHigh, referenceHigh) = (Self.highBand(Array(out[4800..<53_952])), Self.highBand(Array(ref[4800..<53_952])))
        print(String(format: "sweep: energy above 1.5 kHz %.1f dB (per-sample reference %.1f dB)", engineHigh, referenceHigh))
        XCTAssertLessThan(engineHigh, referenceHigh + 1, "zipper noise above 1.5 kHz")
        let steady = Measure.maxStep(sine[...]) / Float(2.0.squareRoot())
        XCTAssertLessThanOrEqual(Measure.maxStep(out[2000..<56_000]), steady * 1.01, "no step beyond the sine's")
    }
}
