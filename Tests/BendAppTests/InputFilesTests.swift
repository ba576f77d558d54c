// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Glibc
import XCTest

/// Inputs that are not what a command expects, and inputs the command makes or finds
/// itself (the default shared key and web certificate made in the same run, the web
/// page's files): clear reasons with exit 2, and no output ever written over them.
final class InputFilesTests: XCTestCase {
    var dir: URL!
    override func setUpWithError() throws { dir = try BinaryRunner.temporaryDirectory() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }
    func path(_ name: String) -> String { dir.appendingPathComponent(name).path }
    var env: [String: String] { ["XDG_CONFIG_HOME": path("xdg"), "HOME": dir.path] }

    /// A folder or a device given as the script, a folder as the tone: exit 2 saying what
    /// it is (a folder made the MIDI sniffing trap: exit 132), and no output file.
    func testAFolderOrADeviceAsTheScriptIsRefused() throws {
        let cases: [([String], String)] = [
            (["render", dir.path, "-o", path("x.wav")], "\(dir.path): is a folder; expected a touch script (JSON Lines) or a MIDI file"),
            (["play", "--no-terminal", "--device", "null", "--script", dir.path], "\(dir.path): is a folder; expected a touch script"),
            (["render", "/dev/null", "-o", path("x.wav")], "/dev/null: is not a regular file (a device, a FIFO or a socket); expected a touch script"),
            // A folder as the tone: said so, as for a script (libsndfile said "Format not recognised.").
            (["render", path("s.jsonl"), "-t", dir.path, "-o", path("x.wav")], "tone file '\(dir.path)': is a folder; expected a sound file"),
            (["play", "--no-terminal", "--device", "null", "--script", path("s.jsonl"), "-t", dir.path], "tone file '\(dir.path)': is a folder; expected a sound file"),
        ]
        try "{\"t\": 0, \"type\": \"down\", \"id\": 1, \"x\": 0.5, \"y\": 0.5}\n{\"t\": 0.1, \"type\": \"up\", \"id\": 1}\n".write(toFile: path("s.jsonl"), atomically: true, encoding: .utf8)
        for (args, message) in cases {
            let r = try BinaryRunner.run(args + ["--no-config"], environment: env, timeout: 30)
            XCTAssertEqual(r.status, 2, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(message), "\(args): \(r.stderr)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("x.wav")))
    }

    /// A folder as the key file or the recording: the reason is that it is a folder (not
    /// "No such file or directory", not a line 0 of a folder).
    func testAFolderAsTheKeyFileOrTheRecordingIsNamedAsAFolder() throws {
        let demo = BinaryRunner.packageRoot.appendingPathComponent("Assets/demo.jsonl").path
        let cases: [([String], String)] = [
            (["play", "--no-terminal", "--device", "null", "--script", demo, "--listen", "127.0.0.1:0", "--key-file", dir.path],
             "key file '\(dir.path)' is a folder; expected a file of 64 hex digits"),
            (["replay", dir.path, "-o", path("y.wav")], "replay: \(dir.path): is a folder; expected an evemu recording"),
        ]
        for (args, message) in cases {
            let r = try BinaryRunner.run(args + ["--no-config"], environment: env, timeout: 30)
            XCTAssertEqual(r.status, 2, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(message), "\(args): \(r.stderr)")
            XCTAssertFalse(r.stderr.contains("No such file") || r.stderr.contains(":0:"), "\(args): \(r.stderr)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("y.wav")))
    }
}

extension InputFilesTests {
    var demo: String { BinaryRunner.packageRoot.appendingPathComponent("Assets/demo.jsonl").path }

    /// The default shared key and web certificate and key that play makes in this very
    /// run (none there yet) are inputs too: a recording named like one of them — also
    /// through a symbolic link to the folder — is refused with exit 2 before anything is
    /// made, read or written (a WAV header was left as the certificate).
    func testARecordingIsNeverTheDefaultKeyOrCertificateMadeInTheSameRun() throws {
        let config = path("xdg") + "/bendsynth"
        try FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
        XCTAssertEqual(symlink(path("xdg"), path("linked")), 0)
        let play = ["play", "--no-config", "--no-terminal", "--device", "null", "--script", demo, "--overwrite"]
        let cases: [([String], String)] = [
            (play + ["--listen", "127.0.0.1:0", "--record-touches", config + "/key"],
             "play: --record-touches '\(config)/key' is the shared key file; writing it would destroy it"),
            (play + ["--listen", "127.0.0.1:0", "--record", path("linked") + "/bendsynth/key"], "is the shared key file"),
            (play + ["--web", "127.0.0.1:0", "--web-https", "--record", config + "/web-cert.pem"],
             "play: --record '\(config)/web-cert.pem' is the web certificate;"),
            (play + ["--web", "127.0.0.1:0", "--record-midi", config + "/web-key.pem"], "is the web certificate's key;"),
        ]
        for (args, message) in cases {
            let r = try BinaryRunner.run(args, environment: env, timeout: 30)
            XCTAssertEqual(r.status, 2, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(message), "\(args): \(r.stderr)")
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: config), [], "\(args): nothing made")
        }
    }

    /// A bad default certificate is named as such, not as `--web-cert` (not given).
    func testABadDefaultCertificateIsNamedAsTheDefault() throws {
        let config = path("xdg") + "/bendsynth"
        try FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
        try "RIFF not a certificate".write(toFile: config + "/web-cert.pem", atomically: true, encoding: .utf8)
        try "not a key".write(toFile: config + "/web-key.pem", atomically: true, encoding: .utf8)
        let r = try BinaryRunner.run(["play", "--no-config", "--no-terminal", "--device", "null", "--script", demo,
                                      "--web", "127.0.0.1:0", "--web-https"], environment: env, timeout: 30)
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("the default web certificate '\(config)/web-cert.pem': not a PEM certificate"), r.stderr)
        XCTAssertFalse(r.stderr.contains("--web-cert"), r.stderr)
    }

    /// The web page's files (Assets/web, here through BENDSYNTH_ASSETS) are inputs of
    /// `play --web`: a recording over one is refused (exit 2) and it stays byte for byte.
    func testARecordingIsNeverAWebPageFile() throws {
        let assets = path("assets")
        try FileManager.default.copyItem(atPath: BinaryRunner.packageRoot.appendingPathComponent("Assets").path, toPath: assets)
        let pad = assets + "/web/pad.js"
        let before = try Data(contentsOf: URL(fileURLWithPath: pad))
        var environment = env
        environment["BENDSYNTH_ASSETS"] = assets
        let r = try BinaryRunner.run(["play", "--no-config", "--no-terminal", "--device", "null", "--script", demo,
                                      "--web", "127.0.0.1:0", "--record-touches", pad, "--overwrite"], environment: environment, timeout: 30)
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("play: --record-touches '\(pad)' is the web page's file; writing it would destroy it"), r.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: pad)), before)
    }

    /// `render io.jsonl -o - 1<>io.jsonl`: standard output is the input (same device and
    /// inode): exit 2, the input byte for byte. A regular file that is not an input takes
    /// the WAV as before.
    func testStandardOutputThatIsTheInputIsRefused() throws {
        let io = path("io.jsonl")
        try FileManager.default.copyItem(atPath: demo, toPath: io)
        let before = try Data(contentsOf: URL(fileURLWithPath: io))
        func render(stdout file: String) throws -> (status: Int32, stderr: String) {
            let p = Process(), err = Pipe()
            p.executableURL = BinaryRunner.executable
            p.arguments = ["render", "--no-config", io, "-o", "-"]
            p.environment = ProcessInfo.processInfo.environment.merging(env) { $1 }
            p.standardOutput = try XCTUnwrap(FileHandle(forUpdatingAtPath: file))  // 1<>file: not truncated
            p.standardError = err
            try p.run()
            let e = err.fileHandleForReading.readDataToEndOfFile()
            p.waitUntilExit()
            return (p.terminationStatus, String(decoding: e, as: UTF8.self))
        }
        let r = try render(stdout: io)
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("render: -o '-' is standard output, which is the input '\(io)'; writing it would destroy it"), r.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: io)), before)
        FileManager.default.createFile(atPath: path("out.wav"), contents: nil)
        let ok = try render(stdout: path("out.wav"))
        XCTAssertEqual(ok.status, 0, ok.stderr)
        XCTAssertGreaterThan(WAVReader.frames(path("out.wav")), 0)
    }
}
