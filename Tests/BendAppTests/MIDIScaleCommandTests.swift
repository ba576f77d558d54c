// SPDX-License-Identifier: GPL-3.0-or-later
import BendTestSupport
import Foundation
import XCTest

/// Issue 28: MIDI notes through `--scale` and `--kbm`, through the binary. mido-keys.mid
/// plays keys 59…73 one after another (0.3 s each), then A4 bent +1 semitone; each window
/// sounds at the frequency the scale and mapping imply (worked out here by hand, FFT
/// peak, ±1 cent) or is silent for a key the mapping leaves out.
final class MIDIScaleCommandTests: XCTestCase {
    private let fixtures = BinaryRunner.packageRoot.appendingPathComponent("Tests/BendMIDITests/Fixtures")
    private var kbm: URL { fixtures.appendingPathComponent("kbm") }

    /// mido-keys.mid's keys, in order, then the bent A4.
    private let keys = [59, 60, 61, 62, 64, 67, 69, 70, 71, 72, 73]

    private func peak(near hz: Double, _ samples: [Float], from: Double, to: Double, rate: Double = 48_000) -> Double {
        let window = Array(samples[Int(from * rate)..<Int(to * rate)])
        let (mags, size) = Measure.spectrum(window)
        let lo = Int(hz * 0.98 * Double(size) / rate), hi = Int(hz * 1.02 * Double(size) / rate) + 1
        var best = lo
        for i in lo...hi where mags[i] > mags[best] { best = i }
        let a = log(mags[best - 1]), b = log(mags[best]), c = log(mags[best + 1])
        let d = a - 2 * b + c
        return (Double(best) + (d == 0 ? 0 : 0.5 * (a - c) / d)) * rate / Double(size)
    }

    /// Renders mido-keys.mid with `options` and checks each key's window against
    /// `hz(key)` (nil: silent) and the bent A4's against `bent`.
    private func check(_ options: [String], bent: Double, file: StaticString = #filePath, line: UInt = #line,
                       _ hz: (Int) -> Double?) throws {
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let wav = dir.appendingPathComponent("keys.wav").path
        let r = try BinaryRunner.run(["render", "--no-config", fixtures.appendingPathComponent("mido-keys.mid").path, "-o", wav] + options)
        XCTAssertEqual(r.status, 0, r.stderr, file: file, line: line)
        let left = Measure.channel(try WAVReader.read(wav).samples, 0)
        for (i, key) in keys.enumerated() {
            let from = 0.3 * Double(i) + 0.05, to = 0.3 * Double(i + 1) - 0.01
            if let want = hz(key) {
                XCTAssertEqual(1200 * log2(peak(near: want, left, from: from, to: to) / want), 0, accuracy: 1,
                               "\(options): key \(key) at \(want) Hz, cents off", file: file, line: line)
            } else {
                let level = Measure.dB(Measure.rms(left[Int(from * 48_000)..<Int(to * 48_000)]))
                XCTAssertLessThan(level, -100, "\(options): key \(key) is not mapped: silent", file: file, line: line)
            }
        }
        let from = 0.3 * Double(keys.count) + 0.05, to = 0.3 * Double(keys.count + 1) - 0.01
        XCTAssertEqual(1200 * log2(peak(near: bent, left, from: from, to: to) / bent), 0, accuracy: 1,
                       "\(options): A4 bent +1 semitone at \(bent) Hz, cents off", file: file, line: line)
    }

    /// `--scale` alone: 12 keys a period from the scale's root on --tone-note (A4 = 440 Hz
    /// with the default tone), each key the step nearest its 12-TET place (17-EDO: step
    /// round(j·17/12) for the key j semitones above A); with --scale-root, the root on the
    /// key nearest it.
    func testScaleAloneMapsTwelveKeysAPeriod() throws {
        try check(["--scale", "edo:17"], bent: 440 * pow(2, 1.0 / 12)) { key in
            let j = key - 69, period = j >= 0 ? j / 12 : -((-j + 11) / 12), within = j - 12 * period
            return 440 * pow(2, Double(17 * period + Int((Double(within) * 17 / 12).rounded())) / 17)
        }
        let just: [Double] = [1, 16.0 / 15, 9.0 / 8, 6.0 / 5, 5.0 / 4, 4.0 / 3, 45.0 / 32, 3.0 / 2, 8.0 / 5, 5.0 / 3, 9.0 / 5, 15.0 / 8]
        let c4 = 261.625565
        try check(["--scale", kbm.appendingPathComponent("just-12.scl").path, "--scale-root", "261.625565"], bent: c4 * 5 / 3 * pow(2, 1.0 / 12)) { key in
            let k = key - 60
            return c4 * pow(2, Double(k >= 0 ? k / 12 : -1)) * just[(k % 12 + 12) % 12]
        }
    }

