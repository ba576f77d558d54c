// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendMIDI
import BendTestSupport
import Foundation
import XCTest

/// One note a file should sound: start and end (s), frequency (Hz).
struct ExpectedNote: Decodable {
    var start: Double
    var end: Double
    var hz: Double
}

enum Corpus {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func bytes(_ url: URL) throws -> [UInt8] { [UInt8](try Data(contentsOf: url)) }

    static func expected(_ name: String) throws -> [ExpectedNote] { try expectedFile(name).notes }

    /// A fixture's expectation: its notes and, for the files that end after their last
    /// sound, its length (seconds, the latest End-of-Track).
    struct ExpectedFile: Decodable {
        var notes: [ExpectedNote]
        var length: Double?
    }

    static func expectedFile(_ name: String) throws -> ExpectedFile {
        let data = try Data(contentsOf: fixtures.appendingPathComponent(name + ".expected.json"))
        return try JSONDecoder().decode(ExpectedFile.self, from: data)
    }

    /// mido's files whose End-of-Track comes after their last sound (issue 28).
    static let endOfTrackFiles = ["mido-eot-after-note.mid", "mido-silence-eot.mid", "mido-format1-late-eot.mid"]
}

/// Renders a script with the 440 Hz test tone (ratio 1 = A4) through the real engine.
func renderScript(_ script: TouchScript, rate: Double = 48_000) -> [Float] {
    let h = RenderHarness(voices: 64, period: 256, rate: rate)
    defer { h.free() }
    let events = script.entries.map { (frame: UInt64(($0.time * rate).rounded()), event: $0.event) }
    let stereo = h.render(events, frames: Int((script.duration + 0.3) * rate))
    return Measure.channel(stereo, 0)
}

/// The frequency of the strongest spectral peak within ±0.5 % of `hz` in
/// samples[from..<to] (parabolic interpolation), and its level relative to the window's
/// strongest peak (dB).
func peak(near hz: Double, in samples: [Float], from: Double, to: Double, rate: Double = 48_000) -> (hz: Double, dB: Double) {
    let window = Array(samples[Int(from * rate)..<min(Int(to * rate), samples.count)])
    let (mags, size) = Measure.spectrum(window)
    let lo = Int(hz * 0.995 * Double(size) / rate), hi = Int(hz * 1.005 * Double(size) / rate) + 1
    var best = lo
    for i in lo...hi where mags[i] > mags[best] { best = i }
    let a = log(max(mags[best - 1], 1e-30)), b = log(max(mags[best], 1e-30)), c = log(max(mags[best + 1], 1e-30))
    let d = a - 2 * b + c
    let offset = d == 0 ? 0 : 0.5 * (a - c) / d
    return ((Double(best) + offset) * rate / Double(size), 20 * log10(mags[best] / (mags.max() ?? 1)))
}

final class MIDIFileRenderTests: XCTestCase {
    /// Files made by mido (format 0 and 1, tempo changes, running status, plain bends and
    /// RPN 0, MPE in 17-EDO): every note starts and ends when the tempo map says and
    /// sounds at its frequency within ±0.1 %.
    func testMidoCorpusRendersAtTheExpectedTimesAndPitches() throws {
        for name in ["mido-format0-tempo.mid", "mido-format1-tempo-map.mid", "mido-mpe-17edo.mid"] {
            let file = try StandardMIDIFile.parse(try Corpus.bytes(Corpus.fixtures.appendingPathComponent(name)))
            let script = try MIDIFileScript.script(file)
            let expected = try Corpus.expected(name)
            // Times: the downs at the notes' starts (the format-1 file's second channel
            // adds one), every touch ends.
            let downs = script.entries.filter { $0.event.touchPhase?.phase == .down }.map(\.time)
            let ups = script.entries.filter { $0.event.touchPhase?.phase == .up }.map(\.time)
            XCTAssertEqual(downs.count, ups.count, name)
            for note in expected {
                XCTAssertTrue(downs.contains { abs($0 - note.start) < 1e-9 }, "\(name): a note starts at \(note.start) s; downs \(downs)")
                XCTAssertTrue(ups.contains { abs($0 - note.end) < 1e-9 }, "\(name): a note ends at \(note.end) s; ups \(ups)")
            }
            let samples = renderScript(script)
            for note in expected {
                let p = peak(near: note.hz, in: samples, from: note.start + 0.05, to: note.end - 0.01)
                XCTAssertEqual(p.hz / note.hz, 1, accuracy: 0.001, "\(name): note at \(note.start) s")
                XCTAssertGreaterThan(p.dB, -12, "\(name): note at \(note.start) s sounds")
            }
        }
    }

