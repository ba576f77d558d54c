// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendTestSupport
import XCTest

/// Issue 38, item 1: the terminal pad glides between cells. A port that glides its moves
/// over the time between reports (`ControlPort.glideMoves`, the terminal's) turns a
/// mouse's cell-by-cell reports into a slide; measured on a 440 Hz sine by the pitch of
/// each cycle (zero crossings) around a move reported 50 ms after the one before.
final class ReportGlideTests: XCTestCase {
    let map = PitchMap.exponential(octaves: 2)
    func x(_ cents: Double) -> Double { 0.5 + cents / 2400 }
    let rate = 48_000.0

    /// Cents above A4 of each cycle from 0.40 s to 0.55 s, as (seconds, cents). The touch
    /// goes down at A4, is reported there again at 0.40 s and at `to` cents at 0.45 s.
    /// Events are sent and the port ticked every 2 ms as play does (`RoundingTicker`).
    func track(to cents: Double, glide: ClosedRange<Double>?, rounding: PitchRounding? = nil) -> [(t: Double, cents: Double)] {
        let harness = RenderHarness(voices: 4, period: 96, rate: rate, tone: Measure.sineTone())
        defer { harness.free() }
        let port = ControlPort(mixer: harness.mixer, pitchMap: map, rounding: rounding, clock: nil)
        port.glideMoves(within: glide)
        var events: [(frame: UInt64, event: ControlEvent)] = [
            (0, .touch(id: 1, phase: .down, x: x(0), y: 1)),
            (19_200, .touch(id: 1, phase: .move, x: x(0), y: 1)),
            (21_600, .touch(id: 1, phase: .move, x: x(cents), y: 1)),
        ][...].map { $0 }
        var out: [Float] = []
        while harness.mixer.position < 28_800 {
            let position = harness.mixer.position
            while let e = events.first, e.frame < position + 96 {
                port.send(e.event, atFrame: e.frame)
                events.removeFirst()
            }
            port.tick(atFrame: position)
            out += harness.render(frames: 96)
        }
        return Measure.zeroCrossingTrack(Measure.channel(out, 0), rate: rate)
            .filter { $0.time > 0.40 && $0.time < 0.55 }.map { ($0.time, 1200 * log2($0.hz / 440)) }
    }

    /// The largest change of pitch from one cycle to the next, cents.
    func largestStep(_ track: [(t: Double, cents: Double)]) -> Double {
        zip(track, track.dropFirst()).map { abs($1.cents - $0.cents) }.max() ?? 0
    }

    /// Unrounded: the move glides over the 50 ms since the last report, linearly (each
    /// cycle within 12 cents of the ramp), and arrives at 200 cents; without it the
    /// pitch steps in the mixer's 3 ms.
    func testAMoveGlidesOverTheTimeSinceTheLastReport() {
        let glided = track(to: 200, glide: 0.005...0.06)
        for p in glided where p.t > 0.452 && p.t < 0.498 {
            XCTAssertEqual(p.cents, 200 * (p.t - 0.45) / 0.05, accuracy: 12, "at \(p.t) s")
        }
        for p in glided where p.t > 0.505 { XCTAssertEqual(p.cents, 200, accuracy: 0.5, "at \(p.t) s") }
        XCTAssertLessThan(largestStep(glided), 15)
        let stepped = track(to: 200, glide: nil)
        XCTAssertGreaterThan(largestStep(stepped), 90, "the mixer's 3 ms glide: one or two cycles")
        for p in stepped where p.t > 0.46 { XCTAssertEqual(p.cents, 200, accuracy: 0.5, "at \(p.t) s") }
    }

    /// A gap longer than the range's top glides over the top: the 50 ms gap with the
    /// range 5…30 ms ramps in 30 ms. (The bottom is not measured here.)
    func testTheGlideIsHeldWithinItsRange() {
        let long = track(to: 200, glide: 0.005...0.03)
        for p in long where p.t > 0.452 && p.t < 0.478 {
            XCTAssertEqual(p.cents, 200 * (p.t - 0.45) / 0.03, accuracy: 12, "at \(p.t) s")
        }
        for p in long where p.t > 0.485 { XCTAssertEqual(p.cents, 200, accuracy: 0.5, "at \(p.t) s") }
    }

    /// With `hold` rounding (the default) the raw pitch glides under the rounding, which
    /// still lands the resting touch on the step: no cycle jumps by more than 15 cents
    /// (without the glide the move jumps ~100 cents at once), and 300 ms later it sounds
    /// C5 (+300 cents) to 1 cent.
    func testUnderHoldRoundingTheRawPitchGlides() {
        let hold = PitchRounding(mode: .hold, rate: 0.05, tuning: Tuning(scale: Scale.builtIn("chromatic")!))
        let glided = track(to: 300, glide: 0.005...0.06, rounding: hold)
        XCTAssertLessThan(largestStep(glided), 25)
        XCTAssertGreaterThan(largestStep(track(to: 300, glide: nil, rounding: hold)), 90)
        let rest = glided.filter { $0.t > 0.54 }
        XCTAssertFalse(rest.isEmpty)
        for p in rest { XCTAssertEqual(p.cents, 300, accuracy: 1, "at \(p.t) s") }
    }
}