    /// `--scale` with `--kbm`: the mapping's keys, reference and formal octave; `--kbm`
    /// alone: 12-TET through the mapping.
    func testKeyboardMappingsOfEachKind() throws {
        let c4 = 261.625565
        let justRoot = 264.0
        let just: [Double] = [1, 16.0 / 15, 9.0 / 8, 6.0 / 5, 5.0 / 4, 4.0 / 3, 45.0 / 32, 3.0 / 2, 8.0 / 5, 5.0 / 3, 9.0 / 5, 15.0 / 8]
        try check(["--scale", kbm.appendingPathComponent("just-12.scl").path, "--kbm", kbm.appendingPathComponent("linear-60-440-69.kbm").path],
                  bent: 440 * pow(2, 1.0 / 12)) { key in
            let k = key - 60
            return justRoot * pow(2, Double(k >= 0 ? k / 12 : -1)) * just[(k % 12 + 12) % 12]
        }
        // White keys: C D E F G A B are the 7 steps, the black keys play nothing.
        let white: [Int: Int] = [59: -1, 60: 0, 62: 1, 64: 2, 67: 4, 69: 5, 71: 6, 72: 7]
        try check(["--scale", "edo:7", "--kbm", kbm.appendingPathComponent("whitekeys-c261.kbm").path], bent: c4 * pow(2, 5.0 / 7 + 1.0 / 12)) { key in
            white[key].map { c4 * pow(2, Double($0) / 7) }
        }
        // 7 consecutive keys a major scale of 12-TET, A4 (step 16) at 442 Hz; no --scale.
        let major: [Int: Int] = [59: -1, 60: 0, 61: 2, 62: 4, 64: 7, 67: 12, 69: 16, 70: 17, 71: 19, 72: 21, 73: 23]
        try check(["--kbm", kbm.appendingPathComponent("a442-7-to-12.kbm").path], bent: 442 * pow(2, 1.0 / 12)) { key in
            major[key].map { 442 * pow(2, Double($0 - 16) / 12) }
        }
        // Patterns of 3 and 5 keys whose middle key is not the reference key (the Hz
        // worked out in KeyboardMapTests, and by Surge's tuning library).
        let three: [Int: Double] = [59: 100, 60: 125, 61: 175, 62: 200, 64: 350, 67: 700, 69: 1000, 70: 1400, 71: 1600, 72: 2000, 73: 2800]
        try check(["--scale", kbm.appendingPathComponent("exact4.scl").path, "--kbm", kbm.appendingPathComponent("threenote-mid60-ref62.kbm").path],
                  bent: 1000 * pow(2, 1.0 / 12)) { three[$0] }
        let five = 220 * pow(2, 7.0 / 5)  // key 64, the root: key 57 (step −7) is 220 Hz
        let fiveSteps: [Int: Int] = [59: -5, 60: -4, 62: -2, 64: 0, 67: 3, 69: 5, 70: 6, 72: 8, 73: 9]  // 61, 71: x
        try check(["--scale", "edo:5", "--kbm", kbm.appendingPathComponent("fivenote-mid64-ref57.kbm").path],
                  bent: five * 2 * pow(2, 1.0 / 12)) { key in fiveSteps[key].map { five * pow(2, Double($0) / 5) } }
        // Keys 48…72 only and B not mapped: 59, 71 (the B's) and 73 are silent.
        try check(["--kbm", kbm.appendingPathComponent("range-48-72-x.kbm").path], bent: 440 * pow(2, 1.0 / 12)) { key in
            key % 12 == 11 || key > 72 ? nil : 440 * pow(2, Double(key - 69) / 12)
        }
    }