    /// A file lasts until its last End-of-Track, not until its last note-off: the script's
    /// duration is the file's length (the latest track end through the tempo map, ±1 µs),
    /// its notes sound at their pitches and every touch ends.
    func testEndOfTrackAfterTheLastNoteIsTheScriptsEnd() throws {
        for name in Corpus.endOfTrackFiles {
            let file = try StandardMIDIFile.parse(try Corpus.bytes(Corpus.fixtures.appendingPathComponent(name)))
            let expected = try Corpus.expectedFile(name)
            let length = try XCTUnwrap(expected.length, name)
            let script = try MIDIFileScript.script(file)
            XCTAssertEqual(script.duration, length, accuracy: 1e-6, name)
            XCTAssertFalse(script.isEmpty, name)
            let downs = script.entries.filter { $0.event.touchPhase?.phase == .down }.count
            XCTAssertEqual(downs, expected.notes.count, name)
            XCTAssertEqual(script.entries.filter { $0.event.touchPhase?.phase == .up }.count, downs, name)
            let samples = renderScript(script)
            for note in expected.notes {
                let p = peak(near: note.hz, in: samples, from: note.start + 0.05, to: note.end - 0.01)
                XCTAssertEqual(1200 * log2(p.hz / note.hz), 0, accuracy: 1, "\(name): note at \(note.start) s, cents off")
            }
        }
    }

    /// Tuning messages in files made by mido (issue 28): RPN 1 and 2, the universal master
    /// fine and coarse tuning, MTS scale/octave tuning (1-byte non-real-time: later notes
    /// only; 2-byte real-time: a sounding note follows), GS scale tuning (a bad checksum
    /// ignored). Every window sounds at its frequency within ±1 cent (FFT peak).
    func testTuningMessagesRetuneTheNotesTheySay() throws {
        for name in ["mido-tuning-rpn.mid", "mido-tuning-sysex.mid"] {
            let file = try StandardMIDIFile.parse(try Corpus.bytes(Corpus.fixtures.appendingPathComponent(name)))
            let samples = renderScript(try MIDIFileScript.script(file))
            for w in try Corpus.expected(name) {
                let p = peak(near: w.hz, in: samples, from: w.start + 0.05, to: w.end - 0.01)
                XCTAssertEqual(1200 * log2(p.hz / w.hz), 0, accuracy: 1, "\(name): \(w.start)–\(w.end) s at \(w.hz) Hz, cents off")
                XCTAssertGreaterThan(p.dB, -12, "\(name): \(w.start) s sounds")
            }
        }
    }

    /// --tone-note moves every pitch: the same file with tone note 57 (the tone is A3)
    /// plays an octave higher.
    func testToneNoteShiftsThePitch() throws {
        let file = try StandardMIDIFile.parse(try Corpus.bytes(Corpus.fixtures.appendingPathComponent("mido-format0-tempo.mid")))
        let samples = renderScript(try MIDIFileScript.script(file, toneNote: 57))
        let p = peak(near: 880, in: samples, from: 0.05, to: 0.49)
        XCTAssertEqual(p.hz / 880, 1, accuracy: 0.001)
    }
}
