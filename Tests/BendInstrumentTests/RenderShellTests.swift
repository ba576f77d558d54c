// SPDX-License-Identifier: GPL-3.0-or-later
import BendTestSupport
import BendAudio
import BendControl
import BendEngine
import BendInstrument
import BendSystem
import Foundation
import XCTest

/// `render`'s shell (`OfflineInstrument` → `OfflineRenderer` → the one `ScriptPlayer` →
/// `RenderFile`) against the rule written out here sample by sample: the same engine
/// `Instrument` driven by hand, each event sent before the period it falls in at frame
/// `round(t · rate)`, `hold` rounding ticked every millisecond of the stream (before each
/// event and up to each period's end), the output ending as `OfflineRenderer` documents.
/// The file's samples must equal it bit for bit: `Assets/demo.jsonl` with the default
/// tone, a MIDI file with the SFZ instrument `Assets/soft-keys.sfz`, and the demo with
/// `hold` rounding in 64-frame periods (the tick rule).
final class RenderShellTests: XCTestCase {
    func testDemoScriptWithTheDefaultTone() throws {
        var sound = SoundSettings()
        sound.tone = defaultTonePath
        try assertRenderMatchesReference(path("Assets/demo.jsonl"), sound: sound, periodFrames: 256)
    }

    func testMIDIFileWithAnSFZInstrument() throws {
        var sound = SoundSettings()
        sound.tone = path("Assets/soft-keys.sfz")
        sound.toneNote = 60
        sound.keys = KeyboardTuning(toneNote: 60)
        try assertRenderMatchesReference(path("Tests/BendMIDITests/Fixtures/mido-format1-tempo-map.mid"), sound: sound, periodFrames: 256)
    }

    func testDemoScriptWithHoldRoundingTicksEachMillisecond() throws {
        var sound = SoundSettings()
        sound.tone = defaultTonePath
        sound.pitchMap = .exponential(octaves: 2)
        sound.rounding = PitchRounding(mode: .hold, rate: 0.05, tuning: Tuning(scale: Scale.builtIn("major")!))
        try assertRenderMatchesReference(path("Assets/demo.jsonl"), sound: sound, periodFrames: 64)
    }

    // MARK: - The shell and the rule

    func path(_ relative: String) -> String { packageRoot.appendingPathComponent(relative).path }

    /// Renders `scriptPath` through the shell into a float WAV and compares its samples,
    /// bit for bit, and its length with `reference`.
    func assertRenderMatchesReference(_ scriptPath: String, sound: SoundSettings, periodFrames: Int,
                                      file: StaticString = #filePath, line: UInt = #line) throws {
        let script = try ScriptFile.load(path: scriptPath, keys: sound.keys, warn: { _ in })
        XCTAssertGreaterThan(script.entries.count, 4, file: file, line: line)
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let out = dir + "/out.wav"
        let summary = try OfflineInstrument.render(script, sound: sound, settings: RenderSettings(output: out, periodFrames: periodFrames),
                                                   note: { _ in })
        let written = try XCTUnwrap(readSoundFile(out), file: file, line: line)

        let tone = try ToneSource.load(sound, rate: Double(sound.rate), note: { _ in })
        defer { tone.deallocate() }
        let expected = reference(script, sound: tone.sound, settings: sound, periodFrames: periodFrames)
        XCTAssertEqual(summary.frames, expected.count / 2, "frames", file: file, line: line)
        XCTAssertEqual(written.samples.count, expected.count, "samples in the file", file: file, line: line)
        let differing = (0..<min(written.samples.count, expected.count)).first { written.samples[$0].bitPattern != expected[$0].bitPattern }
        XCTAssertNil(differing.map { "first differing sample \($0): \(written.samples[$0]) ≠ \(expected[$0])" }, file: file, line: line)
        XCTAssertGreaterThan(expected.map(abs).max() ?? 0, 0.01, "the reference sounds", file: file, line: line)
    }

    /// The render rule, by hand: interleaved stereo samples.
    func reference(_ script: TouchScript, sound: Sound, settings: SoundSettings, periodFrames: Int) -> [Float] {
        let rate = sound[0].held.rate
        let saved = FloatEnvironment.flushDenormals()
        defer { FloatEnvironment.restore(saved) }
        var configuration = MixerConfiguration(rate: rate, maxPeriodFrames: periodFrames, voices: settings.voices)
        settings.configure(&configuration)
        let instrument = Instrument(configuration: configuration, sound: sound, live: false)
        defer { instrument.deallocate() }
        let mixer = instrument.mixer, driver = instrument.driver()
        let port = instrument.addPort(pitchMap: settings.pitchMap, rounding: settings.rounding)
        let frames = script.entries.map { UInt64(max(0, ($0.time * rate).rounded())) }
        let tickFrames = UInt64(max(1, (rate / 1000).rounded()))
        let limit = (frames.last ?? 0) + UInt64((max(1.0, 1.1 * mixer.longestReleaseSeconds) * rate).rounded())
        let endFrame = UInt64(max(0, (script.duration * rate).rounded()))
        var buffer = [Float](repeating: 0, count: 2 * periodFrames), out: [Float] = []
        var next = 0, nextTick: UInt64 = 0, position: UInt64 = 0, soundDone = false
        var flush = (mixer.latencyFrames + periodFrames - 1) / periodFrames
        while true {
            let end = position + UInt64(periodFrames)
            func tick(before frame: UInt64) {
                while port.needsTicks && nextTick < frame { port.tick(atFrame: nextTick); nextTick += tickFrames }
            }
            while next < frames.count && frames[next] < end {
                tick(before: frames[next])
                port.send(script.entries[next].event, atFrame: frames[next])
                next += 1
            }
            tick(before: end)
            buffer.withUnsafeMutableBufferPointer { _ = driver.period(frames: periodFrames, into: .float($0.baseAddress!)) }
            let n = soundDone ? Int(min(UInt64(periodFrames), endFrame - position)) : periodFrames
            out += buffer[0..<(2 * n)]
            position += UInt64(n)
            if !soundDone && next == frames.count && mixer.activeVoices == 0 {
                if flush == 0 { soundDone = true } else { flush -= 1 }
            }
            if next == frames.count && position >= limit { soundDone = true }
            if soundDone && position >= endFrame { return out }
        }
    }
}
