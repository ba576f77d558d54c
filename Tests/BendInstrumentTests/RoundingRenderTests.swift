// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendEngine
import BendInstrument
import BendTestSupport
import XCTest

/// Pitch rounding as `render` plays it (`OfflineRenderer`, ticked each millisecond),
/// measured on the output: `--scale chromatic --pitch-map exp --octaves 2` around the
/// 440 Hz tone.
final class RoundingRenderTests: XCTestCase {
    let rate = 48_000.0
    let map = PitchMap.exponential(octaves: 2)
    let chromatic = Tuning(scale: Scale.builtIn("chromatic")!)

    func rounding(_ mode: PitchRounding.Mode, rate: Double = 0.05) -> PitchRounding {
        PitchRounding(mode: mode, rate: rate, tuning: chromatic)
    }

    /// x for `cents` above the tone's pitch on the 2-octave map.
    func x(_ cents: Double) -> Double { 0.5 + cents / 2400 }

    /// Renders `entries` with a pure 440 Hz sine as the tone; mono (left).
    func render(_ entries: [TouchScript.Entry], rounding: PitchRounding?, tone samples: [Float]? = nil) -> [Float] {
        let tone = ToneTable(samples: samples ?? Measure.sineTone(), rate: rate)
        defer { tone.deallocate() }
        let out = OfflineRenderer.renderToBuffer(script: TouchScript(entries: entries), tone: tone, voices: 4, pitchMap: map,
                                                 rounding: rounding, periodFrames: 256)
        return Measure.channel(out, 0)
    }

    func cents(_ hz: Double, from reference: Double = 440) -> Double { 1200 * log2(hz / reference) }

    func slice(_ s: [Float], _ from: Double, _ to: Double) -> [Float] { Array(s[Int(from * rate)..<Int(to * rate)]) }

    /// A touch held 30 cents above A#4 (x = 0.5 + 130/2400): 474.4 Hz unrounded,
    /// 466.16 Hz (±1 cent) with `hold` at 50 ms, from the rate on; and a touch that
    /// slides there from A4 and rests settles onto A#4 too (the settling time printed).
    func testHoldSettlesOnTheStep() {
        let held = [TouchScript.Entry(time: 0, event: .touch(id: 1, phase: .down, x: x(130), y: 1)),
                    TouchScript.Entry(time: 1, event: .touch(id: 1, phase: .up, x: 0, y: 0))]
        let raw = Measure.peakFrequency(slice(render(held, rounding: nil), 0.05, 0.95), rate: rate)
        XCTAssertEqual(raw, 474.4, accuracy: 474.4 * 0.0006)
        let rounded = Measure.peakFrequency(slice(render(held, rounding: rounding(.hold)), 0.05, 0.95), rate: rate)
        XCTAssertEqual(cents(rounded, from: 466.1638), 0, accuracy: 1, "\(rounded) Hz")

        // Slide from A4 to 130 cents above it over 100 ms, then rest.
        var slide = [TouchScript.Entry(time: 0, event: .touch(id: 1, phase: .down, x: x(0), y: 1))]
        for i in 1...100 { slide.append(.init(time: 0.3 + Double(i) / 1000, event: .touch(id: 1, phase: .move, x: x(1.3 * Double(i)), y: 1))) }
        slide.append(.init(time: 2, event: .touch(id: 1, phase: .up, x: 0, y: 0)))
        let track = Measure.zeroCrossingTrack(render(slide, rounding: rounding(.hold)), rate: rate)
        let after = track.filter { $0.time > 0.4 && $0.time < 1.95 }
        let settled = after.first { point in
            after.allSatisfy { $0.time < point.time || abs(cents($0.hz, from: 466.1638)) <= 1 }
        }
        XCTAssertNotNil(settled, "never settles within 1 cent of 466.16 Hz")
        if let settled {
            print(String(format: "figure: hold 50 ms: a touch resting 30 cents off A#4 after a slide is within 1 cent of it %.0f ms after it stops", (settled.time - 0.4) * 1000))
            XCTAssertLessThan(settled.time - 0.4, 0.5)
        }
        XCTAssertEqual(cents(Measure.peakFrequency(slice(render(slide, rounding: rounding(.hold)), 1.3, 1.95), rate: rate), from: 466.1638), 0, accuracy: 1)
    }

