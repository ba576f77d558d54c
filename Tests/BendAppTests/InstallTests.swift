// SPDX-License-Identifier: GPL-3.0-or-later
import XCTest
import Foundation
import BendTestSupport

/// `make install` into a temporary DESTDIR: the installed binary runs from another
/// folder and uses the files installed beside it, not the checkout's; the LV2 bundle
/// (`make lv2`, which install builds) goes to PREFIX/lib/lv2/bendsynth.lv2.
final class InstallTests: XCTestCase {
    func make(_ target: String, destdir: URL) throws {
        let r = try BinaryRunner.spawn(["make", "-s", "-C", BinaryRunner.packageRoot.path, target,
                                        "BIN=\(BinaryRunner.executable.path)", "PREFIX=/usr/local", "DESTDIR=\(destdir.path)",
                                        "GEN=\(destdir.path)-generated"])
        XCTAssertEqual(r.status, 0, "make \(target): \(r.output)")
    }

    /// Runs the installed binary with the working directory `cwd`, no BENDSYNTH_ASSETS.
    func runInstalled(_ bin: URL, _ args: [String], cwd: URL) throws -> Int32 {
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "BENDSYNTH_ASSETS")
        let p = Process()
        p.executableURL = bin
        p.arguments = args
        p.environment = env
        p.currentDirectoryURL = cwd
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        return p.terminationStatus
    }

    func testInstalledBinaryUsesItsOwnAssetsAndUninstallRemovesEverything() throws {
        let root = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root); try? FileManager.default.removeItem(atPath: root.path + "-generated") }
        try make("install", destdir: root)
        let prefix = root.appendingPathComponent("usr/local")
        let bin = prefix.appendingPathComponent("bin/bendsynth")
        let share = prefix.appendingPathComponent("share/bendsynth")
        for path in ["bin/bendsynth", "share/bendsynth/synth_tone_mono.caf", "share/bendsynth/demo.jsonl", "share/bendsynth/VERSION", "share/bendsynth/web/index.html",
                     "share/man/man1/bendsynth.1.gz", "share/bash-completion/completions/bendsynth", "share/zsh/vendor-completions/_bendsynth", "lib/systemd/user/bendsynth.service",
                     "lib/lv2/bendsynth.lv2/bendsynth.so", "lib/lv2/bendsynth.lv2/manifest.ttl", "lib/lv2/bendsynth.lv2/bendsynth.ttl",
                     "lib/lv2/bendsynth.lv2/synth_tone_mono.caf", "lib/lv2/bendsynth.lv2/web/index.html"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: prefix.appendingPathComponent(path).path), path)
        }
        // The installed demo renders with the installed tone, run from another folder.
        let work = root.appendingPathComponent("work")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        XCTAssertEqual(try runInstalled(bin, ["render", share.appendingPathComponent("demo.jsonl").path, "-o", "demo.wav"], cwd: work), 0)
        let demo = try WAVReader.read(work.appendingPathComponent("demo.wav").path)
        XCTAssertGreaterThan(Measure.dB(Measure.rms(demo.samples)), -40)
        // It is the installed tone that sounds, not the checkout's (440 Hz): make the
        // installed one 660 Hz and the render's pitch follows.
        let tone = share.appendingPathComponent("synth_tone_mono.caf").path
        XCTAssertEqual(try BinaryRunner.spawn(["sox", "-n", "-r", "48000", "-c", "1", "-t", "caf", tone, "synth", "1", "sine", "660"]).status, 0)
        let script = work.appendingPathComponent("a.jsonl")
        try "{\"t\": 0, \"type\": \"down\", \"id\": 1, \"x\": 0.5, \"y\": 1}\n{\"t\": 1, \"type\": \"up\", \"id\": 1}\n"
            .write(to: script, atomically: true, encoding: .utf8)
        XCTAssertEqual(try runInstalled(bin, ["render", script.path, "-o", "a.wav"], cwd: work), 0)
        let a = try WAVReader.read(work.appendingPathComponent("a.wav").path)
        XCTAssertEqual(Measure.peakFrequency(Measure.channel(a.samples, 0), rate: Double(a.rate)), 660, accuracy: 3)
        // make install writes VERSION (the checkout's, + the commit); --version says the
        // version compiled into the binary (the checkout's, + the commit under make), the
        // same installed or not.
        let version = try String(contentsOf: share.appendingPathComponent("VERSION"), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let checkout = try String(contentsOf: BinaryRunner.packageRoot.appendingPathComponent("VERSION"), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertTrue(version.hasPrefix(checkout), version)
        let out = try BinaryRunner.spawn([bin.path, "--version"]).output
        XCTAssertTrue(out.hasPrefix("bendsynth \(checkout)"), out)
        XCTAssertEqual(out.split(separator: "\n").first, try BinaryRunner.spawn([BinaryRunner.executable.path, "--version"]).output.split(separator: "\n").first)

        try FileManager.default.removeItem(at: work)
        try make("uninstall", destdir: root)
        let left = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String }
            .filter { !((try? FileManager.default.attributesOfItem(atPath: root.appendingPathComponent($0).path)[.type] as? FileAttributeType) == .typeDirectory) }
        XCTAssertEqual(left, [], "files left after make uninstall")
    }
}
