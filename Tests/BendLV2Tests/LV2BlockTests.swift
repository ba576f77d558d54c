// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import XCTest
import BendLV2Host
import BendTestSupport

/// The edges of what a host may give the plugin: the lowest and highest sample rates
/// (22.05 and 192 kHz: the tone's tables made there), an 8192-frame block (the largest
/// bufsz:boundedBlockLength the plugin takes), and a host that promises no block length
/// at all (no options:options, no bufsz:maxBlockLength).
final class LV2BlockTests: XCTestCase {
    func host(rate: Double = 48_000, maxBlock: Int, blockOptions: Bool = true, folder: LV2TestFolder) throws -> LV2PluginHost {
        _ = try LV2Bundle.build()
        let h = try LV2PluginHost(uri: LV2Bundle.uri, lv2Path: LV2Bundle.path, rate: rate, maxBlock: maxBlock, stateFolder: folder.path,
                                  blockOptions: blockOptions)
        h["interpolation"] = 1  // cubic: no band-limited tables arriving from a thread mid-test
        return h
    }

    /// Runs `blocks` (frame counts) with `events` (MIDI at stream frames) each in the
    /// block holding its frame; returns the interleaved output.
    func play(_ h: LV2PluginHost, blocks: [Int], events: [(frame: Int, bytes: [UInt8])]) -> [Float] {
        var out: [Float] = []
        var start = 0
        for frames in blocks {
            for e in events where e.frame >= start && e.frame < start + frames { h.midi(e.bytes, at: e.frame - start) }
            out += h.runInterleaved(frames: frames)
            start += frames
        }
        return out
    }

    /// A note's pitch, 440·2^((n − 69)/12) within 0.1 %, at 22 050 and 192 000 Hz.
    func testNotesSoundAtTheirPitchAt22050And192000Hz() throws {
        for rate in [22_050.0, 192_000] {
            let folder = try LV2TestFolder()
            let h = try host(rate: rate, maxBlock: 1024, folder: folder)
            for note in [57, 76] {
                let second = Int(rate)
                let out = play(h, blocks: Array(repeating: 1000, count: second / 1000 + 2),
                               events: [(100, [0x90, UInt8(note), 100]), (second, [0x80, UInt8(note), 0])])
                let left = Array(Measure.channel(out, 0)[(second / 10)..<second])
                let expected = 440 * pow(2, Double(note - 69) / 12)
                XCTAssertEqual(Measure.peakFrequency(left, rate: rate), expected, accuracy: expected * 0.001, "note \(note) at \(rate) Hz")
                XCTAssertGreaterThan(Measure.dB(Measure.rms(left[...])), -30, "note \(note) at \(rate) Hz")
            }
        }
    }

    /// The same notes in 8192-frame blocks, and from a host that gives no block length
    /// (random blocks of 1…8192 frames), as in 64-frame blocks: within −120 dBFS (the
    /// float rounding of sums split at other frames; a misplaced event or a lost block
    /// would be a whole note's level).
    func testAnEightThousandFrameBlockAndAHostWithoutBlockLengthsRenderAsSmallBlocks() throws {
        let events: [(frame: Int, bytes: [UInt8])] = [
            (5_000, [0x90, 69, 100]), (9_000, [0x90, 76, 80]), (12_345, [0xE0, 0, 80]),
            (20_000, [0x80, 69, 0]), (30_001, [0x80, 76, 0]), (30_500, [0x90, 57, 110]), (40_000, [0x80, 57, 0]),
        ]
        let total = 6 * 8192
        let folder = try LV2TestFolder()
        let small = play(try host(maxBlock: 64, folder: folder), blocks: Array(repeating: 64, count: total / 64), events: events)
        let large = play(try host(maxBlock: 8192, folder: folder), blocks: Array(repeating: 8192, count: 6), events: events)
        var rng = SplitMix(seed: 8192)
        var blocks: [Int] = [8192]
        while blocks.reduce(0, +) < total { blocks.append(min(1 + Int(rng.next() % 8192), total - blocks.reduce(0, +))) }
        let unbounded = try host(maxBlock: 8192, blockOptions: false, folder: folder)
        let free = play(unbounded, blocks: blocks, events: events)

        let left = Measure.channel(small, 0)
        XCTAssertEqual(Measure.peakFrequency(Array(left[6_000..<9_000]), rate: 48_000), 440, accuracy: 0.44 * 2, "A4 sounds")
        XCTAssertEqual(left[0..<5_000].reduce(0) { max($0, abs($1)) }, 0, "nothing before the first note's frame")
        // Glides and envelopes summed in other runs of frames round differently: −140 dBFS.
        XCTAssertLessThan(worst(large, small), -120, "8192-frame blocks: \(difference(large, small))")
        XCTAssertLessThan(worst(free, small), -120, "no bufsz:maxBlockLength, blocks of 1…8192 frames: \(difference(free, small))")
        XCTAssertEqual(unbounded.log(type: "http://lv2plug.in/ns/ext/log#Error"), "")
    }

    /// The largest difference between two takes of the same length, dBFS (+∞ otherwise).
    func worst(_ a: [Float], _ b: [Float]) -> Double {
        guard a.count == b.count else { return .infinity }
        return Measure.dB(Double(max(zip(a, b).map { abs($0 - $1) }.max() ?? 0, 1e-12)))
    }

    /// Where two takes first differ and by how much at most (without printing them).
    func difference(_ a: [Float], _ b: [Float]) -> String {
        guard a.count == b.count else { return "\(a.count) against \(b.count) samples" }
        let first = a.indices.first { a[$0] != b[$0] }.map { "first at frame \($0 / 2)" } ?? "none"
        return String(format: "%@, worst %.1f dBFS", first, worst(a, b))
    }
}
