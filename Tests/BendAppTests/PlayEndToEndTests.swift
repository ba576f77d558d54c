// SPDX-License-Identifier: GPL-3.0-or-later
import XCTest
import Foundation
import BendTestSupport

/// `bendsynth play` as a user runs it: through ALSA, and in a terminal.
final class PlayEndToEndTests: XCTestCase {
    /// The demo script played live through an alsa-lib `file` PCM (raw float capture
    /// over the `null` PCM, defined in a test-only ALSA_CONFIG_PATH) is byte for byte
    /// the offline render of the same script, followed by silence.
    func testPlayThroughALSAFilePCMMatchesOfflineRender() throws {
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let capture = dir.appendingPathComponent("capture.raw").path
        let config = dir.appendingPathComponent("asound.conf")
        try """
        pcm.capture_test {
            type file
            slave.pcm { type null }
            file "\(capture)"
            format "raw"
        }
        """.write(to: config, atomically: true, encoding: .utf8)
        let demo = BinaryRunner.packageRoot.appendingPathComponent("Assets/demo.jsonl").path
        // `--interp cubic`: live play makes the band-limited tables on a thread while it
        // starts (voices read cubic until they are in), so only cubic is byte-exact
        // between a live run and an offline one; the limiter is on in both.
        let played = try BinaryRunner.run(["play", "--no-terminal", "--script", demo, "-d", "capture_test", "--interp", "cubic"],
                                          environment: ["ALSA_CONFIG_PATH": config.path])
        XCTAssertEqual(played.status, 0, played.stderr)
        XCTAssertTrue(played.stderr.contains("48000 Hz, period 256 frames, buffer 768 frames (16.0 ms), FLOAT_LE"), played.stderr)
        let wav = dir.appendingPathComponent("render.wav").path
        let rendered = try BinaryRunner.run(["render", demo, "-o", wav, "--interp", "cubic"])
        XCTAssertEqual(rendered.status, 0, rendered.stderr)

        let captured = try Data(contentsOf: URL(fileURLWithPath: capture))
        let reference = try WAVReader.read(wav)
        let referenceBytes = reference.samples.withUnsafeBytes { Data($0) }
        XCTAssertGreaterThanOrEqual(captured.count, referenceBytes.count)
        XCTAssertEqual(captured.prefix(referenceBytes.count), referenceBytes, "captured bytes = offline render")
        XCTAssertTrue(captured.dropFirst(referenceBytes.count).allSatisfy { $0 == 0 }, "silence after the render's end")
        XCTAssertGreaterThan(Measure.rms(reference.samples), 0.01, "the demo is not silent")
    }

    /// Standard input that is not a terminal is a usage error without another source.
    func testPlayNeedsATerminalOrAnotherSource() throws {
        let r = try BinaryRunner.run(["play", "-d", "null"])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("standard input is not a terminal"), r.stderr)
    }

    /// No device and no recording: says so, lists the PCMs, exits 1.
    func testPlayWithoutDeviceOrRecordingFails() throws {
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let demo = BinaryRunner.packageRoot.appendingPathComponent("Assets/demo.jsonl").path
        let r = try BinaryRunner.run(["play", "--no-terminal", "--script", demo, "-d", "bendsynth_no_such_pcm"])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("cannot open ALSA PCM 'bendsynth_no_such_pcm'"), r.stderr)
        XCTAssertTrue(r.stderr.contains("null"), "lists the PCMs that exist: \(r.stderr)")
    }
}
