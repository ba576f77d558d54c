// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import XCTest
import BendLV2Host
import BendTestSupport

/// Tuning messages through the plugin (liblilv test host): the MIDI input's SysEx and
/// RPNs retune the notes that follow, as `play --midi-in` does (JACKTuningTests).
final class LV2TuningTests: XCTestCase {
    /// The frequency of the strongest peak within ±3 % of `hz` (Hann, parabolic).
    func peak(near hz: Double, _ samples: [Float], rate: Double = 48_000) -> Double {
        let (mags, size) = Measure.spectrum(samples)
        let lo = Int(hz * 0.97 * Double(size) / rate), hi = Int(hz * 1.03 * Double(size) / rate) + 1
        var best = lo
        for i in lo...hi where mags[i] > mags[best] { best = i }
        let a = log(mags[best - 1]), b = log(mags[best]), c = log(mags[best + 1])
        let d = a - 2 * b + c
        return (Double(best) + (d == 0 ? 0 : 0.5 * (a - c) / d)) * rate / Double(size)
    }

    /// Each case: the messages sent at frame 0 of a block, then key 69 on `channel` at
    /// frame 100 of the same block; 0.3 s of it from 0.1 s in sounds at `hz` (±1 cent).
    /// MTS scale/octave (2-byte form, channel 1: A −40 cents), RPN 1 on channel 2 (+50
    /// cents), RPN 2 on channel 3 (−5 semitones), master coarse tuning (+1 semitone, every
    /// channel), then master fine tuning (−25 cents) over it.
    func testTuningMessagesRetuneTheNotesThatFollow() throws {
        _ = try LV2Bundle.build()
        let folder = try LV2TestFolder()
        let h = try LV2PluginHost(uri: LV2Bundle.uri, lv2Path: LV2Bundle.path, rate: 48_000, maxBlock: 1024, stateFolder: folder.path)
        h["interpolation"] = 1  // cubic: deterministic (no tables arriving from a thread)
        func cents(_ c: Double) -> Double { 440 * pow(2, c / 1200) }
        // 2-byte MTS: 14 bits a pitch class, 0x2000 = 0; A: 8192 − 40·8192/100 = 4915.2 → 4915.
        let a = 8192 - 3277
        var scaleOctave: [UInt8] = [0xF0, 0x7E, 0x7F, 0x08, 0x09, 0x00, 0x00, 0x01]
        for k in 0..<12 { let v = k == 9 ? a : 8192; scaleOctave += [UInt8(v >> 7), UInt8(v & 0x7F)] }
        scaleOctave.append(0xF7)
        let cases: [(messages: [[UInt8]], channel: UInt8, hz: Double)] = [
            ([scaleOctave], 0, cents(Double(a - 8192) * 100 / 8192)),
            ([[0xB1, 101, 0], [0xB1, 100, 1], [0xB1, 6, 96], [0xB1, 38, 0]], 1, cents(50)),
            ([[0xB2, 101, 0], [0xB2, 100, 2], [0xB2, 6, 59]], 2, cents(-500)),
            ([[0xF0, 0x7F, 0x7F, 0x04, 0x04, 0x00, 65, 0xF7]], 3, cents(100)),
            ([[0xF0, 0x7F, 0x7F, 0x04, 0x03, 0x00, 48, 0xF7]], 4, cents(100 - 25)),  // 48·128 = 6144: −25 cents
        ]
        for (messages, channel, hz) in cases {
            for m in messages { h.midi(m, at: 0) }
            h.midi([0x90 | channel, 69, 100], at: 100)
            var out: [Float] = []
            for _ in 0..<24 { out += h.runInterleaved(frames: 1024) }
            h.midi([0x80 | channel, 69, 64], at: 0)
            for _ in 0..<20 { _ = h.runInterleaved(frames: 1024) }
            let left = Array(Measure.channel(out, 0)[(100 + 4_800)..<(100 + 4_800 + 14_400)])
            let got = peak(near: hz, left)
            XCTAssertEqual(1200 * log2(got / hz), 0, accuracy: 1, "channel \(channel + 1): \(hz) Hz, got \(got) Hz")
        }
    }
}
