// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import XCTest
import BendLV2Host
import BendTestSupport
import CAllocCounter

/// bendsynth.lv2 in the test host (liblilv): MIDI in at frame offsets of random blocks,
/// at three rates; pitch, onsets, allocations in run().
final class LV2PluginTests: XCTestCase {
    func host(rate: Double, maxBlock: Int = 4096, folder: LV2TestFolder) throws -> LV2PluginHost {
        _ = try LV2Bundle.build()
        let h = try LV2PluginHost(uri: LV2Bundle.uri, lv2Path: LV2Bundle.path, rate: rate, maxBlock: maxBlock, stateFolder: folder.path)
        h["interpolation"] = 1  // cubic: no band-limited tables arriving from a thread mid-test
        return h
    }

    /// A note's pitch: 440·2^((n − 69 + bend)/12), within 0.1 %, through the plugin.
    func testNotesAndBendsSoundAtTheirPitch() throws {
        let folder = try LV2TestFolder()
        let h = try host(rate: 48_000, folder: folder)
        for (note, bend, semitones) in [(69, 8192, 0.0), (57, 8192, -12), (76, 16383, 7 + 2 * 8191 / 8192.0), (64, 0, -5 - 2)] {
            var out: [Float] = []
            h.midi([0xE0, UInt8(bend & 127), UInt8(bend >> 7)], at: 0)
            h.midi([0x90, UInt8(note), 100], at: 0)
            for _ in 0..<100 { out += h.runInterleaved(frames: 512) }
            h.midi([0x80, UInt8(note), 64], at: 0)
            for _ in 0..<10 { _ = h.runInterleaved(frames: 512) }
            let left = Array(Measure.channel(out, 0)[4800...])
            let expected = 440 * pow(2, semitones / 12)
            let hz = Measure.peakFrequency(left, rate: 48_000)
            XCTAssertEqual(hz, expected, accuracy: expected * 0.001, "note \(note), bend \(bend)")
            XCTAssertGreaterThan(Measure.dB(Measure.rms(left[...])), -30)
        }
    }

    /// At 44.1, 48 and 96 kHz, random blocks of 1…4096 frames, notes at random offsets:
    /// each note starts sounding the same number of frames after its event (the attack's
    /// and the limiter's look-ahead, measured on the first), whatever the block; nothing
    /// is heap-allocated in run() nor in the worker's work_response — a scale file set
    /// (patch:Set) and asked for (patch:Get) halfway through, answered on the output.
    func testOnsetsLandOnTheirFramesInRandomBlocksAtThreeRatesWithoutAllocating() throws {
        for rate in [44_100.0, 48_000, 96_000] {
            let folder = try LV2TestFolder()
            let h = try host(rate: rate, folder: folder)
            // 12-TET as a Scala file: the notes keep their pitch, the keys are swapped in.
            let scale = folder.url.appendingPathComponent("equal.scl").path
            try (["! equal.scl", "12-TET", " 12"] + (1...11).map { " \($0 * 100).0" } + [" 2/1"]).joined(separator: "\n")
                .appending("\n").write(toFile: scale, atomically: true, encoding: .utf8)
            var scaleSet = false
            var said: [String] = []
            h.aroundRun = { alloc_counter_watch_this_thread($0 ? 1 : 0) }
            var rng = SplitMix(seed: UInt64(rate))
            var out: [Float] = []
            var onsets: [Int] = []
            var nextNote = 1000
            alloc_counter_reset()
            while out.count / 2 < Int(rate) * 3 {
                let frames = 1 + Int(rng.next() % 4096)
                let start = out.count / 2
                // A note every ~0.1 s, each ended 20 ms later (silence between them).
                if nextNote < start + frames {
                    let offset = nextNote - start
                    h.midi([0x90, 69, 127], at: offset)
                    onsets.append(nextNote)
                    nextNote += Int(rate / 10) + Int(rng.next() % 500)
                }
                if let last = onsets.last, last + Int(rate / 50) >= start, last + Int(rate / 50) < start + frames {
                    h.midi([0x80, 69, 0], at: last + Int(rate / 50) - start)
                }
                if !scaleSet && start > Int(rate) * 3 / 2 {
                    h.setPath("urn:bendsynth:lv2:scale", to: scale, at: 0)
                    h.getParameters(at: frames - 1)
                    scaleSet = true
                }
                out += h.runInterleaved(frames: frames)
                said += h.pathsSet().filter { $0.property == "urn:bendsynth:lv2:scale" }.map(\.path)
            }
            XCTAssertEqual(alloc_counter_count(), 0, "heap allocations in run() and work_response at \(rate) Hz")
            XCTAssertEqual(said.first, scale, "the scale loaded by the worker, swapped in by work_response")
            let left = Measure.channel(out, 0)
            var delays: [Int] = []
            for onset in onsets where onset + Int(rate / 20) < left.count {
                guard let first = (onset..<(onset + Int(rate / 20))).first(where: { left[$0] != 0 }) else { XCTFail("silent note"); continue }
                XCTAssertTrue(left[(onset - 200)..<onset].allSatisfy { $0 == 0 }, "silence before the note")
                delays.append(first - onset)
            }
            XCTAssertGreaterThan(delays.count, 20)
            XCTAssertEqual(Set(delays).count, 1, "every onset the same frames after its event at \(rate) Hz: \(delays)")
            // The look-ahead: the plugin reports it as its latency.
            XCTAssertEqual(Double(delays[0]), Double(h["latency"]), accuracy: 1, "at \(rate) Hz")
        }
    }
}
