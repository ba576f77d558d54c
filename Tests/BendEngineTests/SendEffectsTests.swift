// SPDX-License-Identifier: GPL-3.0-or-later
import XCTest
import BendEngine
import BendTestSupport

/// The send buses in the mixer: without sends the mix is the dry mix bit for bit; a
/// voice's own send reaches its bus and no other voice's does; sends glide.
final class SendEffectsTests: XCTestCase {
    /// 8 voices moving and a pan sweep, rendered with `effects` (nil: none).
    func moving(_ effects: EffectSettings?, sends: Bool = false) -> [Float] {
        let h = RenderHarness(voices: 16, period: 256) { $0.effects = effects; $0.limiter = true }
        defer { h.free() }
        var events: [EngineEvent] = []
        for v in 0..<8 {
            events.append(EngineEvent(frame: UInt64(v * 100), kind: .down, key: h.key(UInt32(v)), value: 0.5 + Float(v) / 8, gain: 0.1))
            if sends { events.append(.send(frame: UInt64(v * 100 + 1), key: h.key(UInt32(v)), bus: .reverb, level: Float(v) / 8)) }
        }
        for f in stride(from: 1000, to: 29_000, by: 700) {
            events.append(EngineEvent(frame: UInt64(f), kind: .move, key: h.key(UInt32(f % 8)), value: 0.4 + Float(f % 900) / 600, gain: 0.1))
            if f % 2100 == 0 { events.append(EngineEvent(frame: UInt64(f), kind: .pan, value: Float(f % 7) / 3 - 1)) }
        }
        for v in 0..<8 { events.append(EngineEvent(frame: UInt64(30_000 + v * 1000), kind: .up, key: h.key(UInt32(v)))) }
        return h.render(frames: 48_000, events: events)
    }

    func testWithEverySendAtZeroTheMixIsTheDryMixBitForBit() {
        let dry = moving(nil)
        var fx = EffectSettings()
        fx.reverb.decaySeconds = 3
        fx.delay.feedback = 0.6
        let wet = moving(fx)
        XCTAssertEqual(wet, dry, "effects configured, every send 0: the same samples")
        XCTAssertGreaterThan(Measure.rms(dry), 0.01)
    }

    func testSendsAddTheEffectsAndLeaveTheDryMixAsItWas() {
        let dry = moving(nil)
        var fx = EffectSettings()
        fx.reverbSend = 0.3
        fx.chorusSend = 0.2
        fx.delaySend = 0.2
        let wet = moving(fx, sends: true)
        // After the last release (and its 8 ms) the dry mix is silent: what is left is the tail.
        let tail = Measure.rms(wet[(2 * 38_000)...])
        XCTAssertLessThan(Measure.rms(dry[(2 * 38_000)...]), 1e-6)
        XCTAssertGreaterThan(Measure.dB(tail), -50, "the effects' tail rings on after the voices")
    }

    /// Two notes, one at send 0 and one at send 1 (the default 0): only the second reaches
    /// the reverb. The reverb's return is the mix with effects minus the mix without.
    func testOnlyTheVoiceThatSendsReachesTheReverb() {
        let frames = 48_000
        func render(_ effects: EffectSettings?) -> [Float] {
            let h = RenderHarness(voices: 4, period: 256, tone: Measure.sineTone(frames: 48_000, cycles: 440)) { $0.effects = effects }
            defer { h.free() }
            let a = h.key(1), b = h.key(2)
            return h.render(frames: frames, events: [
                EngineEvent(frame: 0, kind: .down, key: a, value: 1, gain: 0.3),
                .send(frame: 0, key: a, bus: .reverb, level: 0),
                EngineEvent(frame: 0, kind: .down, key: b, value: 1.5, gain: 0.3),
                .send(frame: 0, key: b, bus: .reverb, level: 1),
            ])
        }
        var fx = EffectSettings()
        fx.reverb.preDelaySeconds = 0
        let wet = render(fx), dry = render(nil)
        let left = Measure.effectsReturn(wet: wet, dry: dry, frames: 8192..<(8192 + 32_768))
        let spectrum = Measure.spectrum(left)
        let sending = Measure.level(spectrum, at: 660), silent = Measure.level(spectrum, at: 440)
        print("reverb return: 660 Hz (send 1) \(Measure.dB(sending / silent)) dB above 440 Hz (send 0)")
        XCTAssertGreaterThan(Measure.dB(sending / silent), 80, "the note at send 0 is not in the reverb's return")
        // The dry mix holds both notes at one level: one note's is the mix's − 3.01 dB.
        let note = Measure.rms(Array(Measure.channel(dry, 0)[8192..<(8192 + 32_768)])) / 2.squareRoot()
        print("reverb return of a held note at send 1: \(Measure.dB(Measure.rms(left) / note)) dB against the note")
        XCTAssertEqual(Measure.dB(Measure.rms(left) / note), 0, accuracy: 1, "a held note's reverb at send 1 has about the note's level")
    }

    /// A send raised while a note holds glides: the return's envelope rises over 10 ms, no
    /// step — also when it comes late in a long period (frame 900 of 1024: the glide starts
    /// at the event, not at the period's start).
    func testARaisedSendGlidesWithoutAStep() {
        checkRaisedSend(period: 256, at: 10_000)
        checkRaisedSend(period: 1024, at: 9 * 1024 + 900)
    }

    func checkRaisedSend(period: Int, at frame: UInt64) {
        func render(_ raise: Bool) -> [Float] {
            var fx = EffectSettings()
            fx.chorusSend = 0
            let h = RenderHarness(voices: 4, period: period, tone: Measure.sineTone(frames: 48_000, cycles: 440)) { $0.effects = fx }
            defer { h.free() }
            var events = [EngineEvent(frame: 0, kind: .down, key: h.key(1), value: 1, gain: 0.5)]
            if raise { events.append(.send(frame: frame, key: h.key(1), bus: .chorus, level: 1)) }
            return h.render(frames: 24_000, events: events)
        }
        let wet = render(true), dry = render(false)
        // The chorus adds up to its three copies' sum to the tone: steps up to twice the dry's.
        let (wetStep, dryStep) = (Measure.maxStep(Measure.channel(wet, 0)[...]), Measure.maxStep(Measure.channel(dry, 0)[...]))
        print("chorus send raised: largest step \(wetStep), the dry tone's \(dryStep)")
        XCTAssertLessThanOrEqual(wetStep, dryStep * 2, "no click when the send rises")
        var ret = [Float](repeating: 0, count: wet.count)
        for i in 0..<wet.count { ret[i] = wet[i] - dry[i] }
        XCTAssertLessThan(Measure.rms(ret[0..<(2 * 9_000)]), 1e-7, "nothing sent before")
        XCTAssertGreaterThan(Measure.rms(ret[(2 * 12_000)...]), 0.05, "the chorus after")
    }
}
