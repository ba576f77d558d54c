// SPDX-License-Identifier: GPL-3.0-or-later
import BendAudio
import BendEngine
import BendTestSupport
import Foundation
import XCTest

/// Issue 37, item 1 (its first step): CC-driven opcodes at the controllers' initial
/// values. The published saxophone's programs: a sustain set by CC 103 (`ampeg_sustain=0`,
/// `ampeg_sustain_oncc103=100`, `set_cc103=127`) rendered silence; a pan set by CC 10
/// (`pan=-100`, `pan_oncc10=200`, `set_cc10=64`) played hard left at −24 dB.
final class SFZControllerTests: XCTestCase {
    var dir = ""
    override func setUpWithError() throws { dir = try makeTemporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }
    static let rate = 48_000.0

    /// Each region's key held 0.5 s: left and right RMS from 0.3 s to 0.5 s.
    func levels(_ sfz: String, keys: [Int]) throws -> (levels: [(left: Double, right: Double)], notes: [String]) {
        writeSoundFile(dir + "/a.wav", Measure.sineTone(frames: 48_000, cycles: 440), rate: 48_000)
        try sfz.write(toFile: dir + "/i.sfz", atomically: true, encoding: .utf8)
        let defaults = InstrumentLoader.EnvelopeDefaults(attack: 0.004, decay: 0, sustain: 1, release: 0.008)
        var notes: [String] = []
        let sound = try InstrumentLoader.load(path: dir + "/i.sfz", rate: Self.rate, reference: 60, envelope: defaults) { notes.append($0) }.sound
        defer { sound.deallocateWithTables() }
        let h = RenderHarness(voices: 4, rate: Self.rate, sound: sound)
        defer { h.free() }
        let measured = keys.map { key -> (left: Double, right: Double) in
            let start = h.mixer.position
            let out = h.render(frames: 26_400, events: [
                EngineEvent(frame: start, kind: .down, key: h.key(UInt32(key)), value: Float(pow(2, Double(key - 60) / 12)), gain: 1),
                EngineEvent(frame: start + 24_000, kind: .up, key: h.key(UInt32(key)))])
            return (Measure.rms(Measure.channel(out, 0)[14_400..<24_000]), Measure.rms(Measure.channel(out, 1)[14_400..<24_000]))
        }
        return (measured, notes)
    }

    func testASustainSetByAControllerSustains() throws {
        let (l, notes) = try levels("""
            <control> set_cc103=127 set_cc104=127
            <region> sample=a.wav key=60 pitch_keycenter=60 loop_mode=loop_continuous ampeg_decay=0.1 ampeg_sustain=0 ampeg_sustain_oncc103=100
            <region> sample=a.wav key=61 pitch_keycenter=61 loop_mode=loop_continuous ampeg_decay=0.1 ampeg_sustain=0 ampeg_sustaincc104=50
            <region> sample=a.wav key=62 pitch_keycenter=62 loop_mode=loop_continuous
            <region> sample=a.wav key=63 pitch_keycenter=63 loop_mode=loop_continuous ampeg_decay=0.1 ampeg_sustain=0 ampeg_sustain_oncc105=100
            """, keys: [60, 61, 62, 63])
        let full = l[2].left
        XCTAssertEqual(Measure.dB(l[0].left / full), 0, accuracy: 0.1, "CC 103 at 127: sustain 100 %")
        XCTAssertEqual(Measure.dB(l[1].left / full), Measure.dB(0.5), accuracy: 0.1, "SFZ v1's ampeg_sustaincc104=50 at 127: sustain 50 %")
        XCTAssertLessThan(l[3].left, 1e-6, "CC 105 never set: it starts at 0, sustain 0 % as the file says")
        XCTAssertTrue(notes.contains { $0.contains("taken at the controllers' initial values") }, "\(notes)")
    }

    func testAPanAndAnAmplitudeSetByControllers() throws {
        let (l, _) = try levels("""
            <control> set_cc10=64 set_cc7=127
            <region> sample=a.wav key=60 pitch_keycenter=60 loop_mode=loop_continuous pan=-100 pan_oncc10=200
            <region> sample=a.wav key=61 pitch_keycenter=61 loop_mode=loop_continuous
            <region> sample=a.wav key=62 pitch_keycenter=62 loop_mode=loop_continuous amplitude=0 amplitude_oncc7=50
            """, keys: [60, 61, 62])
        // pan −100 + 200 × 64/127 = +0.79: the middle, a hair right (equal-power).
        XCTAssertEqual(Measure.dB(l[0].right / l[0].left), Measure.dB(tan((0.0079 + 1) * Double.pi / 4)), accuracy: 0.05)
        XCTAssertEqual(Measure.dB(l[0].left / l[1].left), 0, accuracy: 0.2, "centred, not hard left at −24 dB")
        XCTAssertEqual(Measure.dB(l[2].left / l[1].left), Measure.dB(0.5), accuracy: 0.05, "amplitude 0 + 50 % × 127/127")
    }
}
