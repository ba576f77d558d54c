// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendEngine
import BendMIDI
import BendTestSupport
import XCTest

/// The timbre dimension end to end: a source's events through its port into the engine,
/// whose filter's −3 dB point (`FilterMeasure`) is the cutoff the timbre maps to
/// (`FilterSettings.cutoff`), within 5 %.
final class TimbreFilterTests: XCTestCase {
    /// The flat tone's harmonics after one touch sent through a port (frames 0.5…1.5 s).
    func harmonics(filter: FilterSettings?, _ events: [ControlEvent]) -> [Double] {
        let h = RenderHarness(voices: 4, tone: FilterMeasure.flatTone) { $0.interpolation = .cubic; $0.filter = filter }
        defer { h.free() }
        let out = h.render(events.map { (frame: UInt64(0), event: $0) }, frames: 72_000)
        return FilterMeasure.harmonics(Measure.channel(out, 0)[24_000..<72_000])
    }

    /// MIDI CC 74 before the note (as MPE sends it): the cutoff is CC 74's.
    func testCC74SetsTheCutoff() {
        for value: UInt8 in [70, 90, 110] {
            var interpreter = MIDIInterpreter(toneNote: 69)
            var events: [ControlEvent] = []
            interpreter.receive([0xB0, 74, value, 0x90, 69, 100], frame: 0) { e, _ in events.append(e) }
            let dry = harmonics(filter: nil, events), wet = harmonics(filter: FilterSettings(), events)
            let expected = FilterSettings().cutoff(timbre: Double(value) / 127)
            let measured = FilterMeasure.minus3dB(wet: wet, dry: dry)
            print(String(format: "CC 74 = %d: cutoff %.0f Hz, −3 dB at %.0f Hz", value, expected, measured))
            XCTAssertEqual(measured / expected, 1, accuracy: 0.05, "CC 74 \(value)")
        }
    }

    /// `--y-map cutoff`: a pad touch's y is its cutoff, and its gain the pad's middle.
    func testPadYIsTheCutoffWithYMapCutoff() {
        let y = 0.62
        let events: [ControlEvent] = [.touch(id: 1, phase: .down, x: 0.5, y: y)]
        let dry = harmonics(filter: nil, events)
        let wet = harmonics(filter: FilterSettings(padYIsTimbre: true), events)
        let measured = FilterMeasure.minus3dB(wet: wet, dry: dry)
        XCTAssertEqual(measured / FilterSettings().cutoff(timbre: y), 1, accuracy: 0.05)
        // The lowest harmonic passes whole: its level is the fixed gain's, against y's.
        XCTAssertEqual(20 * log10(wet[0] / dry[0]), 20 * log10(PadYMap.cutoffGain / y), accuracy: 0.05)
    }

    /// A second finger dimension (`.timbre`, the web pad's force, a touchscreen's pressure)
    /// sets the cutoff of its touch.
    func testATouchsTimbreEventSetsItsCutoff() {
        let events: [ControlEvent] = [.touch(id: 1, phase: .down, x: 0.5, y: 1), .timbre(id: 1, value: 0.75)]
        let measured = FilterMeasure.minus3dB(wet: harmonics(filter: FilterSettings(), events), dry: harmonics(filter: nil, events))
        XCTAssertEqual(measured / FilterSettings().cutoff(timbre: 0.75), 1, accuracy: 0.05)
    }
}
