// SPDX-License-Identifier: GPL-3.0-or-later
import XCTest
import BendEngine
import BendTestSupport

final class MixerTests: XCTestCase {
    let rate = 48_000.0

    func testPitchRatioSetsFrequency() {
        for ratio: Float in [0.5, 1, 1.5] {
            let h = RenderHarness()
            defer { h.free() }
            let out = h.render(frames: 48_000, events: [EngineEvent(frame: 0, kind: .down, key: h.key(1), value: ratio, gain: 1)])
            let left = Array(Measure.channel(out, 0)[4800...])
            let f = Measure.peakFrequency(left, rate: rate)
            XCTAssertEqual(f, 440 * Double(ratio), accuracy: 440 * Double(ratio) * 0.005, "ratio \(ratio)")
        }
    }

    func testGainHalfIsMinus6dB() {
        func level(_ gain: Float) -> Double {
            let h = RenderHarness()
            defer { h.free() }
            let out = h.render(frames: 24_000, events: [EngineEvent(frame: 0, kind: .down, key: h.key(1), value: 1, gain: gain)])
            return Measure.rms(Measure.channel(out, 0)[4800...])
        }
        XCTAssertEqual(Measure.dB(level(0.5) / level(1)), -6.0206, accuracy: 0.1)
    }

    func testEqualPowerPan() {
        func powers(_ pan: Float) -> (Double, Double, Double) {
            let h = RenderHarness()
            defer { h.free() }
            let out = h.render(frames: 24_000, events: [
                EngineEvent(frame: 0, kind: .pan, value: pan),
                EngineEvent(frame: 0, kind: .down, key: h.key(1), value: 1, gain: 1),
            ])
            let l = Measure.rms(Measure.channel(out, 0)[4800...])
            let r = Measure.rms(Measure.channel(out, 1)[4800...])
            return (l, r, 0)
        }
        let (c0, c1, _) = powers(0)
        let (l0, l1, _) = powers(-1)
        let (r0, r1, _) = powers(1)
        let full = l0  // all power on the left at −1
        XCTAssertEqual(Measure.dB(c0 / full), -3.0103, accuracy: 0.1)
        XCTAssertEqual(Measure.dB(c1 / full), -3.0103, accuracy: 0.1)
        XCTAssertLessThan(Measure.dB(l1 / full), -60)
        XCTAssertLessThan(Measure.dB(r0 / full), -60)
        XCTAssertEqual(Measure.dB(r1 / full), 0, accuracy: 0.1)
    }

    /// Largest sample step around down, move and up stays below the steady tone's.
    /// The tone starts at its peak (cosine phase), so a voice that started without its
    /// attack fade would jump from 0 to full level in one frame.
    func testNoClicksAroundEvents() {
        let peakFirst = (0..<48_000).map { i -> Float in
            let p = 2 * Double.pi * 440 * Double(i) / 48_000
            return Float(0.5 * cos(p) + 0.25 * cos(2 * p) + 0.125 * cos(3 * p))
        }
        for (ratio, gain) in [(Float(0.5), Float(1.0)), (1, 1), (1.5, 0.8)] {
            let h = RenderHarness(tone: peakFirst)
            defer { h.free() }
            let out = Measure.channel(h.render(frames: 48_000, events: [
                EngineEvent(frame: 1000, kind: .down, key: h.key(1), value: ratio, gain: gain),
                EngineEvent(frame: 12_000, kind: .move, key: h.key(1), value: ratio * 1.1, gain: gain * 0.7),
                EngineEvent(frame: 24_000, kind: .move, key: h.key(1), value: ratio, gain: gain),
                EngineEvent(frame: 36_000, kind: .up, key: h.key(1)),
            ]), 0)
            let steady = Measure.maxStep(out[30_000..<36_000])
            for event in [1000, 12_000, 24_000, 36_000] {
                let around = Measure.maxStep(out[(event - 200)..<(event + 1200)])
                XCTAssertLessThanOrEqual(around, steady * 1.0001, "ratio \(ratio) gain \(gain) event at \(event)")
            }
            XCTAssertEqual(Measure.rms(out[(36_000 + 480)...]), 0, "silent 10 ms after the release")
        }
    }

