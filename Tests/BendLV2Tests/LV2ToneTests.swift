// SPDX-License-Identifier: GPL-3.0-or-later
import CAllocCounter
import Foundation
import XCTest
import BendLV2Host
import BendTestSupport

/// The tone parameter (patch:Set of an atom:Path, patch:writable): a tone file or an SFZ
/// instrument loaded by the worker and handed to the mixer without a lock — held notes
/// keep the tone they started on, new notes play the new one; a file that does not load;
/// the state saved and restored; the tones the mixer gives back freed by the worker, with
/// nothing allocated in run().
final class LV2ToneTests: XCTestCase {
    let toneURI = "urn:bendsynth:lv2:tone"
    let errorURI = "http://lv2plug.in/ns/ext/log#Error"
    var folder: LV2TestFolder!
    override func setUpWithError() throws { folder = try LV2TestFolder() }
    override func tearDown() { folder = nil }

    func host() throws -> LV2PluginHost {
        _ = try LV2Bundle.build()
        let h = try LV2PluginHost(uri: LV2Bundle.uri, lv2Path: LV2Bundle.path, rate: 48_000, maxBlock: 1024, stateFolder: folder.path)
        h["interpolation"] = 1  // cubic: deterministic (no tables arriving from a thread)
        return h
    }

    /// A 0.25 s loop of a sine of `hz` (whole cycles: `hz` a multiple of 4), float WAV at
    /// 48 kHz, in the test's folder. Returns its path.
    @discardableResult
    func writeSine(_ name: String, hz: Int) -> String {
        let path = folder.url.appendingPathComponent(name).path
        writeSoundFile(path, Measure.sineTone(frames: 12_000, cycles: hz / 4), rate: 48_000)
        return path
    }

