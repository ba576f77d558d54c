// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Glibc
import XCTest

/// Issue 38 item 5: a render killed with SIGKILL leaves nothing in the output folder (it
/// writes an unnamed `O_TMPFILE` file, linked in only once complete).
final class RenderKillTests: XCTestCase {
    func testKilledRenderLeavesNothingInTheFolder() throws {
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let script = dir.appendingPathComponent("long.jsonl").path
        try (#"{"t": 0, "type": "down", "id": 1, "x": 0.5, "y": 1}"# + "\n" + #"{"t": 3000, "type": "up", "id": 1}"# + "\n")
            .write(toFile: script, atomically: true, encoding: .utf8)
        let p = Process()
        p.executableURL = BinaryRunner.executable
        p.arguments = ["render", "--no-config", script, "-o", out.appendingPathComponent("take.wav").path]
        p.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try p.run()
        // Wait until the render has written 4 MB into the file it holds open in `out`.
        var size = 0
        try waitUntil("the render to write 4 MB") {
            let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(p.processIdentifier)/fd")) ?? []
            for fd in fds {
                let link = "/proc/\(p.processIdentifier)/fd/\(fd)"
                guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: link), target.hasPrefix(out.path) else { continue }
                var info = stat()
                if stat(link, &info) == 0 { size = Int(info.st_size) }
            }
            return size > 4 << 20
        }
        let during = try FileManager.default.contentsOfDirectory(atPath: out.path)
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        let after = try FileManager.default.contentsOfDirectory(atPath: out.path)
        print("render killed with SIGKILL after \(size) bytes: the folder held \(during) while it ran, \(after) after")
        XCTAssertEqual(during, [], "nothing in the folder while the render runs")
        XCTAssertEqual(after, [], "nothing in the folder after kill -9")
        // A render that completes still names its file, replacing an old one.
        let short = dir.appendingPathComponent("short.jsonl").path
        try (#"{"t": 0, "type": "down", "id": 1, "x": 0.5, "y": 1}"# + "\n" + #"{"t": 0.5, "type": "up", "id": 1}"# + "\n")
            .write(toFile: short, atomically: true, encoding: .utf8)
        for _ in 0..<2 {
            let r = try BinaryRunner.run(["render", "--no-config", short, "-o", out.appendingPathComponent("take.wav").path])
            XCTAssertEqual(r.status, 0, r.stderr)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out.path), ["take.wav"])
        XCTAssertGreaterThan(WAVReader.frames(out.appendingPathComponent("take.wav").path), 24_000)
    }
}
