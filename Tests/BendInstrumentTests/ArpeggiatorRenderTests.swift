// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendEngine
import BendInstrument
import BendTestSupport
import XCTest

/// The arpeggiator as `render` plays it (issue 36, item 3), measured on the output: each
/// note's first frame (a constant tone: the first non-zero sample is the note's frame),
/// each note's pitch (a sine tone, FFT) and a bend over a running arpeggio.
final class ArpeggiatorRenderTests: XCTestCase {
    let rate = 48_000.0
    let map = PitchMap.exponential(octaves: 2)

    /// x for `cents` above the tone's pitch on the 2-octave map.
    func x(_ cents: Double) -> Double { 0.5 + cents / 2400 }

    func arp(_ pattern: ArpPattern, division: Int = 16, octaves: Int = 1, gate: Double = 0.5, swing: Double = 0, latch: Bool = false) -> ArpSettings {
        var s = ArpSettings()
        s.pattern = pattern
        s.division = division
        s.octaves = octaves
        s.gate = gate
        s.swing = swing
        s.latch = latch
        return s
    }

    /// Renders `entries` through the arpeggiator at `bpm`; mono (left).
    func render(_ entries: [TouchScript.Entry], arp settings: ArpSettings, bpm: Double = 120, tone samples: [Float]) -> [Float] {
        let tone = ToneTable(samples: samples, rate: rate)
        defer { tone.deallocate() }
        let out = OfflineRenderer.renderToBuffer(script: TouchScript(entries: entries), tone: tone, voices: 8, pitchMap: map, periodFrames: 256) {
            $0.arpeggiator = settings
            $0.tempo = bpm
        }
        return Measure.channel(out, 0)
    }

    /// The frames where a note starts: a non-zero sample after at least `gap` zero ones.
    func onsets(_ s: [Float], gap: Int = 64) -> [Int] {
        var out: [Int] = [], zeros = gap
        for (i, v) in s.enumerated() {
            if v == 0 { zeros += 1; continue }
            if zeros >= gap { out.append(i) }
            zeros = 0
        }
        return out
    }

    /// Three touches held 1 s (put down high, low, middle).
    func chord(_ cents: [Double] = [700, 0, 400], until: Double = 1) -> [TouchScript.Entry] {
        cents.enumerated().map { i, c in TouchScript.Entry(time: 0, event: .touch(id: UInt32(i + 1), phase: .down, x: x(c), y: 1)) }
            + cents.indices.map { TouchScript.Entry(time: until, event: .touch(id: UInt32($0 + 1), phase: .up, x: 0, y: 0)) }
    }

    /// The pitch (cents from 440 Hz) of the note starting at frame `at`, over `frames`.
    func cents(_ s: [Float], at: Int, frames: Int = 2_048) -> Double {
        1200 * log2(Measure.peakFrequency(Array(s[(at + 256)..<(at + 256 + frames)]), rate: rate) / 440)
    }

    /// `--bpm 120 --arp up --arp-rate 1/16`: a sixteenth is 6000 frames; every note starts
    /// on a multiple of it, exactly, for the 1 s the touches are held (8 notes), and sounds
    /// for its gate.
    func testEveryNoteStartsOnItsSixteenth() {
        let s = render(chord(), arp: arp(.up), tone: [Float](repeating: 0.5, count: 4_800))
        let starts = onsets(s)
        XCTAssertEqual(starts.count, 8, "\(starts)")
        for (i, f) in starts.enumerated() { XCTAssertEqual(f, i * 6_000, "note \(i): \(starts)") }
        // Each sounds its gate, half the step (3000 frames), then fades out in its release.
        for f in starts {
            let length = s[f...].firstIndex(of: 0).map { $0 - f } ?? 0
            XCTAssertEqual(length, 3_000 + 384, accuracy: 2, "the note at \(f)")
        }
    }

    /// The same chord as a sine: the notes go low → high (0, 400, 700 cents) and round
    /// again, each within 1 cent; `down` goes high → low; `updown` turns at the ends.
    func testPatternsCycleThroughTheHeldPitches() {
        let sine = Measure.sineTone(frames: 48_000, cycles: 440)
        let expected: [(ArpPattern, [Double])] = [(.up, [0, 400, 700, 0, 400, 700]), (.down, [700, 400, 0, 700, 400, 0]),
                                                  (.upDown, [0, 400, 700, 400, 0, 400])]
        for (pattern, pitches) in expected {
            let s = render(chord(), arp: arp(pattern, gate: 0.9), tone: sine)
            let heard = (0..<6).map { cents(s, at: $0 * 6_000, frames: 4_096) }
            for (h, e) in zip(heard, pitches) { XCTAssertEqual(h, e, accuracy: 1, "\(pattern): \(heard)") }
        }
    }