    /// Two zones: keys 0…63 a 300 Hz sine at key 60, keys 64…127 a 500 Hz sine at key 72.
    func writeInstrument() throws -> String {
        writeSine("low.wav", hz: 300)
        writeSine("high.wav", hz: 500)
        let path = folder.url.appendingPathComponent("two.sfz").path
        try """
        <group> loop_mode=loop_continuous
        <region> sample=low.wav lokey=0 hikey=63 pitch_keycenter=60
        <region> sample=high.wav lokey=64 hikey=127 pitch_keycenter=72
        """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// `blocks` blocks of 1024 frames, interleaved.
    func play(_ h: LV2PluginHost, blocks: Int) -> [Float] { (0..<blocks).flatMap { _ in h.runInterleaved(frames: 1024) } }

    /// The left channel's level near `hz` (±3 Hz), dB below its strongest peak.
    func level(_ out: [Float], at hz: Double) -> Double {
        let (mags, size) = Measure.spectrum(Measure.channel(out, 0))
        let bin = { (f: Double) in Int((f * Double(size) / 48_000).rounded()) }
        let near = mags[bin(hz - 3)...bin(hz + 3)].max() ?? 0
        return Measure.dB(max(near, 1e-12) / (mags.max() ?? 1))
    }

    /// Key 69 held on the default tone (A4), then the tone set to a 500 Hz sine: the held
    /// note keeps A4 with its harmonics, a new note (key 72) plays the sine at 500·2^(3/12) Hz;
    /// the plugin says the tone in use on its output and answers patch:Get with it.
    func testAToneSetWhileANoteHoldsPlaysForNewNotesWhileTheHeldNoteKeepsItsTone() throws {
        let h = try host()
        let sine = writeSine("sine500.wav", hz: 500)
        h.midi([0x90, 69, 100], at: 0)
        let before = play(h, blocks: 24)
        XCTAssertEqual(Measure.peakFrequency(Array(Measure.channel(before, 0)[4800...]), rate: 48_000), 440, accuracy: 0.5)
        let harmonic = level(before, at: 880)
        XCTAssertGreaterThan(harmonic, -40, "the default tone has a second harmonic")
        h.setPath(toneURI, to: sine, at: 10)
        _ = h.runInterleaved(frames: 1024)  // the request; the worker loads it and hands it over
        _ = h.runInterleaved(frames: 1024)  // the tone in use, said on the output
        XCTAssertEqual(h.pathsSet().map(\.property), [toneURI])
        XCTAssertEqual(h.pathsSet().map(\.path), [sine])
        h.midi([0x90, 72, 100], at: 0)
        let after = Array(play(h, blocks: 24)[9600...])
        let new = 500 * pow(2, 3.0 / 12)
        XCTAssertGreaterThan(level(after, at: 440), -10, "the held note keeps the old tone at A4")
        XCTAssertEqual(level(after, at: 880) - level(after, at: 440), harmonic - level(before, at: 440), accuracy: 3,
                       "with its spectrum (the second harmonic as loud beside the fundamental)")
        XCTAssertGreaterThan(level(after, at: new), -10, "the new note plays the new tone")
        XCTAssertLessThan(level(after, at: 500), -60, "the held note did not move to the new tone")
        XCTAssertLessThan(level(after, at: 440 * pow(2, 3.0 / 12)), -60, "the new note is not on the old tone")
        XCTAssertLessThan(level(after, at: 2 * new), -60, "the new tone is a sine: no harmonic")
        // patch:Get: the tone in use (and no scale: none was set).
        h.getParameters(at: 5)
        _ = h.runInterleaved(frames: 256)
        XCTAssertEqual(h.pathsSet().map(\.property), [toneURI])
        XCTAssertEqual(h.pathsSet().map(\.path), [sine])
        XCTAssertEqual(h.pathsSet().map(\.frame), [5])
    }

    /// A file that does not exist and an SFZ that does not read: each logged with its path
    /// and the reason, answered with the tone still in use (patch:Set: a host's file
    /// chooser shows what plays); a new note still plays the tone in use.
    func testAToneThatDoesNotLoadLeavesTheSoundAndLogsTheFileAndWhy() throws {
        let h = try host()
        let sine = writeSine("sine500.wav", hz: 500)
        h.setPath(toneURI, to: sine, at: 0)
        _ = h.runInterleaved(frames: 256)
        func newNote() -> Double {
            h.midi([0x90, 69, 100], at: 0)
            let out = play(h, blocks: 12)
            h.midi([0x80, 69, 0], at: 0)
            _ = play(h, blocks: 2)
            return Measure.peakFrequency(Array(Measure.channel(out, 0)[4800...]), rate: 48_000)
        }
        XCTAssertEqual(newNote(), 500, accuracy: 0.5)
        let missing = folder.url.appendingPathComponent("missing.wav").path
        let broken = folder.url.appendingPathComponent("broken.sfz").path
        try "<region> sample=sine500.wav\n<regio\n".write(toFile: broken, atomically: true, encoding: .utf8)
        for (path, reason) in [(missing, "No such file"), (broken, "broken.sfz:2: unterminated header '<regio'")] {
            h.clearLog()
            h.setPath(toneURI, to: path, at: 0)
            _ = h.runInterleaved(frames: 256)  // the request; the worker fails and answers
            _ = h.runInterleaved(frames: 256)  // the tone in use, said on the output
            XCTAssertEqual(h.pathsSet().map(\.property), [toneURI], "the tone in use said")
            XCTAssertEqual(h.pathsSet().map(\.path), [sine], "the tone in use said")
            let errors = h.log(type: errorURI)
            XCTAssertTrue(errors.contains(path), errors)
            XCTAssertTrue(errors.contains(reason), errors)
            XCTAssertTrue(errors.contains("the sound in use plays on"), errors)
            XCTAssertEqual(newNote(), 500, accuracy: 0.5, "the tone in use plays on after '\(path)'")
        }
    }

    /// An SFZ instrument as the tone, loaded at tone note 57: each key plays its own zone at
    /// its own pitch (key 62: the low zone's 300 Hz sine 2 keys up; key 76: the high zone's
    /// 500 Hz 4 keys up) — ratio 1 is the port's note, so the keys land where the file says.
    func testAnSFZInstrumentAsTheTonePlaysEachKeyInItsZoneAtItsPitch() throws {
        let h = try host()
        let sfz = try writeInstrument()
        h["tone_note"] = 57
        _ = h.runInterleaved(frames: 256)
        h.setPath(toneURI, to: sfz, at: 0)
        _ = h.runInterleaved(frames: 256)
        XCTAssertTrue(h.log().contains("tone '\(sfz)': 2 regions, key 57 at ratio 1"), h.log())
        for (key, hz) in [(UInt8(62), 300 * pow(2, 2.0 / 12)), (76, 500 * pow(2, 4.0 / 12))] {
            h.midi([0x90, key, 100], at: 0)
            let out = play(h, blocks: 12)
            h.midi([0x80, key, 0], at: 0)
            _ = play(h, blocks: 2)
            XCTAssertEqual(Measure.peakFrequency(Array(Measure.channel(out, 0)[4800...]), rate: 48_000), hz, accuracy: 0.5, "key \(key)")
        }
    }

    /// Saved with an SFZ instrument loaded at tone note 62, the plugin freed, a
    /// new one restored while it plays at tone note 69: the same MIDI gives the same
    /// output, byte for byte, from the first block (the instrument is placed at the tone
    /// note saved with it: lilv sets the ports after the restore). A state without a tone
    /// restores the default tone.
    func testStateWithAToneRestoredIntoANewInstancePlaysTheSameOutputByteForByte() throws {
        let sfz = try writeInstrument()
        func notes(_ h: LV2PluginHost) -> [Float] {
            h.midi([0x90, 62, 100], at: 17)
            h.midi([0x90, 76, 90], at: 300)
            return (0..<20).flatMap { b in
                if b == 10 { h.midi([0xE0, 0, 80], at: 33) }
                return h.runInterleaved(frames: 512)
            }
        }
        var saved = "", plain = ""
        do {
            let h = try host()
            plain = try h.saveState()
            XCTAssertFalse(plain.contains(toneURI), plain)
            h["tone_note"] = 62
            _ = h.runInterleaved(frames: 256)
            h.setPath(toneURI, to: sfz, at: 0)
            _ = h.runInterleaved(frames: 256)
            saved = try h.saveState()
            XCTAssertTrue(saved.contains("two.sfz"), saved)
        }
        let live = try host()
        live["tone_note"] = 62
        _ = live.runInterleaved(frames: 256)
        live.setPath(toneURI, to: sfz, at: 0)
        _ = live.runInterleaved(frames: 256)
        let expected = notes(live)
        let left = Measure.channel(expected, 0)
        XCTAssertEqual(Measure.peakFrequency(Array(left[2048..<7168]), rate: 48_000), 300 * pow(2, 2.0 / 12), accuracy: 3,
                       "key 62 in the low zone")

        let restored = try host()
        _ = restored.runInterleaved(frames: 256)  // playing (tone note 69, the default tone) when the state comes
        try restored.restoreState(saved)
        XCTAssertEqual(restored["tone_note"], 62)
        let again = notes(restored)
        XCTAssertEqual(restored.log(type: errorURI), "")
        XCTAssertTrue(again[0..<1024] == expected[0..<1024], "the first block after the restore differs")
        XCTAssertTrue(again == expected, "the restored instance plays other samples")

        // Back to the default tone (A4 at tone note 69) with a state that has none.
        try restored.restoreState(plain)
        restored.midi([0xE0, 0, 64], at: 0)  // the bend above back to the middle
        restored.midi([0x90, 69, 100], at: 0)
        let a4 = play(restored, blocks: 12)
        XCTAssertEqual(Measure.peakFrequency(Array(Measure.channel(a4, 0)[4800...]), rate: 48_000), 440, accuracy: 0.5)
    }

    /// Notes held across two tone swaps, in blocks of random length: nothing is allocated
    /// in run() or work_response; each tone the mixer gives back (once its last voice
    /// ends) has run() ask the worker once to free it — no more requests after it (a tone
    /// left unfreed would keep asking).
    func testSwappingTonesUnderHeldNotesAllocatesNothingInRunAndFreesEachOldToneOnce() throws {
        let h = try host()
        let tones = [writeSine("a.wav", hz: 500), writeSine("b.wav", hz: 600)]
        h.aroundRun = { alloc_counter_watch_this_thread($0 ? 1 : 0) }
        var rng = SplitMix(seed: 26)
        var out: [Float] = []
        func blocks(_ n: Int) { for _ in 0..<n { out += h.runInterleaved(frames: 1 + Int(rng.next() % 1024)) } }
        alloc_counter_reset()
        h.midi([0x90, 69, 100], at: 3)
        blocks(10)
        for (i, tone) in tones.enumerated() {
            let key = UInt8(72 + i)
            h.setPath(toneURI, to: tone, at: 0)
            blocks(3)
            XCTAssertEqual(h.workScheduled, 2 * i + 1, "the load only: the old tone still sounds")
            h.midi([0x90, key, 100], at: 0)  // on the new tone
            blocks(5)
            h.midi([0x80, i == 0 ? 69 : 72, 0], at: 0)  // the old tone's last note ends
            blocks(20)
            XCTAssertEqual(h.workScheduled, 2 * i + 2, "one request to free the old tone once its voice ended")
        }
        XCTAssertEqual(alloc_counter_count(), 0, "heap allocations in run() and work_response")
        XCTAssertEqual(h.log(type: errorURI), "")
        XCTAssertGreaterThan(Measure.rms(Measure.channel(out, 0)[...]), 0.01)
    }
}
