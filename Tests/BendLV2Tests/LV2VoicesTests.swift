// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import XCTest
import BendLV2Host
import BendTestSupport

/// The `voices` control port: the plugin's polyphony while it plays (1…1024, default
/// 64). Notes are held one by one; at a limit of N the N+1th steals the oldest (its
/// pitch leaves the output); raised, more sound at once.
final class LV2VoicesTests: XCTestCase {
    /// Notes 60…68 (within a sixth: no note's harmonic is another's fundamental).
    func hz(_ note: Int) -> Double { 440 * pow(2, Double(note - 69) / 12) }

    /// The held notes heard in 0.5 s of output: an FFT peak within 2 Hz of the note's pitch.
    func heard(_ h: LV2PluginHost, of notes: ClosedRange<Int>) -> [Int] {
        var out: [Float] = []
        for _ in 0..<30 { out += h.runInterleaved(frames: 1024) }
        let peaks = Measure.peaks(Array(Measure.channel(out, 0)[6_144...]), rate: 48_000, floorDB: -30)
        return notes.filter { n in peaks.contains { abs($0 - hz(n)) < 2 } }
    }

    func testTheVoicesPortLimitsTheNotesSoundingAtOnce() throws {
        _ = try LV2Bundle.build()
        let folder = try LV2TestFolder()
        let h = try LV2PluginHost(uri: LV2Bundle.uri, lv2Path: LV2Bundle.path, rate: 48_000, maxBlock: 1024, stateFolder: folder.path)
        h["interpolation"] = 1
        h["limiter"] = 0  // linear: no limiter gain riding on the notes (its products would be peaks)
        XCTAssertEqual(h["voices"], 64, "the default")
        h["voices"] = 4
        for (i, note) in (60...64).enumerated() { h.midi([0x90, UInt8(note), 90], at: 100 * i) }
        XCTAssertEqual(heard(h, of: 60...68), [61, 62, 63, 64], "the fifth note stole the first's voice")
        h["voices"] = 8
        for (i, note) in (65...68).enumerated() { h.midi([0x90, UInt8(note), 90], at: 100 * i) }
        XCTAssertEqual(heard(h, of: 60...68), [61, 62, 63, 64, 65, 66, 67, 68], "raised to 8: four more, none stolen")
        h["voices"] = 2
        h.midi([0x90, 72, 90], at: 0)
        XCTAssertEqual(heard(h, of: 60...68), [62, 63, 64, 65, 66, 67, 68],
                       "lowered below those sounding: none is cut, a new note steals the oldest")
    }
}