    /// An event stamped at frame F starts sounding at F (within one frame), whatever
    /// its offset inside the period.
    func testEventsAreSampleAccurate() {
        for frame in [0, 1, 255, 256, 1000, 4097] {
            let h = RenderHarness(tone: [Float](repeating: 0.5, count: 64))  // DC tone: any nonzero sample is the voice
            defer { h.free() }
            let out = Measure.channel(h.render(frames: 6000, events: [
                EngineEvent(frame: UInt64(frame), kind: .down, key: h.key(1), value: 1, gain: 1),
            ]), 0)
            let first = out.firstIndex { $0 != 0 }!
            XCTAssertLessThanOrEqual(abs(first - frame), 1, "event at \(frame) started at \(first)")
        }
    }

    func testPitchRatioZeroIsSilentAndNeverClicks() {
        let h = RenderHarness()
        defer { h.free() }
        let out = Measure.channel(h.render(frames: 48_000, events: [
            EngineEvent(frame: 0, kind: .down, key: h.key(1), value: 1, gain: 1),
            EngineEvent(frame: 12_000, kind: .move, key: h.key(1), value: 0, gain: 1),
            EngineEvent(frame: 36_000, kind: .move, key: h.key(1), value: 1, gain: 1),
        ]), 0)
        let steady = Measure.maxStep(out[4000..<12_000])
        XCTAssertLessThan(Measure.dB(Measure.rms(out[16_000..<36_000]) / Measure.rms(out[4000..<12_000])), -100,
                          "ratio 0 holds no DC and no sound")
        XCTAssertLessThanOrEqual(Measure.maxStep(out[11_000..<40_000]), steady)
    }

    func testStealingTakesTheOldestVoice() {
        let h = RenderHarness(voices: 2)
        defer { h.free() }
        let out = Measure.channel(h.render(frames: 48_000, events: [
            EngineEvent(frame: 0, kind: .down, key: h.key(1), value: 0.5, gain: 1),     // 220 Hz
            EngineEvent(frame: 100, kind: .down, key: h.key(2), value: 1, gain: 1),     // 440 Hz
            // 660 Hz steals voice 1, near the 220 Hz voice's crest (at frame 12 000 it
            // crosses zero, where even a steal without fade would not jump).
            EngineEvent(frame: 12_028, kind: .down, key: h.key(3), value: 1.5, gain: 1),
        ]), 0)
        XCTAssertEqual(h.mixer.activeVoices, 2)
        let before = Measure.peaks(Array(out[2_000..<12_000]), rate: rate, floorDB: -10)
        let after = Measure.peaks(Array(out[14_000...]), rate: rate, floorDB: -10)
        XCTAssertTrue(before.contains { abs($0 - 220) < 3 })
        XCTAssertFalse(after.contains { abs($0 - 220) < 3 }, "the oldest voice (220 Hz) was stolen: \(after)")
        XCTAssertTrue(after.contains { abs($0 - 440) < 3 } && after.contains { abs($0 - 660) < 3 }, "\(after)")
        // The steal fades, never jumps.
        XCTAssertLessThanOrEqual(Measure.maxStep(out[11_900..<12_400]), Measure.maxStep(out[20_000..<30_000]) * 1.5)
    }

