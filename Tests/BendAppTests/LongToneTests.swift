// SPDX-License-Identifier: GPL-3.0-or-later
import BendTestSupport
import Foundation
import Glibc
import XCTest

/// Issue 29 items 8 and 13: long tones. A tone too long for band-limited tables plays
/// with cubic interpolation and one note line in `render` as in `play` (render exited 2);
/// a 20 s tone's tables are announced with their size, and the render's peak memory
/// stays under twice the tables (1.27 GB for 307 MB of tables before).
final class LongToneTests: XCTestCase {
    var dir: URL!
    override func setUpWithError() throws { dir = try BinaryRunner.temporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(at: dir) }
    func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

    /// `seconds` of a 220 Hz tone (harmonics 1…3), float WAV at 48 kHz.
    func writeTone(seconds: Int) -> String {
        let p = path("tone\(seconds).wav")
        writeSoundFile(p, Measure.harmonicTone(frames: 48_000 * seconds, cycles: 220 * seconds), rate: 48_000)
        return p
    }

    func writeScript() throws -> String {
        let p = path("s.jsonl")
        try "{\"t\":0,\"type\":\"down\",\"id\":1,\"x\":0.5,\"y\":0.8}\n{\"t\":0.5,\"type\":\"up\",\"id\":1}\n".write(toFile: p, atomically: true, encoding: .utf8)
        return p
    }

    /// 33 s at 48 kHz is 1 584 000 frames, over the 1 536 000 tables are made for:
    /// render and play both say so in one note line and play the tone with cubic
    /// interpolation (220 Hz in the WAV).
    func testATooLongToneRendersAndPlaysCubicWithOneNote() throws {
        let tone = writeTone(seconds: 33), script = try writeScript()
        let note = "note: tone '\(tone)': 1584000 frames at the output rate: band-limited tables are made for tones of at most 1536000 frames "
            + "(32 s at 48 kHz; 320 bytes a frame: this one's would take 507 MB); the voices read it with cubic interpolation"
        let out = path("o.wav")
        let r = try BinaryRunner.run(["render", script, "-t", tone, "--tone-note", "57", "-o", out])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains(note), r.stderr)
        let left = Measure.channel(try WAVReader.read(out).samples, 0)
        XCTAssertEqual(Measure.peakFrequency(Array(left[2_400..<21_600]), rate: 48_000), 220, accuracy: 1)
        let play = try BinaryRunner.run(["play", "--no-terminal", "--no-config", "-d", "null", "--script", script, "-t", tone, "--tone-note", "57"],
                                        timeout: 60)
        XCTAssertEqual(play.status, 0, play.stderr)
        XCTAssertTrue(play.stderr.contains(note), play.stderr)
    }

    /// A 20 s tone (960 000 frames: 307 MB of tables): announced before they are made,
    /// their time said after, and the render's peak resident memory (the child's
    /// ru_maxrss) under twice the tables.
    ///
    /// The render is started by a small python3 that then waits for it: Linux carries the
    /// high-water mark of the memory a process had before its execve into its ru_maxrss,
    /// and a render started straight from this test process (hundreds of MB into the suite)
    /// read that process's peak, not its own (641 MB where it was 543 MB alone).
    func testTwentySecondToneTablesPeakUnderTwiceTheirSize() throws {
        let tone = writeTone(seconds: 20), script = try writeScript()
        let err = path("err.txt")
        let launcher = """
            import os, sys
            fds = os.open("/dev/null", os.O_RDWR), os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            pid = os.posix_spawn(sys.argv[2], sys.argv[2:], os.environ, file_actions=[
                (os.POSIX_SPAWN_DUP2, fds[0], 0), (os.POSIX_SPAWN_DUP2, fds[0], 1), (os.POSIX_SPAWN_DUP2, fds[1], 2)])
            _, status, usage = os.wait4(pid, 0)
            print(os.waitstatus_to_exitcode(status), usage.ru_maxrss)
            """
        let args = ["/usr/bin/python3", "-c", launcher, err, BinaryRunner.executable.path,
                    "render", script, "-t", tone, "--tone-note", "57", "-o", path("o.wav")]
        let (launched, output) = try BinaryRunner.spawn(args)
        XCTAssertEqual(launched, 0, output)
        let fields = output.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        guard fields.count == 2 else { return XCTFail("the launcher printed '\(output)', not an exit code and ru_maxrss") }
        let stderr = (try? String(contentsOfFile: err, encoding: .utf8)) ?? ""
        XCTAssertEqual(fields[0], 0, stderr)
        XCTAssertTrue(stderr.contains("note: tone '\(tone)': making its band-limited tables: 307 MB (320 bytes a frame at 48000 Hz)"), stderr)
        XCTAssertTrue(stderr.contains("note: tone '\(tone)': band-limited tables made: 307 MB in "), stderr)
        let peak = Double(fields[1]) * 1024  // ru_maxrss is in kilobytes on Linux
        let tables = 320.0 * 960_000
        print(String(format: "20 s tone: tables %.0f MB, peak resident %.0f MB (%.2f×)", tables / 1e6, peak / 1e6, peak / tables))
        XCTAssertLessThan(peak, 2 * tables)
    }
}
