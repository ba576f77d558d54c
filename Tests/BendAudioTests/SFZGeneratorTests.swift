// SPDX-License-Identifier: GPL-3.0-or-later
import BendAudio
import BendEngine
import BendTestSupport
import Foundation
import XCTest

/// Issue 37, item 3: SFZ generators (`sample=*sine`, `*saw`, `*square`, `*triangle`,
/// `*noise`, `*silence`, as sfizz defines them) play without a file, `default_path` not
/// applied to them, every key at its own pitch; their spectra are the waveforms'.
final class SFZGeneratorTests: XCTestCase {
    var dir = ""
    override func setUpWithError() throws { dir = try makeTemporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }
    static let rate = 48_000.0

    func load(_ sfz: String) throws -> Sound {
        try sfz.write(toFile: dir + "/i.sfz", atomically: true, encoding: .utf8)
        let defaults = InstrumentLoader.EnvelopeDefaults(attack: 0.004, decay: 0, sustain: 1, release: 0.008)
        return try InstrumentLoader.load(path: dir + "/i.sfz", rate: Self.rate, reference: 60, envelope: defaults) { _ in }.sound
    }

    /// Key `key` held 0.5 s: the left channel from 0.1 s to 0.5 s.
    func play(_ sound: Sound, key: Int) -> [Float] {
        let h = RenderHarness(voices: 4, rate: Self.rate, sound: sound)
        defer { h.free() }
        let out = h.render(frames: 24_000, events: [
            EngineEvent(frame: 0, kind: .down, key: h.key(1), value: Float(pow(2, Double(key - 60) / 12)), gain: 1)])
        return Array(Measure.channel(out, 0)[4_800..<24_000])
    }

    /// Mean frequency of a pure tone over `x` (zero crossings), Hz.
    func pitch(_ x: [Float]) -> Double {
        let track = Measure.zeroCrossingTrack(x, rate: Self.rate)
        return track.map(\.hz).reduce(0, +) / Double(track.count)
    }

    func testASineSoundsEachKeysOwnPitchWithoutAFileOrTheDefaultPath() throws {
        let sound = try load("""
            <control> default_path=samples/
            <region> sample=*sine lokey=0 hikey=64
            <region> sample=*sine lokey=65 hikey=127 pitch_keycenter=69
            """)
        defer { sound.deallocateWithTables() }
        for key in [48, 60, 64, 69, 81] {
            let hz = 440 * pow(2, Double(key - 69) / 12)
            XCTAssertEqual(1200 * log2(pitch(play(sound, key: key)) / hz), 0, accuracy: 0.1, "key \(key): \(hz) Hz")
        }
    }

    /// Harmonic k's level against the fundamental, dB, at key 57 (220 Hz): the saw's
    /// 1/k, the square's odd 1/k, the triangle's odd 1/k².
    func testTheWaveformsHaveTheirHarmonics() throws {
        let sound = try load("""
            <region> sample=*saw key=57
            <region> sample=*square key=58 pitch_keycenter=58
            <region> sample=*triangle key=59 pitch_keycenter=59
            """)
        defer { sound.deallocateWithTables() }
        func harmonics(_ key: Int) -> [Double] {
            let spectrum = Measure.spectrum(play(sound, key: key))
            let f = 440 * pow(2, Double(key - 69) / 12)
            let one = Measure.level(spectrum, at: f)
            return (2...5).map { 20 * log10(Measure.level(spectrum, at: f * Double($0)) / one) }
        }
        let saw = harmonics(57), square = harmonics(58), triangle = harmonics(59)
        for (k, db) in zip(2...5, saw) { XCTAssertEqual(db, -20 * log10(Double(k)), accuracy: 0.3, "saw, harmonic \(k)") }
        XCTAssertEqual(square[1], -20 * log10(3), accuracy: 0.3, "square, harmonic 3")
        XCTAssertEqual(square[3], -20 * log10(5), accuracy: 0.3, "square, harmonic 5")
        XCTAssertLessThan(square[0], -60, "square: no even harmonics")
        XCTAssertEqual(triangle[1], -40 * log10(3), accuracy: 0.3, "triangle, harmonic 3")
        XCTAssertLessThan(triangle[2], -60, "triangle: no even harmonics")
    }

    /// Noise is broadband (the 1–2 kHz and 8–9 kHz bands within 2 dB), silence silent.
    func testNoiseIsBroadbandAndSilenceIsSilent() throws {
        let sound = try load("<region> sample=*noise key=60\n<region> sample=*silence key=61\n")
        defer { sound.deallocateWithTables() }
        let noise = play(sound, key: 60)
        let (mags, size) = Measure.spectrum(noise)
        func band(_ low: Double, _ high: Double) -> Double {
            let a = Int(low * Double(size) / Self.rate), b = Int(high * Double(size) / Self.rate)
            return 10 * log10(mags[a..<b].reduce(0) { $0 + $1 * $1 } / Double(b - a))
        }
        XCTAssertGreaterThan(Measure.rms(noise), 0.05)
        XCTAssertEqual(band(1_000, 2_000), band(8_000, 9_000), accuracy: 2)
        XCTAssertEqual(Measure.rms(play(sound, key: 61)), 0)
    }

    func testAnUnknownGeneratorIsNamedAtItsLine() throws {
        XCTAssertThrowsError(try load("<region> key=60\nsample=*sinus\n")) { error in
            XCTAssertEqual("\(error)", dir + "/i.sfz:2: sample=*sinus: no such generator; expected a file or one of *sine, *saw, *square, *triangle, *noise, *silence")
        }
    }
}
