// SPDX-License-Identifier: GPL-3.0-or-later
import BendMIDI
import BendTestSupport
import Foundation
import XCTest

/// RW-49 (realworld/LOG.md): MPE Standard MIDI Files another program wrote, rendered as a
/// user renders them (`bendsynth render FILE -o OUT.wav`). The real-world folder is
/// `$BENDSYNTH_REALWORLD`, else `../shared/realworld` beside the package (docs/DESIGN.md);
/// a missing file fails the test (it is part of the suite, not optional).
final class RealWorldMIDIFileTests: XCTestCase {
    static var folder: URL {
        if let path = ProcessInfo.processInfo.environment["BENDSYNTH_REALWORLD"] { return URL(fileURLWithPath: path).appendingPathComponent("midi") }
        return BinaryRunner.packageRoot.deletingLastPathComponent().appendingPathComponent("shared/realworld/midi")
    }

    /// The strongest peak within ±0.5 % of `hz` in samples[from..<to] s: its frequency,
    /// and its level in dB below the window's strongest peak.
    func peak(near hz: Double, _ samples: [Float], from: Double, to: Double, rate: Double = 48_000) -> (hz: Double, dB: Double) {
        let window = Array(samples[Int(from * rate)..<min(Int(to * rate), samples.count)])
        let (mags, size) = Measure.spectrum(window)
        let lo = Int(hz * 0.995 * Double(size) / rate), hi = Int(hz * 1.005 * Double(size) / rate) + 1
        var best = lo
        for i in lo...hi where mags[i] > mags[best] { best = i }
        let a = log(max(mags[best - 1], 1e-30)), b = log(max(mags[best], 1e-30)), c = log(max(mags[best + 1], 1e-30))
        let d = a - 2 * b + c
        return ((Double(best) + (d == 0 ? 0 : 0.5 * (a - c) / d)) * rate / Double(size), 20 * log10(mags[best] / (mags.max() ?? 1)))
    }

    /// syntoniq's MPE files (an MCM and RPN 0 = 48 by CC 101/100/6/38, one member channel
    /// per note): every note of 0.15 s or more at 440·2^((note − 69 + bend·48/8192)/12)
    /// within ±0.15 %, with the default tone.
    func testSyntoniqFilesRenderAtTheirPitches() throws {
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for name in ["syntoniq-test01-note-on-off.mpe.midi", "syntoniq-test02-articulation.mpe.midi"] {
            let url = Self.folder.appendingPathComponent(name)
            let data = try XCTUnwrap(FileManager.default.contents(atPath: url.path),
                                     "\(url.path) is missing: the real-world files are in ../shared/realworld beside the package, or $BENDSYNTH_REALWORLD")
            // The expectation, read from the messages by the LOG's formula (not by the interpreter).
            let file = try StandardMIDIFile.parse([UInt8](data))
            var bend = [Int](repeating: 8192, count: 16)
            var open: [Int: (start: Double, hz: Double)] = [:]
            var notes: [(start: Double, end: Double, hz: Double)] = []
            for (t, m) in file.timedMessages() {
                let key = m.channel << 7 | Int(m.data1)
                switch m.kind {
                case 0xE0: bend[m.channel] = m.bendValue
                case 0x90 where m.data2 > 0:
                    open[key] = (t, 440 * pow(2, (Double(m.data1) - 69 + Double(bend[m.channel] - 8192) * 48 / 8192) / 12))
                case 0x80, 0x90:
                    if let o = open.removeValue(forKey: key) { notes.append((o.start, t, o.hz)) }
                default: break
                }
            }
            XCTAssertTrue(open.isEmpty, name)
            XCTAssertGreaterThanOrEqual(notes.count, 3, name)
            let wav = dir.appendingPathComponent(name + ".wav").path
            let r = try BinaryRunner.run(["render", "--no-config", url.path, "-o", wav])
            XCTAssertEqual(r.status, 0, r.stderr)
            let left = Measure.channel(try WAVReader.read(wav).samples, 0)
            for note in notes where note.end - note.start >= 0.15 {
                let p = peak(near: note.hz, left, from: note.start + 0.03, to: note.end - 0.01)
                XCTAssertEqual(p.hz / note.hz, 1, accuracy: 0.0015, "\(name): note at \(note.start) s")
                XCTAssertGreaterThan(p.dB, -12, "\(name): note at \(note.start) s sounds")
            }
        }
    }
}
