// SPDX-License-Identifier: GPL-3.0-or-later
import XCTest
import BendEngine
import BendTestSupport

/// The voice limit (`Mixer.setVoiceLimit`, the LV2 plugin's `voices` port): a mixer
/// allocated for 16 voices, limited to fewer while it plays. The touch beyond the limit
/// steals the oldest voice (it is no longer heard, the count and level stay at the
/// limit's); raising the limit lets more sound without stealing; a limit above the
/// voices allocated is theirs.
final class VoiceLimitTests: XCTestCase {
    let rate = 48_000.0
    /// Touch k: a sine (0.5 amplitude) at ratio 0.5 + 0.125·k — 220, 247.5, … Hz, gain 0.2.
    func down(_ h: RenderHarness, _ k: Int, at frame: UInt64) -> EngineEvent {
        EngineEvent(frame: frame, kind: .down, key: h.key(UInt32(k)), value: 0.5 + 0.125 * Float(k) / 2, gain: 0.2)
    }

    func hz(_ k: Int) -> Double { 440 * (0.5 + 0.125 * Double(k) / 2) }

    /// The touches heard in `out` (an FFT peak within 2 Hz of their pitch), of `0..<count`.
    func heard(_ out: [Float], of count: Int) -> [Int] {
        let peaks = Measure.peaks(Array(Measure.channel(out, 0)[4_800...]), rate: rate, floorDB: -20)
        return (0..<count).filter { k in peaks.contains { abs($0 - hz(k)) < 2 } }
    }

    /// Left channel RMS of `n` sines of amplitude 0.5·0.2 at different pitches, panned to
    /// the centre (−3.01 dB each side): √(n·0.1²/2·½).
    func level(_ n: Int) -> Double { (Double(n) * 0.01 / 4).squareRoot() }

    func testTheTouchBeyondTheLimitStealsAndTheLimitChangesWhilePlaying() {
        let h = RenderHarness(voices: 16, period: 256, tone: Measure.sineTone())
        defer { h.free() }
        h.mixer.setVoiceLimit(4)
        // Five touches held, 100 frames apart: the fifth steals the first's voice.
        var out = h.render(frames: 24_000, events: (0..<5).map { down(h, $0, at: UInt64(100 * $0)) })
        XCTAssertEqual(h.mixer.activeVoices, 4)
        XCTAssertEqual(heard(out, of: 5), [1, 2, 3, 4], "the oldest touch was stolen")
        XCTAssertEqual(Measure.rms(Measure.channel(out, 0)[4_800...]), level(4), accuracy: level(4) * 0.02)

        // Raised to 8 while they sound: four more touches start without stealing.
        h.mixer.setVoiceLimit(8)
        let at = h.mixer.position
        out = h.render(frames: 24_000, events: (5..<9).map { down(h, $0, at: at + UInt64(100 * ($0 - 5))) })
        XCTAssertEqual(h.mixer.activeVoices, 8)
        XCTAssertEqual(heard(out, of: 9), [1, 2, 3, 4, 5, 6, 7, 8])
        XCTAssertEqual(Measure.rms(Measure.channel(out, 0)[4_800...]), level(8), accuracy: level(8) * 0.02)

        // Above the 16 allocated: 16 sound, the 17th steals.
        h.mixer.setVoiceLimit(1024)
        let later = h.mixer.position
        out = h.render(frames: 24_000, events: (9..<18).map { down(h, $0, at: later + UInt64(100 * ($0 - 9))) })
        XCTAssertEqual(h.mixer.activeVoices, 16)
        XCTAssertEqual(heard(out, of: 18), Array(2..<18), "touch 1, the oldest left, was stolen by touch 17")
    }
}