    /// Issue 38: Surge XT's tuning-library's rule by default — the white-keys map with
    /// formal octave 7 over 12-TET plays key 60 at 246.94 Hz (the library's assertion; the
    /// expected Hz of each key in TuningLibraryTests), `--kbm-rule scala` at 329.63 Hz;
    /// an `.ascl`'s REFERENCE_PITCH (4 9 440.0, 5-limit just from C) puts its root, 264
    /// Hz, on key 60.
    func testTuningLibraryRuleAndAbletonScale() throws {
        let library = kbm.appendingPathComponent("tuning-library")
        func tet(_ key: Int) -> Double { 440 * pow(2, Double(key - 69) / 12) }
        let twelve = ["--scale", library.appendingPathComponent("12-intune.scl").path, "--kbm", library.appendingPathComponent("whitekeys-a440.kbm").path]
        let white: [Int: Double] = [59: tet(58), 60: 246.9416506281, 62: tet(65), 64: tet(66), 67: tet(68), 69: 440, 71: tet(70), 72: tet(71)]
        try check(twelve, bent: 440 * pow(2, 1.0 / 12)) { white[$0] }
        var scala = white
        scala[59] = tet(63)
        scala[60] = tet(64)
        try check(twelve + ["--kbm-rule", "scala"], bent: 440 * pow(2, 1.0 / 12)) { scala[$0] }
        let just: [Double] = [1, 16.0 / 15, 9.0 / 8, 6.0 / 5, 5.0 / 4, 4.0 / 3, 45.0 / 32, 3.0 / 2, 8.0 / 5, 5.0 / 3, 9.0 / 5, 15.0 / 8]
        try check(["--scale", library.appendingPathComponent("just-a440.ascl").path], bent: 440 * pow(2, 1.0 / 12)) { key in
            let k = key - 60
            return 264 * pow(2, Double(k >= 0 ? k / 12 : -1)) * just[(k % 12 + 12) % 12]
        }
    }

    /// A malformed mapping or .ascl, a mapping given to --scale, a scale given to --kbm,
    /// --scale-root beside --kbm or an .ascl, a wrong --kbm-rule or one without --kbm:
    /// exit 2, the file and line (or the option) named, no output.
    func testBadMappingsExitTwoNamingFileAndLine() throws {
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let wav = dir.appendingPathComponent("out.wav").path
        let mid = fixtures.appendingPathComponent("mido-keys.mid").path
        let bad = kbm.appendingPathComponent("bad")
        let ascl = dir.appendingPathComponent("index.ascl")
        try Data(("12-TET\n12\n" + (1...11).map { "\($0 * 100).0\n" }.joined() + "2/1\n! @ABL REFERENCE_PITCH 4 12 440.0\n").utf8).write(to: ascl)
        let cases: [([String], String)] = [
            (["--kbm", bad.appendingPathComponent("blank-line.kbm").path], "\(bad.path)/blank-line.kbm:5: expected the middle key, where the first entry is mapped (0…127), got a blank line"),
            (["--kbm", bad.appendingPathComponent("garbage-key.kbm").path], "\(bad.path)/garbage-key.kbm:11: expected entry 4 of 12"),
            (["--kbm", bad.appendingPathComponent("missing-entry.kbm").path], "\(bad.path)/missing-entry.kbm:19: expected entry 12 of 12"),
            (["--kbm", bad.appendingPathComponent("unmapped-reference.kbm").path], "\(bad.path)/unmapped-reference.kbm:17: expected a scale degree for the reference key 69"),
            (["--scale", kbm.appendingPathComponent("whitekeys-c261.kbm").path], "option '--scale': '\(kbm.path)/whitekeys-c261.kbm' is a Scala keyboard mapping (.kbm), not a scale; give it with --kbm"),
            (["--kbm", kbm.appendingPathComponent("just-12.scl").path], "option '--kbm': '\(kbm.path)/just-12.scl' is a Scala scale (.scl), not a keyboard mapping; give it with --scale"),
            (["--kbm", kbm.appendingPathComponent("whitekeys-c261.kbm").path, "--scale", "edo:7", "--scale-root", "300"], "option '--scale-root' does not apply with '--kbm'"),
            (["--kbm", dir.appendingPathComponent("none.kbm").path], "none.kbm: no such file; expected a Scala keyboard mapping (.kbm)"),
            (["--scale", ascl.path], "\(ascl.path):15: expected REFERENCE_PITCH's note index (the degree whose frequency follows: a whole number 0…11, 0 the root), got '! @ABL REFERENCE_PITCH 4 12 440.0'"),
            (["--scale", kbm.appendingPathComponent("tuning-library/just-a440.ascl").path, "--scale-root", "300"], "option '--scale-root' does not apply with an Ableton scale (.ascl)"),
            (["--kbm", kbm.appendingPathComponent("whitekeys-c261.kbm").path, "--kbm-rule", "literal"], "option '--kbm-rule': expected 'tuning-library' or 'scala', got 'literal'"),
            (["--scale", "edo:7", "--kbm-rule", "scala"], "option '--kbm-rule' applies with '--kbm' only"),
        ]
        for (options, message) in cases {
            let r = try BinaryRunner.run(["render", "--no-config", mid, "-o", wav] + options)
            XCTAssertEqual(r.status, 2, "\(options): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(message), "\(options): \(r.stderr)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: wav), "\(options): no output file")
        }
    }
}
