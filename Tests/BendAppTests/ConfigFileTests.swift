// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem
import XCTest
import Foundation
@testable import BendApp

/// The config file: sections, precedence (command line > --config / user file), errors
/// naming the file and line, --no-config. Measured by the rate of the WAV `render` writes.
final class ConfigFileTests: XCTestCase {
    var dir: URL!
    var script: URL!

    override func setUpWithError() throws {
        dir = try BinaryRunner.temporaryDirectory()
        script = dir.appendingPathComponent("a.jsonl")
        try "{\"t\": 0, \"type\": \"down\", \"id\": 1, \"x\": 0.5, \"y\": 1}\n{\"t\": 0.1, \"type\": \"up\", \"id\": 1}\n"
            .write(to: script, atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("bendsynth"), withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    func writeUserConfig(_ text: String) throws {
        try text.write(to: dir.appendingPathComponent("bendsynth/bendsynth.conf"), atomically: true, encoding: .utf8)
    }

    /// Renders with XDG_CONFIG_HOME in the test folder; the WAV's rate, or nil on failure.
    func renderRate(_ extra: [String] = []) throws -> (rate: Int32?, result: BinaryRunner.Result) {
        let out = dir.appendingPathComponent("out.wav")
        try? FileManager.default.removeItem(at: out)
        let r = try BinaryRunner.run(["render", script.path, "-o", out.path] + extra, environment: ["XDG_CONFIG_HOME": dir.path])
        let rate = r.status == 0 ? try WAVReader.read(out.path).rate : nil
        return (rate, r)
    }

    func testSectionsAndPrecedence() throws {
        try writeUserConfig("""
        # comment
        [play]
        rate = 22050
        no-terminal = true

        [render]
        rate = 32000   # the render section's rate
        voices = 8
        """)
        XCTAssertEqual(try renderRate().rate, 32_000, "the [render] section applies, not [play]")
        XCTAssertEqual(try renderRate(["-r", "44100"]).rate, 44_100, "the command line wins")
        XCTAssertEqual(try renderRate(["--rate=44100"]).rate, 44_100)
        XCTAssertEqual(try renderRate(["--no-config"]).rate, 48_000, "--no-config: the default")
        let other = dir.appendingPathComponent("other.conf")
        try "[render]\nrate = 16000\n".write(to: other, atomically: true, encoding: .utf8)
        XCTAssertEqual(try renderRate(["--config", other.path]).rate, 16_000, "--config replaces the user file")
        XCTAssertEqual(try renderRate(["--config=\(other.path)", "-r", "8000"]).rate, 8_000)
        // --help lists the config options (one table).
        XCTAssertTrue(try BinaryRunner.run(["render", "--help"]).stdout.contains("--no-config"))
    }

    func testErrorsNameTheFileAndLine() throws {
        let cases: [(String, String)] = [
            ("[render]\nbogus = 1\n", "bendsynth.conf:2: unknown key 'bogus' in [render]"),
            ("[render]\n\nvoices = 0\n", "bendsynth.conf:3: voices = …: option '--voices': expected an integer in 1…4096, got '0'"),
            ("[render]\nrate\n", "bendsynth.conf:2: expected 'key = value', got 'rate'"),
            ("[wobble]\n", "bendsynth.conf:1: unknown section '[wobble]'"),
            ("rate = 1\n", "bendsynth.conf:1: 'rate' comes before any section"),
            ("[play]\nno-terminal = maybe\n", "bendsynth.conf:2: 'no-terminal' is a flag; expected true or false, got 'maybe'"),
            ("[render]\nrate =\n", "bendsynth.conf:2: 'rate' needs a value (HZ)"),
            ("[render]\nhelp = true\n", "bendsynth.conf:2: unknown key 'help'"),
        ]
        for (text, message) in cases {
            try writeUserConfig(text)
            let (rate, r) = try renderRate()
            XCTAssertNil(rate)
            XCTAssertEqual(r.status, 2, text)
            XCTAssertTrue(r.stderr.contains(message), "\(text): \(r.stderr)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: dir.appendingPathComponent("out.wav").path))
            XCTAssertEqual(try renderRate(["--no-config"]).rate, 48_000, "--no-config skips the bad file")
        }
        // A bad value given on the command line is named as the command line's, not the file's.
        try writeUserConfig("[render]\nvoices = 0\n")
        let r = try renderRate(["--voices", "5000"]).result
        XCTAssertEqual(r.status, 2)
        XCTAssertFalse(r.stderr.contains("bendsynth.conf"), r.stderr)
        // --config naming a missing file; --config with --no-config.
        let missing = try renderRate(["--config", dir.appendingPathComponent("none.conf").path]).result
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.stderr.contains("none.conf': cannot read it (No such file or directory)"), missing.stderr)
        XCTAssertEqual(try renderRate(["--config", "x", "--no-config"]).result.status, 2)
    }
}

extension ConfigFileTests {
    /// Runs `render` in a private user and mount namespace whose /etc is an overlay of the
    /// real one holding `etcConfig` as /etc/bendsynth.conf (the real /etc is never written).
    /// The WAV's rate, or nil (with the output) on failure; throws XCTSkip when the kernel
    /// refuses unprivileged user namespaces or overlays.
    func renderRateWithSystemConfig(_ etcConfig: String, _ extra: [String] = []) throws -> Int32? {
        let upper = dir.appendingPathComponent("etc-upper"), work = dir.appendingPathComponent("etc-work")
        for d in [upper, work] {
            try? FileManager.default.removeItem(at: d)
            try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        }
        try etcConfig.write(to: upper.appendingPathComponent("bendsynth.conf"), atomically: true, encoding: .utf8)
        let out = dir.appendingPathComponent("out.wav")
        try? FileManager.default.removeItem(at: out)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        // The mount happens only inside the new namespace: "$0" is the binary.
        p.arguments = ["--user", "--map-root-user", "--mount", "sh", "-c",
                       "mount -t overlay overlay -o lowerdir=/etc,upperdir=\(upper.path),workdir=\(work.path) /etc || exit 77; exec \"$0\" \"$@\"",
                       BinaryRunner.executable.path, "render", script.path, "-o", out.path] + extra
        p.environment = ProcessInfo.processInfo.environment.merging(["XDG_CONFIG_HOME": dir.path]) { $1 }
        let err = Pipe()
        p.standardError = err
        try p.run()
        let e = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        if p.terminationStatus == 77 || e.contains("unshare failed") { throw XCTSkip("no unprivileged user namespace with an overlay here: \(e)") }
        guard p.terminationStatus == 0 else { XCTFail("render failed (\(p.terminationStatus)): \(e)"); return nil }
        return try WAVReader.read(out.path).rate
    }

    /// /etc/bendsynth.conf is read first, the user's file after it (so the user's wins),
    /// and the command line after both; --config and --no-config skip /etc too.
    func testSystemFileIsReadBeforeTheUsersFile() throws {
        let system = "[render]\nrate = 16000\nvoices = 4\n"
        XCTAssertEqual(try renderRateWithSystemConfig(system), 16_000, "/etc/bendsynth.conf alone applies")
        try writeUserConfig("[render]\nrate = 22050\n")
        XCTAssertEqual(try renderRateWithSystemConfig(system), 22_050, "the user's file comes after /etc and wins")
        XCTAssertEqual(try renderRateWithSystemConfig(system, ["-r", "8000"]), 8_000, "the command line wins over both")
        XCTAssertEqual(try renderRateWithSystemConfig(system, ["--no-config"]), 48_000, "--no-config skips /etc")
        let own = dir.appendingPathComponent("own.conf")
        try "[render]\nvoices = 2\n".write(to: own, atomically: true, encoding: .utf8)
        XCTAssertEqual(try renderRateWithSystemConfig(system, ["--config", own.path]), 48_000, "--config reads only its file")
    }

    /// A flag the config file turns on is turned off again by `--no-FLAG` on the command
    /// line (measured by `devices` printing only the PCM names, or its full listing whose
    /// first line is "Playback cards"); `--X` takes back a `no-X` flag.
    func testCommandLineTurnsAConfigFlagOff() throws {
        try writeUserConfig("[devices]\npcm-names = true\n")
        let env = ["XDG_CONFIG_HOME": dir.path]
        let on = try BinaryRunner.run(["devices"], environment: env)
        XCTAssertEqual(on.status, 0, on.stderr)
        XCTAssertTrue(on.stdout.split(separator: "\n").contains("null"), "the config's pcm-names = true: \(on.stdout)")
        XCTAssertFalse(on.stdout.contains("Playback cards"), "the config's pcm-names = true: \(on.stdout)")
        let off = try BinaryRunner.run(["devices", "--no-pcm-names"], environment: env)
        XCTAssertEqual(off.status, 0, off.stderr)
        XCTAssertTrue(off.stdout.hasPrefix("Playback cards"), "--no-pcm-names turns it off: \(off.stdout)")
        // Order counts: a later --pcm-names turns it on again.
        let again = try BinaryRunner.run(["devices", "--no-pcm-names", "--pcm-names"], environment: env)
        XCTAssertFalse(again.stdout.contains("Playback cards"), again.stdout)
        // A no-X flag's negation is --X.
        let parsed = try OptionParser.parse(["--no-terminal", "--terminal", "--load-stats", "--no-load-stats", "--no-terminal"], specs: PlayCommand.specs)
        XCTAssertEqual(parsed.options.map(\.0), ["no-terminal"])
        // Options with a value and --help have no negation.
        XCTAssertThrowsError(try OptionParser.parse(["--no-device"], specs: PlayCommand.specs))
        XCTAssertTrue(try BinaryRunner.run(["devices", "--help"]).stdout.contains("--no-FLAG"))
    }
}

extension ConfigFileTests {
    /// A later `flag = false` takes back an earlier `flag = true`, as a later value wins; a
    /// folder given to --config is named as one; an error the command line's negation
    /// caused is not blamed on the config line it undid.
    func testLaterFalseUndoesTrueFolderAndBlame() throws {
        let env = ["XDG_CONFIG_HOME": dir.path]
        try writeUserConfig("[devices]\npcm-names = true\npcm-names = false\n")
        let r = try BinaryRunner.run(["devices"], environment: env)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.hasPrefix("Playback cards"), "pcm-names = false after pcm-names = true: \(r.stdout)")

        let folder = try BinaryRunner.run(["render", script.path, "-o", dir.appendingPathComponent("f.wav").path, "--config", dir.path])
        XCTAssertEqual(folder.status, 2)
        XCTAssertTrue(folder.stderr.contains("'\(dir.path)': is a folder"), folder.stderr)

        try writeUserConfig("[play]\nno-terminal = true\ndevice = null\n")
        let blamed = try BinaryRunner.run(["play", "--script", script.path, "--terminal"], environment: env)
        XCTAssertEqual(blamed.status, 2, blamed.stderr)
        XCTAssertTrue(blamed.stderr.contains("not a terminal"), blamed.stderr)
        XCTAssertFalse(blamed.stderr.contains("bendsynth.conf:"), "the command line's --terminal is the cause: \(blamed.stderr)")
    }
}
