// SPDX-License-Identifier: GPL-3.0-or-later
import XCTest
import Foundation

/// Every command through every class of error: the exit code the README gives (2 bad
/// usage or input, 1 runtime failure), a message naming what is wrong, and the same
/// answer for the same mistake whichever command it is made with.
final class ExitCodeTableTests: XCTestCase {
    var dir: URL!
    override func setUpWithError() throws { dir = try BinaryRunner.temporaryDirectory() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

    func testEveryCommandThroughEveryErrorClass() throws {
        let script = path("a.jsonl")
        try "{\"t\": 0, \"type\": \"down\", \"id\": 1, \"x\": 0.5, \"y\": 0.5}\n{\"t\": 0.2, \"type\": \"up\", \"id\": 1}\n"
            .write(toFile: script, atomically: true, encoding: .utf8)
        var bad = Data("{\"t\": 0, \"type\": \"down\", \"id\": 1, \"x\": 0.5, \"y\": 0.5}\n".utf8)
        bad.append(contentsOf: [0x7B, 0xFF, 0x7D, 0x0A])
        try bad.write(to: dir.appendingPathComponent("latin1.jsonl"))
        let evemu = BinaryRunner.packageRoot.appendingPathComponent("Tests/BendEvdevTests/Fixtures/drag-two-fingers.evemu").path
        let desc = path("dev.desc")
        try (try String(contentsOfFile: evemu, encoding: .utf8)).split(separator: "\n").filter { !$0.hasPrefix("E:") }
            .joined(separator: "\n").appending("\n").write(toFile: desc, atomically: true, encoding: .utf8)
        let missing = path("no/such/folder/out.wav")
        let play = ["play", "--no-config", "--no-terminal", "--script", script]

        let cases: [(args: [String], status: Int32, message: String)] = [
            // Bad usage: every command, an unknown option.
            (["play", "--bogus"], 2, "unknown option '--bogus'"),
            (["render", "--bogus"], 2, "unknown option '--bogus'"),
            (["replay", "--bogus"], 2, "unknown option '--bogus'"),
            (["remote", "--bogus"], 2, "unknown option '--bogus'"),
            (["peers", "--bogus"], 2, "unknown option '--bogus'"),
            (["devices", "--bogus"], 2, "unknown option '--bogus'"),
            (["bench", "--voices", "1"], 2, "unknown command 'bench': the benches are their own executable, bendsynth-bench"),
            (["--bogus"], 2, "unknown option '--bogus'"),
            // A near miss: the nearest option or command.
            (["play", "--scael", "major"], 2, "unknown option '--scael'; did you mean '--scale'?"),
            (["play", "--ovrwrite"], 2, "unknown option '--ovrwrite'; did you mean '--overwrite'?"),
            (["rendr", "x.jsonl"], 2, "unknown command 'rendr'; did you mean 'render'?"),
            // Bad values and missing operands.
            (["render", script, "-o", path("x.wav"), "--rate", "5"], 2, "option '--rate': expected an integer in 8000…192000"),
            (["replay", evemu, "-o", path("x.wav"), "--rate", "5"], 2, "option '--rate': expected an integer in 8000…192000"),
            (play + ["--rate", "5"], 2, "option '--rate': expected an integer in 8000…192000"),
            (["render"], 2, "render: missing the touch script"),
            (["replay"], 2, "replay: missing the recording"),
            // Options that need another: --grab needs --evdev, as --allow needs --bluetooth.
            (play + ["--grab"], 2, "option '--grab' applies to --evdev devices only"),
            (["remote", "localhost:1", "--grab"], 2, "option '--grab' applies to --evdev devices only"),
            (play + ["--allow", "00:11:22:33:44:55"], 2, "--bluetooth"),
            // Bad input files.
            (["render", path("none.jsonl"), "-o", path("x.wav")], 2, "none.jsonl: no such file"),
            (["replay", path("none.evemu"), "-o", path("x.wav")], 2, "none.evemu"),
            (["render", path("latin1.jsonl"), "-o", path("x.wav")], 2, "latin1.jsonl:2: not UTF-8 text (the line starts at byte 54 of the file)"),
            (["replay", desc, "-o", path("x.wav")], 2, "dev.desc: the recording has no events; a .desc file comes with its .events file"),
            // A missing output folder, or a folder as the output: the same for every command.
            (["render", script, "-o", missing], 2, "render: -o '\(missing)': the folder '\(path("no/such/folder"))' does not exist"),
            (["replay", evemu, "-o", missing], 2, "replay: -o '\(missing)': the folder '\(path("no/such/folder"))' does not exist"),
            (["replay", evemu, "--touches", missing], 2, "replay: --touches '\(missing)': the folder"),
            (play + ["-d", "null", "--record", missing], 2, "play: --record '\(missing)': the folder '\(path("no/such/folder"))' does not exist"),
            (play + ["-d", "null", "--record-touches", missing], 2, "play: --record-touches '\(missing)': the folder"),
            (["render", script, "-o", dir.path], 2, "render: -o '\(dir.path)' is a folder; expected a file name"),
            (["replay", evemu, "-o", dir.path], 2, "replay: -o '\(dir.path)' is a folder; expected a file name"),
            (play + ["-d", "null", "--record", dir.path], 2, "play: --record '\(dir.path)' is a folder; expected a file name"),
            // Runtime failures: no sound output. Each suggests its own way out.
            (play + ["-d", "no_such_pcm"], 1, "no sound output: pick a PCM that opens with --device, or add --record FILE.wav"),
            (["replay", evemu, "-d", "no_such_pcm"], 1, "no sound output: pick a PCM that opens with --device, or render offline with -o OUT.wav"),
        ]
        for c in cases {
            let r = try BinaryRunner.run(c.args)
            XCTAssertEqual(r.status, c.status, "\(c.args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(c.message), "\(c.args): expected '\(c.message)' in: \(r.stderr)")
            if c.status == 2 && r.stderr.contains("unknown option") { XCTAssertTrue(r.stderr.contains("usage: bendsynth")) }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("x.wav")), "no output after an error")
    }

    /// play on the null PCM: no "recording only" when nothing records, no xruns for a
    /// clock-paced output; with --record it says it plays into the recording.
    func testMessagesAreTrue() throws {
        let script = path("a.jsonl")
        try "{\"t\": 0, \"type\": \"down\", \"id\": 1, \"x\": 0.5, \"y\": 0.5}\n{\"t\": 0.2, \"type\": \"up\", \"id\": 1}\n"
            .write(toFile: script, atomically: true, encoding: .utf8)
        let plain = try BinaryRunner.run(["play", "--no-config", "--no-terminal", "--script", script, "-d", "null"])
        XCTAssertEqual(plain.status, 0, plain.stderr)
        XCTAssertFalse(plain.stderr.contains("recording"), plain.stderr)
        XCTAssertFalse(plain.stderr.contains("xrun"), plain.stderr)
        XCTAssertTrue(plain.stderr.contains("ALSA 'null' (null PCM): rendering in real time, paced by the clock, 48000 Hz"), plain.stderr)
        let recorded = try BinaryRunner.run(["play", "--no-config", "--no-terminal", "--script", script, "-d", "null", "--record", path("r.wav")])
        XCTAssertEqual(recorded.status, 0, recorded.stderr)
        XCTAssertTrue(recorded.stderr.contains("paced by the clock, into the recording"), recorded.stderr)
    }
}