    /// The touch that steals a voice starts at the frame the steal fade ends, not at
    /// the next event or period: 2 voices (the second silent), 256-frame periods, the
    /// steal at frame 1034 inside a period with no other event.
    func testStealingTouchStartsWhereTheFadeEnds() {
        let h = RenderHarness(voices: 2, period: 256)
        defer { h.free() }
        let stealAt = 1034
        let out = Measure.channel(h.render(frames: 4096, events: [
            EngineEvent(frame: 0, kind: .down, key: h.key(1), value: 1, gain: 1),
            EngineEvent(frame: 10, kind: .down, key: h.key(2), value: 1, gain: 0),       // holds the other voice, silent
            EngineEvent(frame: UInt64(stealAt), kind: .down, key: h.key(3), value: 1.5, gain: 1),
        ]), 0)
        let fadeFrames = 48  // 1 ms at 48 kHz
        // Silence between the fade's end and the new touch's first sample.
        var silent = 0
        var n = stealAt + fadeFrames
        while n < out.count && abs(out[n]) < 1e-7 { silent += 1; n += 1 }
        XCTAssertLessThan(n, stealAt + fadeFrames + 4, "the new touch starts \(n - stealAt) frames after the steal")
        XCTAssertLessThanOrEqual(silent, 2)
        XCTAssertEqual(Measure.peakFrequency(Array(out[2048..<4096]), rate: rate), 660, accuracy: 12)
    }

    /// When every voice waits for its steal fade, a new touch drops the oldest waiting
    /// touch: 4 voices, 10 touches at one frame; the 4 newest sound.
    func testStealingDropsTheOldestWaitingTouch() {
        let h = RenderHarness(voices: 4, period: 256)
        defer { h.free() }
        let events = (0..<10).map { k in
            EngineEvent(frame: 100, kind: .down, key: h.key(UInt32(k)), value: 0.5 + 0.1 * Float(k), gain: 0.2)
        }
        let out = Measure.channel(h.render(frames: 24_000, events: events), 0)
        let peaks = Measure.peaks(Array(out[8_000...]), rate: rate, floorDB: -30)
        let sounding = (0..<10).filter { k in peaks.contains { abs($0 - 220 * (0.5 + 0.1 * Double(k)) * 2) < 4 } }
        XCTAssertEqual(sounding, [6, 7, 8, 9], "touches heard (FFT peaks \(peaks))")
    }

    func testReleaseSourceEndsOnlyThatSourcesVoices() {
        let h = RenderHarness()
        defer { h.free() }
        let other = h.mixer.addSource()
        XCTAssertTrue(other.ring.push(EngineEvent(frame: 0, kind: .down, key: TouchKey(source: other.index, touch: 1), value: 1, gain: 1)))
        _ = h.render(frames: 4800, events: [
            EngineEvent(frame: 0, kind: .down, key: h.key(1), value: 0.5, gain: 1),
            EngineEvent(frame: 0, kind: .down, key: h.key(2), value: 0.5, gain: 1),
            EngineEvent(frame: 2400, kind: .releaseSource, key: h.key(0)),
        ])
        XCTAssertEqual(h.mixer.activeVoices, 1)
    }

    /// A release of a whole source (`.releaseSource`, and `.releaseAll`) at a frame
    /// inside a period starts every released voice's fade at that frame, not at the
    /// period's start (each voice is caught up to the frame first), and frees its touch:
    /// the same touch pressed again later sounds anew. DC tone (the level is the sum of
    /// the voices' gains), 256-frame periods, the release at frame 1000 (offset 232 of
    /// its period, no other event there); a voice of another source keeps sounding
    /// through `.releaseSource`.
    func testReleaseSourceAtAMidPeriodFrameLandsThere() {
        for kind in [EngineEvent.Kind.releaseSource, .releaseAll] {
            let h = RenderHarness(voices: 8, period: 256, tone: [Float](repeating: 0.5, count: 64))
            defer { h.free() }
            let other = h.mixer.addSource()
            XCTAssertTrue(other.ring.push(EngineEvent(frame: 0, kind: .down, key: TouchKey(source: other.index, touch: 1),
                                                      value: 1, gain: 0.25)))
            let releaseAt = 1000, pressAgainAt = 3000
            let out = Measure.channel(h.render(frames: 4800, events: [
                EngineEvent(frame: 0, kind: .down, key: h.key(1), value: 1, gain: 0.25),
                EngineEvent(frame: 0, kind: .down, key: h.key(2), value: 1, gain: 0.25),
                EngineEvent(frame: UInt64(releaseAt), kind: kind, key: h.key(0)),
                EngineEvent(frame: UInt64(pressAgainAt), kind: .down, key: h.key(1), value: 1, gain: 0.25),
            ]), 0)
            let voice = Double(0.5 * 0.25 * Float(0.5).squareRoot())  // one voice, panned centre
            let steady = out[600]
            XCTAssertEqual(Double(steady), 3 * voice, accuracy: 1e-5, "\(kind): three voices before the release")
            let fadeStart = (600..<2000).first { out[$0] < steady - 1e-6 } ?? -1
            XCTAssertTrue((releaseAt - 1)...(releaseAt + 1) ~= fadeStart,
                          "\(kind) at frame \(releaseAt): the fade starts at frame \(fadeStart)")
            // Released voices are silent 8 ms (384 frames) later; the other source's voice sounds on.
            let left = kind == .releaseSource ? voice : 0
            XCTAssertEqual(Measure.rms(out[(releaseAt + 400)..<pressAgainAt]), left, accuracy: 1e-5, "\(kind): after the fade")
            // The touch pressed again is a new voice (its attack: 4 ms, 192 frames).
            XCTAssertEqual(Measure.rms(out[(pressAgainAt + 200)...]), left + voice, accuracy: 1e-5,
                           "\(kind): touch 1 pressed again after the release")
            XCTAssertEqual(h.mixer.activeVoices, kind == .releaseSource ? 2 : 1)
        }
    }

