// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import XCTest

/// bendsynth copied away from its checkout (no assets, no VERSION file beside it) knows
/// its version, compiled in, and says where it looked for its assets with each folder
/// named once.
final class CopiedBinaryTests: XCTestCase {
    func testACopiedBinaryKnowsItsVersionAndNamesEachFolderOnce() throws {
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let copy = dir.appendingPathComponent("bendsynth")
        try FileManager.default.copyItem(at: BinaryRunner.executable, to: copy)
        func run(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
            let p = Process()
            p.executableURL = copy
            p.arguments = arguments
            var env = ProcessInfo.processInfo.environment
            env["BENDSYNTH_ASSETS"] = nil
            p.environment = env
            let out = Pipe(), err = Pipe()
            p.standardOutput = out
            p.standardError = err
            try p.run()
            let o = out.fileHandleForReading.readDataToEndOfFile(), e = err.fileHandleForReading.readDataToEndOfFile()
            p.waitUntilExit()
            return (p.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
        }
        let version = try String(contentsOf: BinaryRunner.packageRoot.appendingPathComponent("VERSION"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let first = try run(["--version"]).stdout.split(separator: "\n").first.map(String.init) ?? ""
        XCTAssertTrue(first.hasPrefix("bendsynth \(version)"), "compiled in, not read beside the binary: \(first)")

        // A script to render, and no default tone beside the copy.
        let script = dir.appendingPathComponent("take.jsonl")
        try (#"{"t": 0, "type": "tilt", "value": 0}"# + "\n").write(to: script, atomically: true, encoding: .utf8)
        let missing = try run(["render", script.path, "-o", dir.appendingPathComponent("x.wav").path])
        XCTAssertEqual(missing.status, 2, missing.stderr)
        try checkLookedIn(missing.stderr, below: dir.path)
        // The web page's files, said before the audio device opens.
        let tone = BinaryRunner.packageRoot.appendingPathComponent("Assets/synth_tone_mono.caf").path
        let web = try run(["play", "-d", "null", "--no-terminal", "--web", "127.0.0.1:0", "--tone", tone])
        XCTAssertEqual(web.status, 1, web.stderr)
        XCTAssertTrue(web.stderr.contains("play --web: the web page's files (index.html, pad.js, pad.css) are not found"), web.stderr)
        XCTAssertFalse(web.stderr.contains("ALSA"), "before the device opens: \(web.stderr)")
        try checkLookedIn(web.stderr, below: dir.path)
    }

    func checkLookedIn(_ stderr: String, below dir: String) throws {
        let looked = try XCTUnwrap(stderr.range(of: "looked in: ").map { stderr[$0.upperBound...] }?.prefix { $0 != ")" }, stderr)
        let folders = looked.components(separatedBy: ", ")
        XCTAssertEqual(folders.count, Set(folders).count, "each folder once: \(folders)")
        XCTAssertTrue(folders.first?.hasPrefix(dir) ?? false, "beside the binary first: \(folders)")
        XCTAssertEqual(stderr.components(separatedBy: "looked in").count - 1, 1, "said once: \(stderr)")
    }
}
