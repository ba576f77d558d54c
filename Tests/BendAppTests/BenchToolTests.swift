// SPDX-License-Identifier: GPL-3.0-or-later
import XCTest
import Foundation

/// `bendsynth-bench`, the benches' own executable: its command line, a figure of each
/// kind it prints, and that the shipped `bendsynth` links none of it.
final class BenchToolTests: XCTestCase {
    func bench(_ arguments: [String]) throws -> BinaryRunner.Result {
        try BinaryRunner.run(arguments, tool: "bendsynth-bench")
    }

    /// `--help` to stdout, exit 0; every mode (an option whose help starts "instead:") is
    /// in the usage lines at its top.
    func testHelpNamesEveryMode() throws {
        let r = try bench(["--help"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.hasPrefix("usage: bendsynth-bench "), r.stdout)
        let usage = r.stdout.components(separatedBy: "\n\n")[0]
        let modes = r.stdout.split(separator: "\n")
            .compactMap { line -> String? in
                guard let m = line.range(of: #"^\s+(-\w, )?--[a-z0-9-]+( \S+)?\s+instead:"#, options: .regularExpression) else { return nil }
                return line[m].split(separator: " ").first { $0.hasPrefix("--") }.map(String.init)
            }
        XCTAssertEqual(Set(modes), ["--evdev", "--peers", "--osc", "--clock", "--web", "--soak", "--lv2", "--sounds"], r.stdout)
        for mode in modes {
            XCTAssertTrue(usage.contains(mode + " ") || usage.contains(mode + "\n") || usage.hasSuffix(mode), "\(mode) not in: \(usage)")
        }
    }

    /// Bad usage and bad input exit 2 with the usage line; the message names the option or file.
    func testBadUsageAndInputExitTwo() throws {
        let cases: [([String], String)] = [
            (["--voices", "a,b"], "option '--voices': expected a comma-separated list of counts in 1…65536, got 'a,b'"),
            (["--bogus"], "unknown option '--bogus'"),
            (["extra"], "unexpected argument 'extra'"),
            (["--evdev", "/nonexistent/x.evemu"], "/nonexistent/x.evemu"),
            (["--web", "nothere.py"], "--web 'nothere.py': no such file; expected the pad driver, a Python script"),
            (["--web", "/tmp"], "--web '/tmp': is a folder"),
            (["--lv2", "/tmp"], "--lv2 '/tmp': no bendsynth.lv2 bundle in it"),
            (["--sounds", "--sound-case", "loud"], "option '--sound-case': expected plain, loops, crossfade or filter, got 'loud'"),
        ]
        for (args, words) in cases {
            let r = try bench(args)
            XCTAssertEqual(r.status, 2, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.hasPrefix("bendsynth-bench: "), "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(words), "\(args): \(r.stderr)")
        }
        XCTAssertTrue(try bench(["--bogus"]).stderr.contains("usage: bendsynth-bench"))
    }

    /// The mixer's figures as JSON: every voice sounding, a cost per voice-frame measured.
    func testMixerFigureAsJSON() throws {
        let r = try bench(["--voices", "4,16", "--period", "64", "--seconds", "0.05", "--interp", "cubic", "--json"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let rows = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]], r.stdout)
        XCTAssertEqual(rows.map { $0["voices"] as? Int }, [4, 16])
        XCTAssertEqual(rows.map { $0["activeVoices"] as? Int }, [4, 16])
        for row in rows {
            XCTAssertEqual(row["periodFrames"] as? Int, 64)
            XCTAssertEqual(row["interpolation"] as? String, "cubic")
            XCTAssertGreaterThan(try XCTUnwrap(row["nsPerVoiceFrame"] as? Double), 0)
            XCTAssertGreaterThan(try XCTUnwrap(row["peak"] as? Double), 1e-4, "the render was not silent")
        }
    }

    /// `--sounds`: a row for each case of the user's own sounds, each with its figure and its
    /// ratio to the plain tone (the bench exits 1 when a case's voices are not all sounding).
    func testSoundsTableHasEveryCase() throws {
        let r = try bench(["--sounds", "--voices", "8", "--period", "64", "--seconds", "0.05", "--interp", "cubic"])
        XCTAssertEqual(r.status, 0, r.stderr)
        for title in ["plain tone, looped whole", "sustain loop (attack, loop)", "zone crossfade on every touch (2 voices each)",
                      "low-pass filter on every voice"] {
            XCTAssertNotNil(r.stdout.range(of: #"\| "# + NSRegularExpression.escapedPattern(for: title) + #" \| [0-9.]+ \| [0-9.]+ \|"#,
                                           options: .regularExpression), "\(title): \(r.stdout)")
        }
        XCTAssertTrue(r.stdout.contains("| plain tone, looped whole |") && r.stdout.contains(" | 1.00 |"), r.stdout)
    }

    /// `--lv2`: the plugin (`make lv2`'s bundle) beside the standalone instrument — every
    /// voice sounding in both (their levels' ratio 1 within 5 %, else it exits 1) — and
    /// the three instruments' rows, each with a CPU figure per held-note count it plays.
    func testLV2FiguresOfThePluginAndTheOtherInstruments() throws {
        let folder = BinaryRunner.packageRoot.appendingPathComponent(".build/lv2")
        guard FileManager.default.fileExists(atPath: folder.appendingPathComponent("bendsynth.lv2/bendsynth.so").path) else {
            throw XCTSkip("no .build/lv2/bendsynth.lv2: `make test` builds it (make lv2)")
        }
        let r = try BinaryRunner.run(["--lv2", folder.path, "--seconds", "0.05", "--voices", "64"], timeout: 300, tool: "bendsynth-bench")
        XCTAssertEqual(r.status, 0, r.stderr)
        let ratio = try XCTUnwrap(r.stdout.range(of: #"(?<=\| plugin ÷ standalone \| )[0-9.]+(?=× )"#, options: .regularExpression).map { Double(r.stdout[$0])! }, r.stdout)
        XCTAssertGreaterThan(ratio, 0, r.stdout)
        XCTAssertTrue(r.stdout.contains("the plugin's output level is"), r.stdout)
        for name in ["bendsynth.lv2", "samplv1 0.9.29", "synthv1 0.9.29"] {
            let row = try XCTUnwrap(r.stdout.split(separator: "\n").first { $0.hasPrefix("| \(name) |") }, r.stdout)
            let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            XCTAssertGreaterThan(Double(cells[2]) ?? 0, 0, "\(name): CPU at 1 held note: \(row)")
            XCTAssertGreaterThan(Double(cells[5]) ?? 0, Double(cells[2]) ?? .infinity, "\(name): 64 notes cost more than 1: \(row)")
        }
    }

    /// `--evdev` (what `replay --latency` was): a recording replayed through the live read
    /// loop; every frame of touch events is rendered and measured.
    func testEvdevLatencyOfARecording() throws {
        let evemu = BinaryRunner.packageRoot.appendingPathComponent("Tests/BendEvdevTests/Fixtures/drag-two-fingers.evemu").path
        let syncs = try String(contentsOfFile: evemu, encoding: .utf8).split(separator: "\n")
            .filter { $0.hasPrefix("E:") && $0.hasSuffix(" 0000 0000 0") }.count
        let r = try bench(["--evdev", evemu, "--period", "64"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let frames = try XCTUnwrap(r.stdout.range(of: #"(?<=evdev read → render: )\d+(?= frames of events, period 64 frames \(1\.33 ms\): median )"#,
                                                  options: .regularExpression).map { Int(r.stdout[$0])! }, r.stdout)
        XCTAssertGreaterThan(frames, syncs / 2, "frames measured of \(syncs) in the recording: \(r.stdout)")
        XCTAssertLessThanOrEqual(frames, syncs, r.stdout)
    }

    /// The shipped binary holds no bench (no symbol of the BendBench module); the bench
    /// tool does.
    func testShippedBinaryLinksNoBench() throws {
        let module = Data("9BendBench".utf8)  // the module's name as Swift mangles it into every symbol
        let shipped = try Data(contentsOf: BinaryRunner.executable("bendsynth"))
        let tool = try Data(contentsOf: BinaryRunner.executable("bendsynth-bench"))
        XCTAssertNotNil(tool.range(of: module), "the bench tool's symbols name BendBench")
        XCTAssertNil(shipped.range(of: module), "bendsynth links BendBench")
        let r = try BinaryRunner.run(["bench"])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("bendsynth-bench"), r.stderr)
    }
}
