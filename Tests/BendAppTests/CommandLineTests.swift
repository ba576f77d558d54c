// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem
import XCTest
import Foundation
import BendTestSupport

final class CommandLineTests: XCTestCase {
    func testHelpGoesToStdoutWithExitZero() throws {
        for args in [["--help"], ["render", "--help"], ["play", "--help"], ["devices", "--help"]] {
            let r = try BinaryRunner.run(args)
            XCTAssertEqual(r.status, 0, "\(args)")
            XCTAssertTrue(r.stdout.contains("usage: bendsynth"), "\(args): \(r.stdout)")
        }
    }

    func testBadUsageExitsTwoNamingTheProblem() throws {
        let cases: [([String], String)] = [
            ([], "usage: bendsynth"),
            (["wobble"], "unknown command 'wobble'"),
            (["render", "--bogus"], "unknown option '--bogus'"),
            (["render", "x.jsonl"], "missing -o OUT.wav"),
            (["render", "-o"], "needs a value"),
            (["render", "x.jsonl", "-o", "y.wav", "--voices", "0"], "'--voices': expected an integer in 1…4096"),
            (["render", "x.jsonl", "-o", "y.wav", "--pitch-map", "log"], "expected 'linear' or 'exp'"),
            (["bench"], "the benches are their own executable, bendsynth-bench"),
        ]
        for (args, words) in cases {
            let r = try BinaryRunner.run(args)
            XCTAssertEqual(r.status, 2, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(words), "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("usage: bendsynth"), "the usage comes with the error: \(r.stderr)")
        }
    }

    /// getopt_long conventions: --name=value, short options, operands anywhere, `--`.
    func testOptionParserFollowsGNUConventions() throws {
        let specs = [OptionSpec("output", "o", value: "F", help: ""), OptionSpec("json", help: ""), OptionSpec("rate", "r", value: "N", help: "")]
        let (opts, operands) = try OptionParser.parse(["a.jsonl", "--output=x.wav", "-r48000", "--json", "--", "--not-an-option"], specs: specs)
        XCTAssertEqual(opts.map(\.0), ["output", "rate", "json"])
        XCTAssertEqual(opts.map(\.1), ["x.wav", "48000", nil])
        XCTAssertEqual(operands, ["a.jsonl", "--not-an-option"])
        XCTAssertThrowsError(try OptionParser.parse(["--rate"], specs: specs)) { XCTAssertTrue("\($0)".contains("'--rate' needs a value")) }
        XCTAssertThrowsError(try OptionParser.parse(["-x"], specs: specs)) { XCTAssertTrue("\($0)".contains("unknown option '-x'")) }
    }

    /// An optional value (`--listen [ADDR][:PORT]`) bare wherever it stands: the next word
    /// is its value only when it is an address or port; `=` binds any.
    func testABareOptionalValueTakesOnlyAnAddressFromTheNextWord() throws {
        let specs = [OptionSpec("listen", value: "[ADDR][:PORT]", help: ""), OptionSpec("web", value: "[ADDR][:PORT]", help: ""),
                     OptionSpec("no-terminal", help: ""), OptionSpec("device", "d", value: "PCM", help: "")]
        func parsed(_ args: [String]) throws -> [String] {
            let (opts, operands) = try OptionParser.parse(args, specs: specs)
            return opts.map { "\($0.0)=\($0.1 ?? "nil")" } + operands.map { "operand:\($0)" }
        }
        XCTAssertEqual(try parsed(["--listen", "--no-terminal", "-d", "null"]), ["listen=", "no-terminal=nil", "device=null"])
        XCTAssertEqual(try parsed(["--no-terminal", "--web"]), ["no-terminal=nil", "web="])
        XCTAssertEqual(try parsed(["--web", "--listen"]), ["web=", "listen="])
        XCTAssertEqual(try parsed(["--listen", "47810", "--web", "0.0.0.0"]), ["listen=47810", "web=0.0.0.0"])
        XCTAssertEqual(try parsed(["--listen", ":5000", "--web", "[::1]:8443", "--listen", "localhost"]), ["listen=:5000", "web=[::1]:8443", "listen=localhost"])
        XCTAssertEqual(try parsed(["--listen=myhost", "--lis", "10.0.0.2:4"]), ["listen=myhost", "listen=10.0.0.2:4"])
        XCTAssertEqual(try parsed(["--listen", "myhost"]), ["listen=", "operand:myhost"])
        XCTAssertEqual(try parsed(["--", "--listen"]), ["operand:--listen"])
        XCTAssertFalse(OptionSpec("osc", value: "[ADDR:]PORT", help: "").valueIsOptional, "a port is needed")
    }

    /// `play --listen --no-terminal` and `play --web --no-terminal`: loopback on the
    /// default port (or that port in use), never the next option taken as an address.
    func testPlayWithABareListenOrWebListensOnLoopbacksDefaultPort() throws {
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for (option, address) in [("--listen", "127.0.0.1:47810"), ("--web", "127.0.0.1:47880")] {
            // Listening there, or told the port is in use (another instrument has it):
            // either way the address is the default's. Stopped once it has said so.
            let log = dir.appendingPathComponent("\(option).err").path
            FileManager.default.createFile(atPath: log, contents: nil)
            let p = Process()
            p.executableURL = BinaryRunner.executable
            p.arguments = ["play", option, "--no-terminal", "-d", "null"]
            p.standardInput = FileHandle(forReadingAtPath: "/dev/null")
            p.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
            p.standardError = FileHandle(forWritingAtPath: log)
            try p.run()
            let said = Poll.until(10) { ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains(address) || !p.isRunning }
            if p.isRunning { kill(p.processIdentifier, SIGTERM) }
            p.waitUntilExit()
            let stderr = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            XCTAssertTrue(said && stderr.contains(address), "\(option): \(stderr)")
            XCTAssertFalse(stderr.contains("--no-terminal'"), stderr)
        }
        let host = try BinaryRunner.run(["play", "--listen", "myhost", "--no-terminal", "-d", "null"])
        XCTAssertEqual(host.status, 2)
        XCTAssertTrue(host.stderr.contains("play: unexpected argument 'myhost' (a host name after --listen or --web goes with '=': --listen=myhost)"), host.stderr)
    }

    /// A bad script is an error naming the line and field, exit 2, and no OUT.wav.
    func testRenderBadScriptLeavesNoOutput() throws {
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let script = dir.appendingPathComponent("bad.jsonl")
        try """
        {"t": 0, "type": "down", "id": 1, "x": 0.5, "y": 0.5}
        {"t": 0.5, "type": "move", "id": 2, "x": 0.5, "y": 0.5}
        """.write(to: script, atomically: true, encoding: .utf8)
        let out = dir.appendingPathComponent("out.wav")
        let r = try BinaryRunner.run(["render", script.path, "-o", out.path])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("bad.jsonl:2: field \"id\": touch 2 is not down"), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.path))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), ["bad.jsonl"], "no temporary file left")
    }

    /// A tone libsndfile rejects is an error naming the file and its reason, exit 2.
    func testRenderBadToneIsAnInputError() throws {
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let tone = dir.appendingPathComponent("notes.txt")
        try "not audio".write(to: tone, atomically: true, encoding: .utf8)
        let out = dir.appendingPathComponent("out.wav")
        let r = try BinaryRunner.run(["render", BinaryRunner.packageRoot.appendingPathComponent("Assets/demo.jsonl").path,
                                      "-o", out.path, "--tone", tone.path])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("notes.txt") && r.stderr.contains("libsndfile"), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.path))
    }

    /// The demo renders: it sounds, ends after its last touch has faded, and its
    /// first touch plays the tone's 440 Hz.
    func testRenderDemo() throws {
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("demo.wav")
        let r = try BinaryRunner.run(["render", BinaryRunner.packageRoot.appendingPathComponent("Assets/demo.jsonl").path, "-o", out.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        let (samples, frames, channels, rate) = try WAVReader.read(out.path)
        XCTAssertEqual(channels, 2)
        XCTAssertEqual(rate, 48_000)
        XCTAssertEqual(Double(frames) / 48_000, 4.0, accuracy: 0.02, "ends ≤ 20 ms after the last up at 4.0 s")
        let mono = stride(from: 0, to: 2 * 24_000, by: 2).map { samples[$0] + samples[$0 + 1] }  // first 0.5 s: touch 1 alone at x 0.5
        XCTAssertEqual(Measure.peakFrequency(mono, rate: 48_000), 440, accuracy: 2.2)
    }
}