    /// A 5 Hz vibrato of ±40 cents around that point keeps ≥ 80 % of its depth while its
    /// centre lands on A#4 (mean within 2 cents of 100 cents above A4).
    func testHoldKeepsVibrato() {
        func vibrato(_ rounding: PitchRounding?) -> (depth: Double, centre: Double) {
            var entries = [TouchScript.Entry(time: 0, event: .touch(id: 1, phase: .down, x: x(130), y: 1))]
            for ms in 1...2000 {
                let t = Double(ms) / 1000
                entries.append(.init(time: t, event: .touch(id: 1, phase: .move, x: x(130 + 40 * sin(2 * .pi * 5 * t)), y: 1)))
            }
            entries.append(.init(time: 2.01, event: .touch(id: 1, phase: .up, x: 0, y: 0)))
            let track = Measure.zeroCrossingTrack(render(entries, rounding: rounding), rate: rate)
                .filter { $0.time >= 1 && $0.time < 2 }.map { cents($0.hz) }  // 5 whole cycles
            return ((track.max()! - track.min()!) / 2, track.reduce(0, +) / Double(track.count))
        }
        let free = vibrato(nil), held = vibrato(rounding(.hold))
        print(String(format: "figure: hold 50 ms, ±40 cent 5 Hz vibrato: depth %.1f cents unrounded, %.1f cents rounded (%.0f %%); centre %.1f → %.1f cents above A4",
                     free.depth, held.depth, 100 * held.depth / free.depth, free.centre, held.centre))
        XCTAssertEqual(free.centre, 130, accuracy: 2)
        XCTAssertEqual(held.centre, 100, accuracy: 2)
        XCTAssertGreaterThanOrEqual(held.depth, 0.8 * 40)
        XCTAssertGreaterThanOrEqual(held.depth, 0.8 * free.depth)
        XCTAssertLessThanOrEqual(held.depth, 1.3 * free.depth, "no more than 30 % deeper")
    }

    /// A slow slide across three steps (A4 → C5 in 1.5 s) and a rest: the pitch track
    /// never moves more than 5 cents in 1 ms, and the largest sample step stays within
    /// that of the steady top note (no click).
    func testSlideIsContinuous() {
        // A 1760 Hz sine as the tone: a track point every 0.57 ms.
        let tone = Measure.sineTone(cycles: 1760)
        var entries = [TouchScript.Entry(time: 0, event: .touch(id: 1, phase: .down, x: x(0), y: 1))]
        for ms in 1...1500 { entries.append(.init(time: 0.2 + Double(ms) / 1000, event: .touch(id: 1, phase: .move, x: x(0.2 * Double(ms)), y: 1))) }
        entries.append(.init(time: 2.5, event: .touch(id: 1, phase: .up, x: 0, y: 0)))
        let out = render(entries, rounding: rounding(.hold), tone: tone)
        let track = Measure.zeroCrossingTrack(out, rate: rate).filter { $0.time > 0.05 && $0.time < 2.45 }
        var worst = 0.0
        var j = 0
        for i in track.indices {
            while track[i].time - track[j].time > 0.001 { j += 1 }
            for k in j..<i { worst = max(worst, abs(cents(track[i].hz, from: track[k].hz))) }
        }
        print(String(format: "figure: hold 50 ms, slide of 3 semitones in 1.5 s: largest pitch change within 1 ms %.2f cents", worst))
        XCTAssertLessThanOrEqual(worst, 5)
        XCTAssertEqual(cents(track.last!.hz, from: 1760), 300, accuracy: 1, "ends on C")
        let steady = Measure.maxStep(out[Int(2.2 * rate)..<Int(2.4 * rate)])
        XCTAssertLessThanOrEqual(Measure.maxStep(out[Int(0.1 * rate)..<Int(2.4 * rate)]), steady * 1.05)
    }

    /// `initial`: the touch starts on A#4; a later move of +60 cents is not rounded
    /// (466.16 Hz · 2^(60/1200), where `hold` would settle on B4 or A#4).
    func testInitialRoundsOnlyTheStart() {
        let entries = [TouchScript.Entry(time: 0, event: .touch(id: 1, phase: .down, x: x(130), y: 1)),
                       TouchScript.Entry(time: 1, event: .touch(id: 1, phase: .move, x: x(190), y: 1)),
                       TouchScript.Entry(time: 2, event: .touch(id: 1, phase: .up, x: 0, y: 0))]
        let out = render(entries, rounding: rounding(.initial))
        XCTAssertEqual(cents(Measure.peakFrequency(slice(out, 0.05, 0.95), rate: rate), from: 466.1638), 0, accuracy: 1)
        XCTAssertEqual(cents(Measure.peakFrequency(slice(out, 1.05, 1.95), rate: rate), from: 466.1638), 60, accuracy: 1)
    }
}
