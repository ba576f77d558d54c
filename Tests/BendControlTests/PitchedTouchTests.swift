// SPDX-License-Identifier: GPL-3.0-or-later
import XCTest
import BendControl
import BendEngine
import BendTestSupport

/// `ControlEvent.pitched` (MIDI's touches): the ratio is played as given, past the pad's
/// 4 up to the engine's 8, with no pitch map; gain as given; script lines round-trip.
final class PitchedTouchTests: XCTestCase {
    let rate = 48_000.0

    private func render(_ event: ControlEvent, pitchMap: PitchMap = .exponential(octaves: 1)) -> [Float] {
        let harness = RenderHarness(voices: 8, period: 256, rate: rate, pitchMap: pitchMap)
        defer { harness.free() }
        return Measure.channel(harness.render([(0, event)], frames: 24_000), 0)
    }

    func testRatioIsPlayedAsGivenUpToTheEngineLimit() {
        // (ratio sent, ratio heard): 6 is beyond the pad's 4; 20 is clamped to 8.
        for (ratio, heard) in [(0.75, 0.75), (1.0, 1.0), (6.0, 6.0), (20.0, Double(EngineLimits.maximumRatio))] {
            let out = render(.pitched(id: 1, phase: .down, ratio: ratio, gain: 1, y: 0))
            let f = Measure.peakFrequency(Array(out[4800...]), rate: rate)
            XCTAssertEqual(f / (440 * heard), 1, accuracy: 0.001, "ratio \(ratio)")
        }
    }

    func testGainIsLinearAndYIsNotGain() {
        let full = Measure.rms(render(.pitched(id: 1, phase: .down, ratio: 1, gain: 1, y: 0))[4800...])
        let half = Measure.rms(render(.pitched(id: 1, phase: .down, ratio: 1, gain: 0.5, y: 1))[4800...])
        XCTAssertEqual(Measure.dB(half / full), -6.02, accuracy: 0.05)
    }

    func testScriptLinesWithRatioRoundTrip() throws {
        let events: [ControlEvent] = [
            .pitched(id: 3, phase: .down, ratio: 1.5, gain: 0.25, y: 0.75),
            .pitched(id: 3, phase: .move, ratio: 7.5, gain: 1, y: 0),
            .pitched(id: 3, phase: .up, ratio: 0, gain: 0, y: 0),
        ]
        let text = events.enumerated().map { TouchScript.line(time: Double($0.offset), event: $0.element) + "\n" }.joined()
        let script = try TouchScript.parse(text)
        XCTAssertEqual(Array(script.entries.map(\.event).prefix(2)), Array(events.prefix(2)))
        XCTAssertEqual(script.entries[2].event.touchPhase?.phase, .up, "an up line is an up, whatever the down was")
        XCTAssertThrowsError(try TouchScript.parse(#"{"t": 0, "type": "down", "id": 1, "ratio": 9, "gain": 1, "y": 0}"#)) { e in
            XCTAssertTrue("\(e)".contains("field \"ratio\""), "\(e)")
        }
    }
}
