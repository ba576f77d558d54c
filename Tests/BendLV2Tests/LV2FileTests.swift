// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import XCTest
import BendLV2Host
import BendTestSupport

/// The scale parameter (patch:Set of an atom:Path, patch:writable) loaded by the worker
/// and swapped in on the audio thread; a file that does not load; state saved, the
/// plugin destroyed and made again, state restored.
final class LV2FileTests: XCTestCase {
    let scaleURI = "urn:bendsynth:lv2:scale"
    let errorURI = "http://lv2plug.in/ns/ext/log#Error"

    func host(folder: LV2TestFolder) throws -> LV2PluginHost {
        _ = try LV2Bundle.build()
        let h = try LV2PluginHost(uri: LV2Bundle.uri, lv2Path: LV2Bundle.path, rate: 48_000, maxBlock: 1024, stateFolder: folder.path)
        h["interpolation"] = 1  // cubic: deterministic (no tables arriving from a thread)
        return h
    }

    /// A 12-step scale whose step 1 is 150 cents (12-TET's is 100): key 70 plays it.
    func writeScale(in folder: LV2TestFolder) throws -> String {
        let path = folder.url.appendingPathComponent("wide.scl").path
        let steps = ["150.0", "200.0", "300.0", "400.0", "500.0", "600.0", "700.0", "800.0", "900.0", "1000.0", "1100.0", "2/1"]
        try (["! wide.scl", "A wide second", " 12"] + steps.map { " " + $0 }).joined(separator: "\n").appending("\n")
            .write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// The pitch of 0.5 s of left channel.
    func pitch(_ h: LV2PluginHost) -> Double {
        var out: [Float] = []
        for _ in 0..<24 { out += h.runInterleaved(frames: 1024) }
        return Measure.peakFrequency(Array(Measure.channel(out, 0)[4800...]), rate: 48_000)
    }

    func testAScaleFileSetWhilePlayingRetunesTheHeldNoteAndIsSaidOnTheOutput() throws {
        let folder = try LV2TestFolder()
        let h = try host(folder: folder)
        let scale = try writeScale(in: folder)
        h.midi([0x90, 70, 100], at: 0)
        XCTAssertEqual(pitch(h), 440 * pow(2, 1.0 / 12), accuracy: 0.5, "12-TET before")
        h.setPath(scaleURI, to: scale, at: 10)
        _ = h.runInterleaved(frames: 1024)   // the request; the worker answers after the block
        _ = h.runInterleaved(frames: 1024)   // the scale in use, said on the output
        let said = h.pathsSet()
        XCTAssertEqual(said.map(\.property), [scaleURI])
        XCTAssertEqual(said.map(\.path), [scale])
        XCTAssertEqual(pitch(h), 440 * pow(2, 150.0 / 1200), accuracy: 0.5, "the held note follows the scale")
        // patch:Get: the scale in use (beside the tone in use: LV2ToneTests).
        h.getParameters(at: 5)
        _ = h.runInterleaved(frames: 256)
        let scales = h.pathsSet().filter { $0.property == scaleURI }
        XCTAssertEqual(scales.map(\.path), [scale])
        XCTAssertEqual(scales.map(\.frame), [5])
    }

    /// Issue 38: an Ableton `.ascl` (12-TET, `! @ABL REFERENCE_PITCH 4 9 452.0`) plays its
    /// own reference pitch while the scale root port is 0: A4 at 452 Hz, so the held A#4 at
    /// 452·2^(1/12); a scale root of 440 Hz puts the root back at 440 Hz on the tone's key.
    func testAnAbletonScaleFilePlaysItsReferencePitch() throws {
        let folder = try LV2TestFolder()
        let h = try host(folder: folder)
        let path = folder.url.appendingPathComponent("a452.ascl").path
        try (["12-TET, A4 = 452 Hz", " 12"] + (1...11).map { " \($0 * 100).0" } + [" 2/1", "! @ABL REFERENCE_PITCH 4 9 452.0"])
            .joined(separator: "\n").appending("\n").write(toFile: path, atomically: true, encoding: .utf8)
        h.midi([0x90, 70, 100], at: 0)
        h.setPath(scaleURI, to: path, at: 10)
        _ = h.runInterleaved(frames: 1024)
        _ = h.runInterleaved(frames: 1024)
        XCTAssertEqual(h.pathsSet().map(\.path), [path])
        XCTAssertEqual(pitch(h), 452 * pow(2, 1.0 / 12), accuracy: 0.5, "the held A#4 over A4 = 452 Hz")
        h["scale_root"] = 440
        _ = h.runInterleaved(frames: 1024)
        _ = h.runInterleaved(frames: 1024)
        XCTAssertEqual(pitch(h), 440 * pow(2, 1.0 / 12), accuracy: 0.5, "a scale root given: the root at it on the tone's key")
    }

    func testAScaleThatDoesNotLoadLeavesTheTuningAndLogsTheFileAndWhy() throws {
        let folder = try LV2TestFolder()
        let h = try host(folder: folder)
        let scale = try writeScale(in: folder)
        h.setPath(scaleURI, to: scale, at: 0)
        _ = h.runInterleaved(frames: 256)
        h.midi([0x90, 70, 100], at: 0)
        let before = pitch(h)
        XCTAssertEqual(before, 440 * pow(2, 150.0 / 1200), accuracy: 0.5)
        let missing = folder.url.appendingPathComponent("missing.scl").path
        let broken = folder.url.appendingPathComponent("broken.scl").path
        try "! broken\nno count here\n".write(toFile: broken, atomically: true, encoding: .utf8)
        for (path, reason) in [(missing, "no such file"), (broken, "broken.scl:3: expected the number of pitches")] {
            h.clearLog()
            h.setPath(scaleURI, to: path, at: 0)
            _ = h.runInterleaved(frames: 256)
            XCTAssertEqual(pitch(h), before, accuracy: 0.01, "the tuning in use plays on")
            let errors = h.log(type: errorURI)
            XCTAssertTrue(errors.contains(path), errors)
            XCTAssertTrue(errors.contains(reason), errors)
        }
    }

    /// Saved with a scale and settings, the plugin freed, a new one (another host)
    /// restored: the same MIDI gives the same output, byte for byte.
    func testStateRestoredIntoANewInstancePlaysTheSameOutputByteForByte() throws {
        let folder = try LV2TestFolder()
        let scale = try writeScale(in: folder)
        func play(_ h: LV2PluginHost) -> [Float] {
            var out: [Float] = []
            h.midi([0x90, 70, 100], at: 17)
            h.midi([0x90, 74, 90], at: 300)
            for b in 0..<40 {
                if b == 20 { h.midi([0xE0, 0, 80], at: 33) }
                out += h.runInterleaved(frames: 512)
            }
            return out
        }
        var saved = ""
        var first: [Float] = []
        do {
            let h = try host(folder: folder)
            h["gain"] = -6
            h["bend_range"] = 7
            h["tone_note"] = 57
            h.setPath(scaleURI, to: scale, at: 0)
            _ = h.runInterleaved(frames: 256)
            saved = try h.saveState()
            XCTAssertTrue(saved.contains("wide.scl"), saved)
        }
        do {
            let h = try host(folder: folder)
            h["gain"] = -6; h["bend_range"] = 7; h["tone_note"] = 57
            h.setPath(scaleURI, to: scale, at: 0)
            _ = h.runInterleaved(frames: 256)
            first = play(h)
        }
        let restored = try host(folder: folder)
        try restored.restoreState(saved)
        XCTAssertEqual(restored["gain"], -6)
        XCTAssertEqual(restored["tone_note"], 57)
        _ = restored.runInterleaved(frames: 256)
        let again = play(restored)
        XCTAssertGreaterThan(Measure.rms(Measure.channel(first, 0)[...]), 0.01)
        XCTAssertEqual(again, first, "the restored instance plays the same samples")
    }

    /// lilv restores the plugin's state before it sets the control ports: the keys of a
    /// restored scale are made for the tone note saved with it (62, D4: the scale's root),
    /// not the port's old value (69), so a note in the very first block after the restore
    /// sounds as in an instance tuned live, sample for sample (key 70 is step 8 above
    /// D4, 800 cents; made on A4 it would be step 1, 150 cents above A4).
    func testTheFirstBlockAfterARestorePlaysTheRestoredTuning() throws {
        let folder = try LV2TestFolder()
        let scale = try writeScale(in: folder)
        func play(_ h: LV2PluginHost) -> [Float] {
            h.midi([0x90, 70, 100], at: 0)
            return (0..<8).flatMap { _ in h.runInterleaved(frames: 1024) }
        }
        let live = try host(folder: folder)
        live["tone_note"] = 62
        live.setPath(scaleURI, to: scale, at: 0)
        _ = live.runInterleaved(frames: 256)
        let saved = try live.saveState()
        let expected = play(live)
        // Ratio 2^(800/1200) to the tone's note: the A4 tone, declared D4, sounds 800 cents above A4.
        XCTAssertEqual(Measure.peakFrequency(Array(Measure.channel(expected, 0)[2048...]), rate: 48_000), 440 * pow(2, 8.0 / 12),
                       accuracy: 1.5, "key 70: step 8 of the scale on D4")

        let restored = try host(folder: folder)
        _ = restored.runInterleaved(frames: 256)  // playing (tone note 69) when the session's state comes
        try restored.restoreState(saved)
        XCTAssertEqual(restored["tone_note"], 62)
        let first = play(restored)
        XCTAssertTrue(first[0..<2048] == expected[0..<2048], "the first block after the restore differs: worst \(worst(first[0..<2048], expected[0..<2048]))")
        XCTAssertTrue(first == expected, "the blocks after it differ: worst \(worst(first[...], expected[...]))")
    }

    /// The largest difference between two takes, dBFS (without printing them).
    func worst(_ a: ArraySlice<Float>, _ b: ArraySlice<Float>) -> String {
        let d = zip(a, b).map { abs($0 - $1) }.max() ?? 0
        return String(format: "%.1f dBFS", Measure.dB(Double(max(d, 1e-12))))
    }
}
