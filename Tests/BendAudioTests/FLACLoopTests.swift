// SPDX-License-Identifier: GPL-3.0-or-later
import BendAudio
import BendEngine
import BendTestSupport
import CSndFile
import Foundation
import XCTest

/// Issue 37, item 4: loops and root keys in FLAC files (a WAV's `smpl` kept by
/// `flac --keep-foreign-metadata` in an APPLICATION "riff" block, which libsndfile does
/// not read), and `pitch_keycenter` as the format defines it (60, or `sample`).
final class FLACLoopTests: XCTestCase {
    var dir = ""
    override func setUpWithError() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/flac") else { throw XCTSkip("flac is not installed (make installs it)") }
        dir = try makeTemporaryDirectory()
    }
    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }
    static let rate = 48_000.0

    /// 0.1 s of 300 Hz, a 0.1 s loop of 600 Hz (frames 4800…9599), 0.1 s of 900 Hz, as a
    /// 16-bit WAV with `smpl` (note `note`, `detune` cents) and as the FLAC `flac` makes
    /// of it keeping its chunks. Returns the FLAC's path.
    func looped(_ name: String, note: Int8, detune: Int8 = 0) throws -> String {
        let parts = [300, 600, 900].flatMap { Measure.sineTone(frames: 4800, cycles: $0 / 10) }
        let wav = dir + "/\(name).wav", flac = dir + "/\(name).flac"
        writeInstrumentFile(wav, parts, rate: 48_000, format: Int32(SF_FORMAT_WAV | SF_FORMAT_PCM_16), note: note, detune: detune,
                            loop: (4800, 9600, Int32(SF_LOOP_FORWARD)))
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/flac")
        p.arguments = ["--silent", "--keep-foreign-metadata", "-o", flac, wav]
        try p.run()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0)
        return flac
    }

    func testAFLACKeepsItsWAVsLoopAndRoot() throws {
        let flac = try looped("kept", note: 62, detune: 25)
        let fromFLAC = try ToneLoader.load(path: flac, outputRate: Self.rate)
        let fromWAV = try ToneLoader.load(path: dir + "/kept.wav", outputRate: Self.rate)
        XCTAssertEqual(fromFLAC.loop, ToneLoop(start: 4800, end: 9600, mode: .forward, fromFile: true, sourceStart: 4800, sourceEnd: 9600))
        XCTAssertEqual(fromFLAC.loop, fromWAV.loop)
        XCTAssertEqual(fromFLAC.root, ToneRoot(note: 62.25, origin: .file))
        XCTAssertEqual(fromFLAC.root, fromWAV.root)
    }

    /// An SFZ region of the looped FLAC, held 0.6 s: it sounds the loop (600 Hz) all the
    /// while, never the attack again (the whole file looped re-attacks every 0.3 s).
    /// Without `pitch_keycenter` key 60 plays the sample as recorded (the format's
    /// default, though the file says 62); with `pitch_keycenter=sample` key 62 does.
    func testAHeldNoteOfALoopedFLACSustainsInItsLoopAtTheFormatsKeycenter() throws {
        _ = try looped("s", note: 62)
        try """
            <region> sample=s.flac lokey=60 hikey=60 loop_mode=loop_continuous
            <region> sample=s.flac lokey=61 hikey=127 pitch_keycenter=sample loop_mode=loop_continuous
            """.write(toFile: dir + "/i.sfz", atomically: true, encoding: .utf8)
        let defaults = InstrumentLoader.EnvelopeDefaults(attack: 0.004, decay: 0, sustain: 1, release: 0.008)
        let sound = try InstrumentLoader.load(path: dir + "/i.sfz", rate: Self.rate, reference: 60, envelope: defaults) { _ in }.sound
        defer { sound.deallocateWithTables() }
        let h = RenderHarness(voices: 4, rate: Self.rate, sound: sound) { $0.interpolation = .cubic }
        defer { h.free() }
        for key in [60, 62] {
            let start = h.mixer.position
            let out = Measure.channel(h.render(frames: 36_000, events: [
                EngineEvent(frame: start, kind: .down, key: h.key(UInt32(key)), value: Float(pow(2, Double(key - 60) / 12)), gain: 1),
                EngineEvent(frame: start + 30_000, kind: .up, key: h.key(UInt32(key)))]), 0)
            XCTAssertEqual(Measure.peakFrequency(Array(out[600..<4200]), rate: Self.rate), 300, accuracy: 1, "key \(key): the attack")
            for window in stride(from: 6_000, to: 28_000, by: 2_000) {
                XCTAssertEqual(Measure.peakFrequency(Array(out[window..<(window + 2_000)]), rate: Self.rate), 600, accuracy: 2,
                               "key \(key), frames \(window)…: the loop while held")
            }
        }
    }
}
