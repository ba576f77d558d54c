// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import Foundation
import XCTest

/// `bendsynth replay`: conversion to a touch script, offline render, malformed input.
final class ReplayCommandTests: XCTestCase {
    var evdevFolder: String {
        if let path = ProcessInfo.processInfo.environment["BENDSYNTH_REALWORLD"] { return path + "/evdev" }
        return BinaryRunner.packageRoot.deletingLastPathComponent().appendingPathComponent("shared/realworld/evdev").path
    }

    func testRecordingBecomesATouchScriptAndAWAV() throws {
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let names = try FileManager.default.contentsOfDirectory(atPath: evdevFolder)
        let desc = evdevFolder + "/" + names.first { $0.hasPrefix("RW-04_") && $0.hasSuffix(".desc") }!
        let events = evdevFolder + "/" + names.first { $0.hasPrefix("RW-04_") && $0.hasSuffix(".events") }!
        let script = dir.appendingPathComponent("take.jsonl").path, wav = dir.appendingPathComponent("take.wav").path
        let r = try BinaryRunner.run(["replay", desc, events, "--touches", script, "-o", wav])
        XCTAssertEqual(r.status, 0, r.stderr)
        // The script is a valid part-1 touch script: 2 touches, each ended, ~3 s.
        let parsed = try TouchScript.load(path: script)
        let downs = parsed.entries.filter { if case .touch(_, .down, _, _) = $0.event { true } else { false } }.count
        let ups = parsed.entries.filter { if case .touch(_, .up, _, _) = $0.event { true } else { false } }.count
        XCTAssertEqual(downs, 2)
        XCTAssertEqual(ups, 2)
        XCTAssertEqual(parsed.duration, 2.993822, accuracy: 1e-6)
        XCTAssertTrue(FileManager.default.fileExists(atPath: wav))
        // Rendering the script again gives a WAV of the same length (the script's x/y
        // are rounded to 6 decimals, so samples differ in the last bits).
        let wav2 = dir.appendingPathComponent("again.wav").path
        XCTAssertEqual(try BinaryRunner.run(["render", script, "-o", wav2]).status, 0)
        XCTAssertEqual(FileManager.default.contents(atPath: wav)?.count, FileManager.default.contents(atPath: wav2)?.count)
    }

    func testMalformedRecordingExits2NamingTheLineAndWritesNothing() throws {
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let bad = dir.appendingPathComponent("bad.evemu").path
        try "N: Pad\nI: 0003 0000 0000 0000\nA: 35 0 100 0 0\nE: 0.000000 0003 0035 5\nE: 0.010000 0003".write(toFile: bad, atomically: true, encoding: .utf8)
        let r = try BinaryRunner.run(["replay", bad, "-o", dir.appendingPathComponent("o.wav").path, "--touches", dir.appendingPathComponent("o.jsonl").path])
        XCTAssertEqual(r.status, 2)
        XCTAssertEqual(r.stderr, "bendsynth: replay: \(bad):5: expected 'E: seconds.micros type code value', got 2 fields (truncated?)\n")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), ["bad.evemu"])
    }

    /// RW-14 (an eGalax screen whose touches cover x 426…3711 of its declared 30…4040):
    /// replayed with `--pitch-map exp --octaves 2`, the touches reach neither end of the
    /// pad (x 0.099…0.918, ratios 0.57…1.78); with `--axis-range auto`, or the range
    /// given for the device, they reach both (x 0 and 1: ratios 0.5 and 2, the pitch
    /// range's ends). A malformed value is a usage error.
    func testAxisRangeMakesRW14ReachTheEndsOfThePitchRange() throws {
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let names = try FileManager.default.contentsOfDirectory(atPath: evdevFolder)
        let desc = evdevFolder + "/" + names.first { $0.hasPrefix("RW-14_") && $0.hasSuffix(".desc") }!
        let events = evdevFolder + "/" + names.first { $0.hasPrefix("RW-14_") && $0.hasSuffix(".events") }!
        func xs(_ options: [String]) throws -> [Double] {
            let script = dir.appendingPathComponent("take-\(UUID().uuidString).jsonl").path
            let r = try BinaryRunner.run(["replay", desc, events, "--touches", script, "--pitch-map", "exp", "--octaves", "2"] + options)
            XCTAssertEqual(r.status, 0, r.stderr)
            return try TouchScript.load(path: script).entries.compactMap { if case let .touch(_, .down, x, _) = $0.event { x } else if case let .touch(_, .move, x, _) = $0.event { x } else { nil } }
        }
        let declared = try xs([])
        XCTAssertEqual(declared.min() ?? 0, (426 - 30) / 4010.0, accuracy: 1e-6)
        XCTAssertEqual(declared.max() ?? 0, (3711 - 30) / 4010.0, accuracy: 1e-6)
        for options in [["--axis-range", "auto"], ["--axis-range", "0eef:0001=426:3711,415:3576"]] {
            let x = try xs(options)
            XCTAssertEqual(x.min(), 0, "\(options): the low end (ratio 0.5)")
            XCTAssertEqual(x.max(), 1, "\(options): the high end (ratio 2)")
        }
        let bad = try BinaryRunner.run(["replay", desc, events, "--axis-range", "426:3711"])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains("option '--axis-range': '426:3711': expected two ranges, x and y, separated by a comma"), bad.stderr)
    }

    func testEvdevOptionErrorsAreUsageErrors() throws {
        let r = try BinaryRunner.run(["play", "--evdev", "event3", "--no-terminal"])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("option '--evdev': expected 'auto' or a device path such as /dev/input/event3, got 'event3'"), r.stderr)
        XCTAssertEqual(try BinaryRunner.run(["replay", "x.evemu", "--tilt-axis", "z"]).status, 2)
    }
}