    /// Two octaves: the three touches, then the three an octave up (+1200 cents).
    func testOctavesRepeatThePatternAnOctaveUp() {
        let s = render(chord(), arp: arp(.up, octaves: 2, gate: 0.9), tone: Measure.sineTone(frames: 48_000, cycles: 440))
        let heard = (0..<6).map { cents(s, at: $0 * 6_000, frames: 4_096) }
        for (h, e) in zip(heard, [0.0, 400, 700, 1200, 1600, 1900]) { XCTAssertEqual(h, e, accuracy: 1, "\(heard)") }
    }

    /// One touch arpeggiated alone at 1/8 (12 000 frames) bends +200 cents at 0.4 s (between
    /// its second and third notes): every later note of it sounds at the bent pitch, within 1 cent.
    func testANoteOfABentTouchSoundsAtTheBentPitch() {
        let entries: [TouchScript.Entry] = [
            .init(time: 0, event: .touch(id: 1, phase: .down, x: x(0), y: 1)),
            .init(time: 0.4, event: .touch(id: 1, phase: .move, x: x(200), y: 1)),
            .init(time: 1.5, event: .touch(id: 1, phase: .up, x: 0, y: 0)),
        ]
        let s = render(entries, arp: arp(.up, division: 8, gate: 0.5), tone: Measure.sineTone(frames: 48_000, cycles: 440))
        let heard = (0..<6).map { cents(s, at: $0 * 12_000, frames: 4_096) }
        for (i, h) in heard.enumerated() { XCTAssertEqual(h, i < 2 ? 0 : 200, accuracy: 1, "note \(i): \(heard)") }
    }

    /// Swing 0.5 puts every second sixteenth a quarter step late (1500 frames), exactly.
    func testSwingDelaysEverySecondStep() {
        let starts = onsets(render(chord(), arp: arp(.up, gate: 0.3, swing: 0.5), tone: [Float](repeating: 0.5, count: 4_800)))
        XCTAssertEqual(starts.count, 8, "\(starts)")
        for (i, f) in starts.enumerated() { XCTAssertEqual(f, i * 6_000 + (i % 2 == 1 ? 1_500 : 0), "\(starts)") }
    }

    /// Lifting every finger mid-note: the sounding note ends at its gate and no note
    /// starts after; nothing sounds 50 ms after the last gate (no stuck voice).
    func testLiftingTheFingersEndsThePattern() {
        let s = render(chord(until: 0.26), arp: arp(.up, gate: 0.5), tone: [Float](repeating: 0.5, count: 4_800))
        let starts = onsets(s)
        XCTAssertEqual(starts, [0, 6_000, 12_000], "a touch lifted at 0.26 s plays up to the step before it")
        let tail = s.count > 17_400 ? s[17_400...] : []
        XCTAssertEqual(tail.map { abs($0) }.max() ?? 0, 0, "a voice still sounds after the last gate and its release")
    }

    /// Latch: the chord, lifted at 0.26 s, keeps playing until the render's end of script
    /// (its steps still on the grid); a new touch down then starts a new pattern of it alone.
    func testLatchKeepsLiftedTouchesPlaying() {
        var entries = chord(until: 0.26)
        entries.append(.init(time: 0.76, event: .touch(id: 9, phase: .down, x: x(1200), y: 1)))
        entries.append(.init(time: 1.0, event: .touch(id: 9, phase: .up, x: 0, y: 0)))
        let s = render(entries, arp: arp(.up, gate: 0.9, latch: true), tone: Measure.sineTone(frames: 48_000, cycles: 440))
        // Steps 0…6 (to 0.75 s) cycle the latched chord; from 0.76 s the new touch alone.
        let heard = (0..<7).map { cents(s, at: $0 * 6_000, frames: 4_096) }
        for (h, e) in zip(heard, [0.0, 400, 700, 0, 400, 700, 0]) { XCTAssertEqual(h, e, accuracy: 1, "\(heard)") }
        XCTAssertEqual(cents(s, at: 8 * 6_000, frames: 4_096), 1200, accuracy: 1)
    }
}
