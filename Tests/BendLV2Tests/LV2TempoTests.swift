// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import XCTest
import BendLV2Host
import BendTestSupport

/// The host's transport in the plugin (issue 36, "Host"): a time:Position forged by the
/// test host retimes the arpeggiator at that event's frame and the delay's note value.
/// The tone is a square wave whose first sample is +0.5 and the limiter is off, so a
/// note's first non-zero sample after a gap is the frame it starts on.
final class LV2TempoTests: XCTestCase {
    let toneURI = "urn:bendsynth:lv2:tone"
    var folder: LV2TestFolder!
    override func setUpWithError() throws { folder = try LV2TestFolder() }
    override func tearDown() { folder = nil }

    /// The plugin with the square tone loaded and `ports` set (two blocks run).
    func host(_ ports: [String: Float]) throws -> LV2PluginHost {
        _ = try LV2Bundle.build()
        let h = try LV2PluginHost(uri: LV2Bundle.uri, lv2Path: LV2Bundle.path, rate: 48_000, maxBlock: 1024, stateFolder: folder.path)
        h["interpolation"] = 1
        h["limiter"] = 0
        for (k, v) in ports { h[k] = v }
        let square = folder.url.appendingPathComponent("square.wav").path
        writeSoundFile(square, (0..<48_000).map { $0 % 100 < 50 ? Float(0.5) : -0.5 }, rate: 48_000)
        h.setPath(toneURI, to: square, at: 0)
        _ = h.runInterleaved(frames: 1024)
        _ = h.runInterleaved(frames: 1024)
        return h
    }

    /// Frames (from the first block after `host`, less the plugin's 47-frame latency: the
    /// limiter's look-ahead, kept when it is off) where a note starts in either channel: a
    /// frame above −120 dBFS after at least 64 below (the delay's filters leave 1e-20).
    func onsets(_ interleaved: [Float]) -> [Int] {
        var out: [Int] = [], zeros = 64
        for i in 0..<(interleaved.count / 2) {
            if abs(interleaved[2 * i]) < 1e-6 && abs(interleaved[2 * i + 1]) < 1e-6 { zeros += 1; continue }
            if zeros >= 64 { out.append(i - 47) }
            zeros = 0
        }
        return out
    }

    /// `blocks` blocks of 1024 frames; `before(b)` queues block b's events.
    func play(_ h: LV2PluginHost, blocks: Int, before: (Int) -> Void = { _ in }) -> [Float] {
        (0..<blocks).flatMap { b -> [Float] in before(b); return h.runInterleaved(frames: 1024) }
    }

    /// A chord held, the arpeggiator up at 1/16 on the host's 90 BPM: a step every 8000
    /// frames; the host's tempo changes to 150 BPM at frame 20 000 (block 19, offset 544:
    /// beat 0.625 there): the next step at beat 0.75 is 2400 frames on (22 400), then every
    /// 4800. Without a position the plugin's internal 120 BPM would step every 6000.
    func testTheHostsTempoRetimesTheArpeggiatorAtItsFrame() throws {
        let h = try host(["arp": 1, "arp_rate": 4])
        let out = play(h, blocks: 40) { b in
            if b == 0 {
                h.position(bpm: 90, at: 0)
                for n: UInt8 in [60, 64, 67] { h.midi([0x90, n, 100], at: 0) }
            }
            if b == 19 { h.position(bpm: 150, barBeat: 0.625, at: 20_000 - 19 * 1024) }
        }
        XCTAssertEqual(onsets(out), [0, 8_000, 16_000, 22_400, 27_200, 32_000, 36_800])
    }

    /// A locate: the host says it is at bar 2, beat 0.875 (beat 8.875 in 4/4) at frame 30 000,
    /// where the grid was at beat 1.25. On dotted eighths (0.75 beat, 18 000 frames at 120
    /// BPM) the next step is beat 9, 0.125 beat (3000 frames) on; a plugin that read the
    /// bar beat alone would put it at beat 1.5, 15 000 frames on.
    func testTheArpeggiatorFollowsALocate() throws {
        let h = try host(["arp": 1, "arp_rate": 2])
        let out = play(h, blocks: 40) { b in
            if b == 0 {
                h.position(bpm: 120, at: 0)
                h.midi([0x90, 60, 100], at: 0)
            }
            if b == 29 { h.position(bpm: 120, bar: 2, barBeat: 0.875, at: 30_000 - 29 * 1024) }
        }
        XCTAssertEqual(onsets(out), [0, 18_000, 33_000])
    }

    /// A stopped transport (speed 0) at 90 BPM: the arpeggio starts on the note (no beat to
    /// wait for) and steps at the host's tempo (a sixteenth every 8000 frames, not the
    /// internal 120 BPM's 6000).
    func testAStoppedTransportStillSetsTheTempo() throws {
        let h = try host(["arp": 1, "arp_rate": 4])
        let out = play(h, blocks: 24) { b in
            if b == 0 {
                h.position(bpm: 90, speed: 0, at: 0)
                h.midi([0x90, 60, 100], at: 0)
            }
        }
        XCTAssertEqual(onsets(out), [0, 8_000, 16_000, 24_000])
    }

    /// `delay_sync` 1/4: a 50 ms note's echo comes a quarter of the host's tempo after it,
    /// 28 800 frames at 100 BPM, 19 200 at 150 (a plain `delay_time` of 375 ms stays 18 000).
    func testTheDelaysNoteValueFollowsTheHostsTempo() throws {
        func echo(bpm: Float, sync: Float) throws -> [Int] {
            let h = try host(["delay_send": 1, "delay_feedback": 0, "delay_sync": sync])
            let out = play(h, blocks: 40) { b in
                if b == 0 {
                    h.position(bpm: bpm, at: 0)
                    h.midi([0x90, 60, 100], at: 0)
                }
                if b == 2 { h.midi([0x80, 60, 0], at: 352) }  // frame 2400: 50 ms
            }
            return onsets(out)
        }
        for (bpm, sync, expected) in [(Float(100), Float(1), 28_800), (150, 1, 19_200), (100, 0, 18_000)] {
            let starts = try echo(bpm: bpm, sync: sync)
            XCTAssertEqual(starts.count, 2, "\(bpm) BPM, delay_sync \(sync): \(starts)")
            if starts.count == 2 { XCTAssertEqual(starts[1] - starts[0], expected, accuracy: 2, "\(bpm) BPM, delay_sync \(sync)") }
        }
    }
}
