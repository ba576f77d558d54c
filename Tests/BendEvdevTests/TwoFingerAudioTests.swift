// SPDX-License-Identifier: GPL-3.0-or-later
import BendEngine
import BendInstrument
import BendEvdev
import BendTestSupport
import XCTest

/// Two fingers from a recording, through the decoder and the real engine: both tones
/// sound at the pitches their x positions ask for.
final class TwoFingerAudioTests: XCTestCase {
    func testTwoFingersSoundAtTheirPitches() throws {
        let rate = 48_000.0
        // A pure 440 Hz loop (1 s, whole cycles), so no harmonic can pose as a finger.
        let sine = (0..<48_000).map { Float(0.5 * sin(2 * Double.pi * 440 * Double($0) / rate)) }
        let tone = ToneTable(samples: sine, rate: rate)
        defer { tone.deallocate() }
        // Fingers at x 0.25 and 0.75 (250 and 750 of 0…1000): ratios 0.5 and 1.5 → 220 and 660 Hz.
        let script = EvdevReplay.script(try Recordings.fixture("two-fingers-one-frame.evemu"))
        XCTAssertEqual(script.entries.count, 6)
        let out = OfflineRenderer.renderToBuffer(script: script, tone: tone, voices: 8, pitchMap: .linear, periodFrames: 64)
        let left = Measure.channel(out, 0), right = Measure.channel(out, 1)
        // 0.1…0.5 s: both held after the move.
        let window = Array(left[4_800..<24_000])
        let peaks = Measure.peaks(window, rate: rate, floorDB: -20)
        XCTAssertEqual(peaks.count, 2, "\(peaks)")
        let sorted = peaks.prefix(2).sorted()
        XCTAssertEqual(sorted[0], 220, accuracy: 220 * 0.01)
        XCTAssertEqual(sorted[1], 660, accuracy: 660 * 0.01)
        XCTAssertEqual(left, right, "no tilt: centre pan")
        // Both lift at 0.5 s: the render (which ends once no voice sounds) ends within
        // the 8 ms release and a period after.
        XCTAssertLessThan(left.count, 24_000 + 384 + 64 + 64)
        XCTAssertGreaterThan(Measure.dB(Measure.rms(window[...])), -30)
    }
}
