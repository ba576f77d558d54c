// SPDX-License-Identifier: GPL-3.0-or-later
import BendTestSupport
import Foundation
import XCTest

/// `play --record` writes the format of its name's extension, as `render -o` does (FLAC
/// 24-bit, Ogg Vorbis, …), and an extension nothing is written in is bad usage, said
/// before anything plays.
final class RecordFormatTests: XCTestCase {
    var dir: URL!
    override func setUpWithError() throws { dir = try BinaryRunner.temporaryDirectory() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    func soxi(_ flag: String, _ path: String) throws -> String {
        try BinaryRunner.spawn(["soxi", flag, path]).output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func testTheExtensionChoosesTheFormatAndAnUnknownOneIsRefusedBeforePlaying() throws {
        let script = dir.appendingPathComponent("a.jsonl").path
        try "{\"t\": 0, \"type\": \"down\", \"id\": 1, \"x\": 0.5, \"y\": 1}\n{\"t\": 0.6, \"type\": \"up\", \"id\": 1}\n"
            .write(toFile: script, atomically: true, encoding: .utf8)
        for (name, type, bits) in [("take.flac", "flac", "24"), ("take.ogg", "vorbis", "0"), ("take.caf", "caf", "32")] {
            let take = dir.appendingPathComponent(name).path
            let r = try BinaryRunner.run(["play", "-d", "null", "--no-terminal", "--script", script, "--record", take])
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertEqual(try soxi("-t", take), type, "\(name): \(r.stderr)")
            XCTAssertEqual(try soxi("-b", take), bits, name)
            // What sounded: the tone's 440 Hz, read back through sox as float WAV.
            let wav = dir.appendingPathComponent(name + ".wav").path
            XCTAssertEqual(try BinaryRunner.spawn(["sox", take, "-e", "floating-point", "-b", "32", wav]).status, 0)
            let left = Measure.channel(try WAVReader.read(wav).samples, 0)
            let first = try XCTUnwrap(left.firstIndex { abs($0) > 1e-4 }, name)
            XCTAssertEqual(Measure.peakFrequency(Array(left[(first + 2_400)..<(first + 24_000)]), rate: 48_000), 440, accuracy: 3, name)
            XCTAssertTrue(r.stderr.contains("recorded '\(take)' (\(name.hasSuffix("flac") ? "FLAC s24" : name.hasSuffix("ogg") ? "Ogg Vorbis" : "CAF f32")):"), r.stderr)
        }
        let mp3 = dir.appendingPathComponent("take.mp3").path
        let r = try BinaryRunner.run(["play", "-d", "null", "--no-terminal", "--script", script, "--record", mp3])
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("play: --record: cannot tell the format of '\(mp3)' from its extension '.mp3'; expected .wav, .flac, .ogg, .aiff, .aif or .caf"), r.stderr)
        XCTAssertFalse(r.stderr.contains("played"), "said before playing: \(r.stderr)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: mp3))
    }

    /// A folder one cannot make a file in (/proc: writable by its mode to root, yet no
    /// file can be made there) is named, before anything is played or rendered.
    func testAnOutputInAFolderThatTakesNoFileNamesTheFolder() throws {
        let script = BinaryRunner.packageRoot.appendingPathComponent("Assets/demo.jsonl").path
        let render = try BinaryRunner.run(["render", script, "-o", "/proc/x.wav"])
        XCTAssertEqual(render.status, 2, render.stderr)
        XCTAssertTrue(render.stderr.contains("render: -o '/proc/x.wav': cannot make a file in the folder '/proc' ("), render.stderr)
        XCTAssertFalse(render.stderr.contains("sf_open"), render.stderr)
        let play = try BinaryRunner.run(["play", "-d", "null", "--no-terminal", "--script", script, "--record", "/proc/x.wav"])
        XCTAssertEqual(play.status, 2, play.stderr)
        XCTAssertTrue(play.stderr.contains("play: --record '/proc/x.wav': cannot make a file in the folder '/proc' ("), play.stderr)
    }
}
