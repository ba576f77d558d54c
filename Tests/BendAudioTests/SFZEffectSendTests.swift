// SPDX-License-Identifier: GPL-3.0-or-later
import BendAudio
import BendEngine
import BendTestSupport
import Foundation
import XCTest

/// An SFZ region's `effect1` (the reverb send, %) and `effect2` (the chorus's), as sfizz
/// plays them: a voice of the region sends at its region's level, whatever the default.
final class SFZEffectSendTests: XCTestCase {
    func testARegionsEffect1IsItsVoicesReverbSend() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        writeSoundFile(dir + "/low.wav", Measure.sineTone(frames: 48_000, cycles: 300), rate: 48_000)
        writeSoundFile(dir + "/high.wav", Measure.sineTone(frames: 48_000, cycles: 500), rate: 48_000)
        try """
            <global> loop_mode=loop_continuous pitch_keycenter=60
            <region> sample=low.wav key=60 effect1=0
            <region> sample=high.wav key=62 effect1=100
            """.write(toFile: dir + "/i.sfz", atomically: true, encoding: .utf8)
        var notes: [String] = []
        let sound = try InstrumentLoader.load(path: dir + "/i.sfz", rate: 48_000, reference: 60,
                                              envelope: .init(attack: 0.004, decay: 0, sustain: 1, release: 0.008)) { notes.append($0) }.sound
        defer { sound.deallocate() }
        XCTAssertEqual((0..<sound.count).map { sound[$0].effectSends }, [SIMD2(0, -1), SIMD2(1, -1)], "effect1 read, effect2 the default")
        XCTAssertFalse(notes.joined().contains("effect1"), "effect1 is played, not listed as ignored: \(notes)")
        func render(_ effects: EffectSettings?) -> [Float] {
            let h = RenderHarness(voices: 4, sound: sound) { $0.interpolation = .cubic; $0.effects = effects }
            defer { h.free() }
            return h.render(frames: 48_000, events: [
                EngineEvent(frame: 0, kind: .down, key: h.key(1), value: 1, gain: 0.5),
                EngineEvent(frame: 0, kind: .down, key: h.key(2), value: Float(pow(2, 2.0 / 12)), gain: 0.5)])
        }
        var fx = EffectSettings()
        fx.reverbSend = 0.5  // the default: the regions' own sends win
        fx.reverb.preDelaySeconds = 0
        let wet = render(fx), dry = render(nil)
        let spectrum = Measure.spectrum(Measure.effectsReturn(wet: wet, dry: dry, frames: 12_000..<(12_000 + 32_768)))
        let at = { (hz: Double) in Measure.level(spectrum, at: hz) }
        // (`key=62` is also the region's keycenter: key 62 plays the 500 Hz sample as it is.)
        print("SFZ effect1: the 100 % region \(Measure.dB(at(500) / at(300))) dB above the 0 % one in the reverb's return")
        XCTAssertGreaterThan(Measure.dB(at(500) / at(300)), 60)
    }
}

