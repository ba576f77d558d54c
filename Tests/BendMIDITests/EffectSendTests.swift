// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendEngine
import BendMIDI
import BendTestSupport
import XCTest

/// MIDI CC 91 (reverb) and CC 93 (chorus) per channel, per note in MPE, end to end: the
/// interpreter's events through a port into the engine, measured on the effects' return
/// (the mix with effects minus the mix without).
final class EffectSendTests: XCTestCase {
    /// The spectrum of the return's left channel, 0.25…0.93 s.
    func returnSpectrum(_ bytes: [UInt8]) -> (magnitudes: [Double], size: Int, rms: Double) {
        var events: [ControlEvent] = []
        var interpreter = MIDIInterpreter(toneNote: 69)
        interpreter.receive(bytes, frame: 0) { e, _ in events.append(e) }
        func render(_ effects: EffectSettings?) -> [Float] {
            let h = RenderHarness(voices: 8, tone: Measure.sineTone(frames: 48_000, cycles: 440)) { $0.effects = effects; $0.interpolation = .cubic }
            defer { h.free() }
            return h.render(events.map { (frame: UInt64(0), event: $0) }, frames: 48_000)
        }
        var fx = EffectSettings()
        fx.reverb.preDelaySeconds = 0
        let left = Measure.effectsReturn(wet: render(fx), dry: render(nil), frames: 12_000..<(12_000 + 32_768))
        let (m, size) = Measure.spectrum(left)
        return (m, size, Measure.rms(left))
    }

    func level(_ s: (magnitudes: [Double], size: Int, rms: Double), _ hz: Double) -> Double {
        Measure.level((s.magnitudes, s.size), at: hz)
    }

    /// MPE (lower zone, 15 members): A4 on channel 2 at CC 91 = 0, E5 on channel 3 at
    /// CC 91 = 127: only E5 reaches the reverb.
    func testCC91PerMPENoteOnlyTheSendingNoteReachesTheReverb() {
        let mcm: [UInt8] = [0xB0, 101, 0, 0xB0, 100, 6, 0xB0, 6, 15]
        let s = returnSpectrum(mcm + [0xB1, 91, 0, 0x91, 69, 100, 0xB2, 91, 127, 0x92, 76, 100])
        let e5 = 440 * pow(2, 7.0 / 12)
        print("CC 91 per note: E5 (127) \(Measure.dB(level(s, e5) / level(s, 440))) dB above A4 (0) in the reverb's return")
        XCTAssertGreaterThan(Measure.dB(level(s, e5) / level(s, 440)), 80)
        XCTAssertGreaterThan(Measure.dB(s.rms), -40, "the sending note is in the return")
    }

    /// A CC 91 after the note moves the note's send (the channel's held notes); without any
    /// CC 91 the default send (0) holds: no return at all.
    func testCC91ReachesHeldNotesAndNoCCMeansTheDefault() {
        let none = returnSpectrum([0x90, 69, 100])
        XCTAssertEqual(none.rms, 0, "no send: the reverb does not run, the mix is the dry one")
        let later = returnSpectrum([0x90, 69, 100, 0xB0, 91, 100])
        XCTAssertGreaterThan(Measure.dB(later.rms), -40, "CC 91 after the note-on sends the held note")
    }

    /// CC 93 is the chorus's: its return holds the note; the reverb's stays silent.
    func testCC93SendsToTheChorus() {
        var interpreter = MIDIInterpreter(toneNote: 69)
        var events: [ControlEvent] = []
        interpreter.receive([0xB0, 93, 127, 0x90, 69, 100, 0xB0, 91, 0], frame: 0) { e, _ in events.append(e) }
        let sends = events.compactMap { e -> String? in if case let .send(_, bus, level) = e { return "\(bus) \(level)" }; return nil }
        XCTAssertEqual(sends, ["chorus 1.0", "reverb 0.0"], "CC 93 is the chorus's send, CC 91 the reverb's")
        let s = returnSpectrum([0xB0, 93, 127, 0x90, 69, 100])
        XCTAssertGreaterThan(Measure.dB(s.rms), -20, "the chorus's return")
    }
}
