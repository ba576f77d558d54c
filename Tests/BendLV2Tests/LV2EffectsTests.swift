// SPDX-License-Identifier: GPL-3.0-or-later
import XCTest
import BendLV2Host
import BendTestSupport

/// The send effects' control ports in a host: a note's reverb rings on after its
/// note-off at the send port's level, for the decay port's time; at send 0 the output is
/// the dry one.
final class LV2EffectsTests: XCTestCase {
    /// A note for 0.25 s, then 1.5 s after its note-off; the output's left channel.
    func play(_ ports: [String: Float]) throws -> [Float] {
        _ = try LV2Bundle.build()
        let folder = try LV2TestFolder()
        let h = try LV2PluginHost(uri: LV2Bundle.uri, lv2Path: LV2Bundle.path, rate: 48_000, maxBlock: 1024, stateFolder: folder.path)
        h["interpolation"] = 1
        for (k, v) in ports { h[k] = v }
        var out: [Float] = []
        h.midi([0x90, 69, 100], at: 0)
        for b in 0..<84 {
            if b == 12 { h.midi([0x80, 69, 0], at: 0) }
            out += h.runInterleaved(frames: 1024)
        }
        return Measure.channel(out, 0)
    }

    func testTheReverbSendPortRingsOnAfterTheNoteAndSendZeroIsDry() throws {
        let dry = try play([:])
        let wet = try play(["reverb_send": 0.5, "reverb_decay": 3])
        let short = try play(["reverb_send": 0.5, "reverb_decay": 0.5])
        // 0.5 s after the note-off (12·1024 frames + release): the dry output is silent.
        let after = (12 * 1024 + 24_000)..<(12 * 1024 + 36_000)
        let level = { (x: [Float]) in Measure.dB(Measure.rms(x[after])) }
        print("LV2 reverb ports: 0.5 s after the note-off dry \(level(dry)) dB, decay 3 s \(level(wet)) dB, decay 0.5 s \(level(short)) dB")
        XCTAssertLessThan(level(dry), -120, "send 0: no tail")
        XCTAssertGreaterThan(level(wet), -45, "a 3 s reverb rings on")
        // A 0.5 s decay falls 60 dB in 0.5 s: about 50 dB below the 3 s one 0.5 s on.
        XCTAssertLessThan(level(short), level(wet) - 30, "the decay port sets the tail's length")
        XCTAssertEqual(Array(dry[0..<(12 * 1024)]), Array(try play(["reverb_decay": 7, "delay_feedback": 0.9])[0..<(12 * 1024)]),
                       "effect settings without a send change nothing")
    }
}