    /// `Mixer.cut` (play stopping a script that queued ahead, issue 16): the source's
    /// events queued for after the cut frame are dropped, its `.releaseSource` (queued
    /// behind them, for a later frame) takes effect at the cut frame, and the source's
    /// events after that release play again. DC tone, 256-frame periods: touch 1 down at
    /// 0; queued ahead: touch 2 down at 3000, the release at 3500, touch 3 down at 4000;
    /// cut at frame 1200 once 1024 frames are rendered.
    func testCutDropsQueuedEventsAndReleasesAtTheCut() {
        let h = RenderHarness(voices: 8, period: 256, tone: [Float](repeating: 0.5, count: 64))
        defer { h.free() }
        for e in [EngineEvent(frame: 0, kind: .down, key: h.key(1), value: 1, gain: 0.25),
                  EngineEvent(frame: 3000, kind: .down, key: h.key(2), value: 1, gain: 0.25),
                  EngineEvent(frame: 3500, kind: .releaseSource, key: h.key(0)),
                  EngineEvent(frame: 4000, kind: .down, key: h.key(3), value: 1, gain: 0.25)] {
            XCTAssertTrue(h.ring.push(e))
        }
        var out = Measure.channel(h.render(frames: 1024), 0)
        h.mixer.cut(source: h.source, atFrame: 1200)
        out += Measure.channel(h.render(frames: 6000 - 1024), 0)
        let voice = Double(0.5 * 0.25 * Float(0.5).squareRoot())
        XCTAssertEqual(Double(out[1100]), voice, accuracy: 1e-5, "touch 1 until the cut")
        let fadeStart = (1100..<2000).first { Double(out[$0]) < voice - 1e-6 } ?? -1
        XCTAssertTrue(1199...1201 ~= fadeStart, "released at the cut frame: the fade starts at \(fadeStart)")
        XCTAssertEqual(Measure.rms(out[1600..<4000]), 0, accuracy: 1e-7, "touch 2 (queued for 3000) never sounds")
        XCTAssertEqual(Measure.rms(out[4300...]), voice, accuracy: 1e-5, "touch 3, after the release, plays")
    }

