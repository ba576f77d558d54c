// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendEngine
import BendInstrument
import BendTestSupport
import XCTest

/// `render` keeps the effects' tail: it runs on after the last voice until the tail is
/// below −90 dBFS, and says so when the cap cuts it.
final class EffectsTailRenderTests: XCTestCase {
    let oneSecond = TouchScript(entries: [
        .init(time: 0, event: .touch(id: 1, phase: .down, x: 0.5, y: 1)),
        .init(time: 1, event: .touch(id: 1, phase: .up, x: 0, y: 0)),
    ])

    func render(_ effects: EffectSettings?) -> [Float] {
        let tone = ToneTable(samples: Measure.sineTone(frames: 48_000, cycles: 440), rate: 48_000)
        defer { tone.deallocate() }
        return OfflineRenderer.renderToBuffer(script: oneSecond, tone: tone, voices: 4, pitchMap: .linear) { $0.effects = effects }
    }

    func testTheRenderRunsOnUntilTheReverbsTailIsBelowMinus90dBFS() {
        var fx = EffectSettings()
        fx.reverbSend = 0.5
        fx.reverb.decaySeconds = 2
        let wet = render(fx), dry = render(nil)
        let dryFrames = dry.count / 2, wetFrames = wet.count / 2
        print("effects tail: dry render \(dryFrames) frames, with a 2 s reverb \(wetFrames) frames")
        // A 2 s RT60 falls 90 dB from its start (−10 dBFS or so) in about 2.7 s.
        XCTAssertGreaterThan(wetFrames, dryFrames + 2 * 48_000, "the tail is kept")
        XCTAssertLessThan(wetFrames, dryFrames + 5 * 48_000, "and not much longer")
        let last = Array(wet[(wet.count - 512)...])
        XCTAssertLessThan(Measure.dB(Double(last.map { abs($0) }.max()!)), -88, "it ends below −90 dBFS (one period's peak)")
        let before = Array(wet[(wet.count - 48_000)..<(wet.count - 47_488)])
        XCTAssertGreaterThan(Measure.dB(Double(before.map { abs($0) }.max()!)), -90, "half a second earlier it still sounded")
    }

    func testWithoutSendsTheRenderIsTheDryOneBitForBit() {
        XCTAssertEqual(render(EffectSettings()), render(nil))
    }
}
