// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import XCTest

/// With every send at 0 (the default), `render` writes the same bytes as before the send
/// effects existed: the demo, an SFZ instrument and a MIDI file, against SHA-256s of
/// renders made on 35696df (the commit before the effects), in this debug build — with
/// that commit's defaults given as options (`seed`: the linear map, no rounding, 0 dB).
final class GoldenRenderTests: XCTestCase {
    func sha256(_ path: String) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        p.arguments = [path]
        let pipe = Pipe()
        p.standardOutput = pipe
        try p.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(String(decoding: data, as: UTF8.self).prefix(64))
    }

    func testDryRendersAreTheBytesTheyWereBeforeTheEffects() throws {
        let root = BinaryRunner.packageRoot.path
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cases: [(String, [String], String)] = [
            ("demo", ["Assets/demo.jsonl"], "bef2d888e32c43720779d2a3fce1595ecbbb94a2c944fd6581508b7704dd7505"),
            ("sfz", ["Assets/demo.jsonl", "--tone", "Assets/soft-keys.sfz"], "86ec8e13f01e0099252a8c0a2059ff0595360ed7575c753033132e10f5a8b00b"),
            ("midi", ["Tests/BendMIDITests/Fixtures/mido-silence-eot.mid"], "31d976742c1a7764cbf5c4101cc913e3544d3dfa6c870fd5313f3ad62df35355"),
        ]
        for (name, args, golden) in cases {
            let out = dir.appendingPathComponent("\(name).wav").path
            let seed = ["--pitch-map", "linear", "--round", "off", "-g", "0"]
            let r = try BinaryRunner.run(["render", "--no-config"] + seed + args.enumerated().map { $0.offset == 0 || args[$0.offset - 1] == "--tone" ? root + "/" + $0.element : $0.element } + ["-o", out])
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertEqual(try sha256(out), golden, "\(name): the dry render's bytes")
        }
    }
}