    /// A touch waiting on a stolen voice (its steal fade not yet ended) is dropped by a
    /// release of its source, and its touch id pressed again later sounds anew: 2 voices,
    /// touch 3 steals touch 1's voice at frame 990 (a 48-frame fade), the source released
    /// at frame 1000.
    func testReleaseSourceDropsATouchWaitingOnAStolenVoice() {
        let h = RenderHarness(voices: 2, period: 256, tone: [Float](repeating: 0.5, count: 64))
        defer { h.free() }
        let out = Measure.channel(h.render(frames: 4800, events: [
            EngineEvent(frame: 0, kind: .down, key: h.key(1), value: 1, gain: 0.25),
            EngineEvent(frame: 0, kind: .down, key: h.key(2), value: 1, gain: 0.25),
            EngineEvent(frame: 990, kind: .down, key: h.key(3), value: 1, gain: 0.25),
            EngineEvent(frame: 1000, kind: .releaseSource, key: h.key(0)),
            EngineEvent(frame: 3000, kind: .down, key: h.key(3), value: 1, gain: 0.25),
        ]), 0)
        let voice = Double(0.5 * 0.25 * Float(0.5).squareRoot())
        XCTAssertEqual(Measure.rms(out[1400..<3000]), 0, accuracy: 1e-6, "every voice released; touch 3 never started")
        XCTAssertEqual(Measure.rms(out[3200...]), voice, accuracy: 1e-5, "touch 3 pressed again")
        XCTAssertEqual(h.mixer.activeVoices, 1)
    }

    /// The pan the render path applies (`panToStereo`, the kernel's own cosine series):
    /// a voice rendered at tilts −1…+1 in steps of 1/8, its per-channel power in dB
    /// against the equal-power law, left = cos θ, right = sin θ, θ = (p + 1)·π/4, relative
    /// to the whole mono mix (all on the left at −1). The voice's mono mix is the same at
    /// every tilt (the pan is applied after mixing), so the law holds to rounding.
    func testPanFollowsTheEqualPowerLaw() {
        func channels(_ pan: Float) -> (left: Double, right: Double) {
            let h = RenderHarness()
            defer { h.free() }
            let out = h.render(frames: 9_600, events: [
                EngineEvent(frame: 0, kind: .pan, value: pan),  // nothing sounds yet: taken at once
                EngineEvent(frame: 0, kind: .down, key: h.key(1), value: 1, gain: 1),
            ])
            return (Measure.rms(Measure.channel(out, 0)[4800...]), Measure.rms(Measure.channel(out, 1)[4800...]))
        }
        let full = channels(-1).left
        for p in stride(from: -1.0, through: 1.0, by: 0.125) {
            let (left, right) = channels(Float(p))
            let theta = (p + 1) * Double.pi / 4
            let context = "pan \(p): left \(Measure.dB(left / full)) dB, right \(Measure.dB(right / full)) dB"
            if cos(theta) > 1e-3 {
                XCTAssertEqual(Measure.dB(left / full), 20 * log10(cos(theta)), accuracy: 0.001, context)
            } else {
                XCTAssertLessThan(Measure.dB(left / full), -120, context)
            }
            if sin(theta) > 1e-3 {
                XCTAssertEqual(Measure.dB(right / full), 20 * log10(sin(theta)), accuracy: 0.001, context)
            } else {
                XCTAssertLessThan(Measure.dB(right / full), -120, context)
            }
            // Equal power: left² + right² is the whole mix's power at every pan.
            XCTAssertEqual(10 * log10((left * left + right * right) / (full * full)), 0, accuracy: 0.001, context)
        }
    }

