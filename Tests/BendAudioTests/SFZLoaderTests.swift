// SPDX-License-Identifier: GPL-3.0-or-later
import BendAudio
import BendEngine
import BendTestSupport
import CSndFile
import Foundation
import XCTest

/// SFZ instruments as they sound: key and velocity ranges pick the region, round robins
/// take turns, `pitch_keycenter`/`tune`/`transpose` set the pitch, `volume` and `pan` the
/// level, `ampeg_*` the envelope, `offset`/`end`/`loop_*` what of the sample plays; a
/// sample that is missing or a slice outside it is named with its file and line, and
/// opcodes bendsynth does not play are listed. Measured in the rendered output.
final class SFZLoaderTests: XCTestCase {
    var dir = ""
    override func setUpWithError() throws { dir = try makeTemporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    static let rate = 48_000.0
    static let defaults = InstrumentLoader.EnvelopeDefaults(attack: 0.004, decay: 0, sustain: 1, release: 0.008)

    /// A 1 s sine of `hz` (whole cycles), amplitude 0.5, as `name` in the test folder.
    func sine(_ name: String, _ hz: Int, frames: Int = 48_000) {
        writeSoundFile(dir + "/" + name, Measure.sineTone(frames: frames, cycles: hz * frames / 48_000), rate: 48_000)
    }

    func load(_ sfz: String, notes: inout [String]) throws -> Sound {
        try sfz.write(toFile: dir + "/i.sfz", atomically: true, encoding: .utf8)
        var said: [String] = []
        defer { notes = said }
        return try InstrumentLoader.load(path: dir + "/i.sfz", rate: Self.rate, reference: 60, envelope: Self.defaults) { said.append($0) }.sound
    }

    func load(_ sfz: String) throws -> Sound {
        var notes: [String] = []
        return try load(sfz, notes: &notes)
    }

    /// One note (key, velocity), held 0.2 s: the left channel from 50 ms to 200 ms.
    func note(_ h: RenderHarness, _ id: UInt32, key: Int, velocity: Int) -> [Float] {
        let start = h.mixer.position
        let out = h.render(frames: 12_000, events: [
            EngineEvent(frame: start, kind: .down, key: h.key(id), value: Float(pow(2, Double(key - 60) / 12)), gain: Float(velocity) / 127),
            EngineEvent(frame: start + 9600, kind: .up, key: h.key(id))])
        return Array(Measure.channel(out, 0)[2400..<9600])
    }

    func testKeysVelocitiesAndRoundRobinPickTheRegion() throws {
        for (name, hz) in [("soft", 200), ("loud", 300), ("high", 400), ("rr1", 500), ("rr2", 600), ("rr3", 700)] { sine(name + ".wav", hz) }
        let sound = try load("""
            <global> loop_mode=loop_continuous
            <group> hikey=59 pitch_keycenter=57
            <region> sample=soft.wav hivel=64
            <region> sample=loud.wav lovel=65
            <group> lokey=60 hikey=71 pitch_keycenter=69
            <region> sample=high.wav
            <group> key=72 seq_length=3
            <region> sample=rr1.wav seq_position=1
            <region> sample=rr2.wav seq_position=2
            <region> sample=rr3.wav seq_position=3
            """)
        defer { sound.deallocateWithTables() }
        let h = RenderHarness(voices: 4, rate: Self.rate, sound: sound) { $0.interpolation = .cubic }
        defer { h.free() }
        func hz(_ key: Int, _ velocity: Int, _ id: UInt32) -> Double {
            Measure.peakFrequency(note(h, id, key: key, velocity: velocity), rate: Self.rate)
        }
        XCTAssertEqual(hz(57, 30, 1), 200, accuracy: 0.5, "soft layer at its keycenter")
        XCTAssertEqual(hz(57, 100, 2), 300, accuracy: 0.5, "loud layer")
        XCTAssertEqual(hz(52, 100, 3), 300 * pow(2, -5.0 / 12), accuracy: 0.5, "five keys down")
        XCTAssertEqual(hz(69, 1, 4), 400, accuracy: 0.5)
        XCTAssertEqual(hz(66, 127, 5), 400 * pow(2, -3.0 / 12), accuracy: 0.5)
        XCTAssertEqual((6...9).map { hz(72, 100, UInt32($0)).rounded() }, [500, 600, 700, 500], "the round robin takes turns")
    }

    func testTuneTransposeVolumePanAndEnvelope() throws {
        sine("a.wav", 440)
        let sound = try load("""
            <region> sample=a.wav key=60 pitch_keycenter=69 loop_mode=loop_continuous
            <region> sample=a.wav key=62 pitch_keycenter=69 tune=50 transpose=-12 loop_mode=loop_continuous
            <region> sample=a.wav key=64 pitch_keycenter=64 volume=-6 pan=-100 loop_mode=loop_continuous
            <region> sample=a.wav key=65 pitch_keycenter=65 ampeg_attack=0.05 ampeg_decay=0.05 ampeg_sustain=25 loop_mode=loop_continuous
            """)
        defer { sound.deallocateWithTables() }
        let h = RenderHarness(voices: 4, rate: Self.rate, sound: sound) { $0.interpolation = .cubic }
        defer { h.free() }
        let plain = note(h, 1, key: 60, velocity: 127)
        XCTAssertEqual(Measure.peakFrequency(plain, rate: Self.rate), 440 * pow(2, -9.0 / 12), accuracy: 0.5)
        let tuned = note(h, 2, key: 62, velocity: 127)
        XCTAssertEqual(Measure.peakFrequency(tuned, rate: Self.rate), 440 * pow(2, (62 - 69 - 12 + 0.5) / 12), accuracy: 0.5,
                       "transpose −12 and tune +50 cents")
        // volume −6 dB, panned hard left: the left channel holds all of it (√2 × the centre's).
        let start = h.mixer.position
        let panned = h.render(frames: 9600, events: [EngineEvent(frame: start, kind: .down, key: h.key(3), value: Float(pow(2, 4.0 / 12)), gain: 1),
                                                     EngineEvent(frame: start + 7200, kind: .up, key: h.key(3))])
        let left = Measure.rms(Array(Measure.channel(panned, 0)[2400..<7200])), right = Measure.rms(Array(Measure.channel(panned, 1)[2400..<7200]))
        XCTAssertEqual(Measure.dB(left / Measure.rms(plain)), -6 + Measure.dB(2.0.squareRoot()), accuracy: 0.1)
        XCTAssertLessThan(right, 1e-6)
        // attack 50 ms, decay 50 ms to 25 %: 10 ms in, the level is well below full; at 150 ms −12 dB.
        let s = h.mixer.position
        let shaped = Measure.channel(h.render(frames: 12_000, events: [
            EngineEvent(frame: s, kind: .down, key: h.key(4), value: Float(pow(2, 5.0 / 12)), gain: 1)]), 0)
        let early = Measure.rms(shaped[240..<720]), held = Measure.rms(shaped[7200..<9600])
        XCTAssertLessThan(Measure.dB(early / Measure.rms(plain)), -10, "the 50 ms attack")
        XCTAssertEqual(Measure.dB(held / Measure.rms(plain)), Measure.dB(0.25), accuracy: 0.1, "ampeg_sustain=25")
    }

    /// `offset`/`end` cut the sample; `loop_start`/`loop_end` (inclusive) loop its middle, and
    /// after the release (a long `ampeg_release`: the region fades as it says) the tail plays.
    func testOffsetEndAndLoopPoints() throws {
        // 0.1 s of 300 Hz, 0.1 s of 600 Hz, 0.1 s of 900 Hz.
        let parts = [300, 600, 900].flatMap { Measure.sineTone(frames: 4800, cycles: $0 / 10) }
        writeSoundFile(dir + "/three.wav", parts, rate: 48_000)
        let sound = try load("""
            <region> sample=three.wav key=60 offset=4800 end=9599 loop_mode=one_shot
            <region> sample=three.wav key=61 pitch_keycenter=61 loop_mode=loop_sustain loop_start=4800 loop_end=9599 ampeg_release=1
            """)
        defer { sound.deallocateWithTables() }
        let h = RenderHarness(voices: 4, rate: Self.rate, sound: sound) { $0.interpolation = .cubic }
        defer { h.free() }
        let start = h.mixer.position
        let once = Measure.channel(h.render(frames: 24_000, events: [EngineEvent(frame: start, kind: .down, key: h.key(1), value: 1, gain: 1)]), 0)
        XCTAssertEqual(Measure.peakFrequency(Array(once[600..<4200]), rate: Self.rate), 600, accuracy: 1, "from the offset")
        XCTAssertLessThan(Measure.rms(once[5000...]), 1e-6, "a one-shot ends at its end, though the touch is held")
        let s = h.mixer.position
        let looped = Measure.channel(h.render(frames: 36_000, events: [
            EngineEvent(frame: s, kind: .down, key: h.key(2), value: Float(pow(2, 1.0 / 12)), gain: 1),
            EngineEvent(frame: s + 24_000, kind: .up, key: h.key(2))]), 0)
        XCTAssertEqual(Measure.peakFrequency(Array(looped[600..<4200]), rate: Self.rate), 300, accuracy: 1, "the attack")
        XCTAssertEqual(Measure.peakFrequency(Array(looped[12_000..<23_000]), rate: Self.rate), 600, accuracy: 1, "the loop while held")
        // Released at the loop's start: the loop plays out (4800 frames), then the tail.
        XCTAssertEqual(Measure.peakFrequency(Array(looped[29_000..<33_000]), rate: Self.rate), 900, accuracy: 1, "the tail after the release")
    }

    /// A sample whose `smpl` loop is the whole file loops (`loop_continuous`, as the format
    /// says of a sample with a loop): it played once and went silent.
    func testASampleLoopedWholeByItsFileLoopsOn() throws {
        writeInstrumentFile(dir + "/w.wav", Measure.sineTone(frames: 4800, cycles: 50), rate: 48_000, note: 60, loop: (0, 4800, Int32(SF_LOOP_FORWARD)))
        let sound = try load("<region> sample=w.wav\n")
        defer { sound.deallocateWithTables() }
        let h = RenderHarness(voices: 2, rate: Self.rate, sound: sound) { $0.interpolation = .cubic }
        defer { h.free() }
        let x = Measure.channel(h.render(frames: 24_000, events: [EngineEvent(frame: 0, kind: .down, key: h.key(1), value: 1, gain: 1)]), 0)
        XCTAssertEqual(Measure.peakFrequency(Array(x[12_000...]), rate: Self.rate), 500, accuracy: 1, "still sounding after 5 passes of the file")
    }

    func testUnplayedOpcodesAreListedAndBadRegionsNamed() throws {
        sine("a.wav", 440)
        var notes: [String] = []
        let sound = try load("<region> sample=a.wav amp_veltrack=0\n<region> sample=a.wav key=70 fil_type=lpf_2p cutoff=500\n", notes: &notes)
        sound.deallocateWithTables()
        XCTAssertTrue(notes.contains { $0.hasSuffix("not played, ignored: amp_veltrack (line 1), fil_type (line 2), cutoff (line 2)") }, "\(notes)")
        let cases: [(String, String)] = [
            ("<region> sample=a.wav\n<region> sample=gone.wav", "i.sfz:2: sample '\(dir)/gone.wav' not found; expected a sound file there"),
            ("<region> sample=a.wav offset=48000", "i.sfz:1: offset=48000 is not inside the sample's 48000 frames"),
            ("<region> sample=a.wav loop_start=100 loop_end=60000", "i.sfz:1: <region>: the loop 100…60000 is not inside the sample's frames 0…47999"),
            ("<region> sample=i.sfz", "i.sfz:1: sample tone file '\(dir)/i.sfz': libsndfile:"),
        ]
        for (text, expected) in cases {
            XCTAssertThrowsError(try load(text)) { error in
                XCTAssertTrue("\(error)".contains(expected), "\(error)")
            }
        }
    }
}