    /// Band-limited levels installed while the mixer plays (`ToneTable.install`, as the
    /// app does once it has made them): until then band-limited voices read the cubic
    /// rows, from the next period on the levels. Two voices (one gliding), the levels
    /// installed after 20 periods: the output is bit for bit a cubic render before, and
    /// a band-limited render (levels there from the start) after.
    func testLevelsInstalledDuringPlayAreReadFromTheNextPeriod() {
        let samples = Measure.harmonicTone(frames: 4800, cycles: 44)
        let levels = MixerReferenceTests.testLevels(samples)
        let period = 256, before = 20 * period, after = 20 * period
        func events(_ h: RenderHarness) -> [EngineEvent] {
            [EngineEvent(frame: 0, kind: .down, key: h.key(1), value: 1.1, gain: 0.3),
             EngineEvent(frame: 100, kind: .down, key: h.key(2), value: 0.6, gain: 0.3),
             EngineEvent(frame: UInt64(before - 1000), kind: .move, key: h.key(2), value: 2.5, gain: 0.3)]
        }
        func render(levels: ToneLevels?, interpolation: Interpolation, install: ToneLevels? = nil) -> [Float] {
            let h = RenderHarness(voices: 4, period: period, tone: samples, levels: levels) {
                $0.interpolation = interpolation
                $0.smoothingSeconds = 0.1
            }
            defer { h.free() }
            var out = h.render(frames: before, events: events(h))
            if let install { h.tone.install(install) }
            out += h.render(frames: after)
            return out
        }
        let installed = render(levels: nil, interpolation: .bandLimited, install: levels)
        let cubic = render(levels: nil, interpolation: .cubic)
        let bandLimited = render(levels: levels, interpolation: .bandLimited)
        // The first sample (interleaved index) where two renders differ, or nil.
        func firstDifference(_ a: [Float], _ b: [Float], from: Int, to: Int) -> Int? { (from..<to).first { a[$0] != b[$0] } }
        XCTAssertNil(firstDifference(installed, cubic, from: 0, to: 2 * before), "cubic until the levels are in")
        XCTAssertNil(firstDifference(installed, bandLimited, from: 2 * before, to: installed.count), "the levels from the next period on")
        XCTAssertNotNil(firstDifference(cubic, bandLimited, from: 2 * before, to: cubic.count), "the two readings differ")
    }
}

/// Leaving the pad's left edge (ratio 0 → 1.8 in one move) fades in over the glide:
/// no burst of high frequencies, as from a click.
final class EdgeFadeTests: XCTestCase {
    /// Power above 4 kHz over the whole, in dB, of a Hann-windowed stretch.
    func highBandDB(_ x: ArraySlice<Float>) -> Double {
        let (mags, size) = Measure.spectrum(Array(x))
        let cut = Int(4_000 * Double(size) / 48_000)
        let high = mags[cut...].reduce(0) { $0 + $1 * $1 }, all = mags.reduce(0) { $0 + $1 * $1 }
        return 10 * log10(max(high, 1e-30) / all)
    }

    func testLeavingRatioZeroDoesNotClick() {
        let h = RenderHarness()
        defer { h.free() }
        let out = Measure.channel(h.render(frames: 48_000, events: [
            EngineEvent(frame: 0, kind: .down, key: h.key(1), value: 1, gain: 1),
            EngineEvent(frame: 9_600, kind: .move, key: h.key(1), value: 0, gain: 1),
            EngineEvent(frame: 19_200, kind: .move, key: h.key(1), value: 1.8, gain: 1),
        ]), 0)
        // The test tone's harmonics at ratio 1.8 reach 2376 Hz: anything above 4 kHz is the transition.
        let steady = highBandDB(out[30_000..<30_512])
        let leaving = highBandDB(out[(19_200 - 128)..<(19_200 + 384)])
        let arriving = highBandDB(out[(9_600 - 128)..<(9_600 + 384)])
        XCTAssertLessThan(leaving, -40, "leaving the edge (steady tone: \(steady) dB)")
        XCTAssertLessThan(arriving, -40, "reaching the edge")
        XCTAssertLessThan(Measure.rms(out[12_000..<19_200]), 1e-6, "silent at ratio 0")
    }

    /// A tilt before any voice sounds takes effect at once: the first touch is all left.
    func testPanBeforeTheFirstTouchIsImmediate() {
        let h = RenderHarness()
        defer { h.free() }
        let out = h.render(frames: 4_800, events: [
            EngineEvent(frame: 0, kind: .pan, value: -1),
            EngineEvent(frame: 0, kind: .down, key: h.key(1), value: 1, gain: 1),
        ])
        XCTAssertLessThan(Measure.rms(Measure.channel(out, 1)), 1e-6, "nothing on the right (−120 dB)")
        XCTAssertGreaterThan(Measure.rms(Measure.channel(out, 0)), 0.1)
    }
}
