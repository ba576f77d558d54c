// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Glibc
import XCTest

/// A running `bendsynth play --web …` (standard error into a file, read as it grows),
/// and the clients that talk to it: headless Chromium driven over its DevTools pipe
/// (web/pad_driver.py) and a bare WebSocket client (web/ws_client.py).
final class WebPlayProcess {
    let process = Process()
    let dir: URL
    let stderrPath: String
    let touchesPath: String
    /// The address printed, `http(s)://127.0.0.1:PORT/#TOKEN`.
    private(set) var url = ""

    init(_ arguments: [String], dir: URL, environment: [String: String] = [:]) throws {
        self.dir = dir
        stderrPath = dir.appendingPathComponent("stderr.txt").path
        touchesPath = dir.appendingPathComponent("T.jsonl").path
        FileManager.default.createFile(atPath: stderrPath, contents: nil)
        process.executableURL = BinaryRunner.executable
        // The web tests place fingers by the seed's linear map, unrounded, unless they
        // choose a map, a scale or rounding themselves (DefaultSoundTests and the LV2 pad
        // test measure the defaults).
        let chooses = arguments.contains { ["--pitch-map", "--scale", "--round"].contains($0) }
        let seed = chooses ? [] : ["--pitch-map", "linear", "--round", "off"]
        process.arguments = ["play", "--device", "null", "--no-terminal", "--record-touches", touchesPath] + seed + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        process.standardError = FileHandle(forWritingAtPath: stderrPath)
        try process.run()
        try Poll.require("the web pad's address", seconds: 30) { urlLine != nil || !process.isRunning }
        url = try XCTUnwrap(urlLine, stderr)
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }
    private var urlLine: String? {
        stderr.split(separator: "\n").first { $0.hasPrefix("http://") || $0.hasPrefix("https://") }.map(String.init)
    }
    var port: String { String(url.split(separator: "/")[1].split(separator: ":")[1]) }
    var token: String { String(url.split(separator: "#")[1]) }

    /// The touch script written so far, a dictionary per line.
    var touches: [[String: Any]] {
        ((try? String(contentsOfFile: touchesPath, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// SIGTERM, then the exit status.
    func terminate() -> Int32 {
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Runs a script of web/ to its end (stdin from `input`, or /dev/null); its status and
    /// standard output's lines, split in fields. Standard error goes to the test's log.
    func run(_ script: String, _ arguments: [String]) throws -> (status: Int32, lines: [[String]]) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        p.arguments = [BinaryRunner.packageRoot.appendingPathComponent("Tests/BendAppTests/web/" + script).path] + arguments
        p.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        return (p.terminationStatus, lines)
    }

    /// The pad driver (headless Chromium) with `scenario`; `driver`: another script of
    /// web/ driving it (layout_driver.py).
    func chromium(_ scenario: String, url: String? = nil, _ arguments: [String] = [], driver: String = "pad_driver.py") throws -> [[String]] {
        let (status, lines) = try run(driver, [scenario, url ?? self.url] + arguments)
        XCTAssertEqual(status, 0, "\(driver) \(scenario) failed (its message is in the log); play said:\n\(stderr)")
        XCTAssertEqual(lines.last, ["done"])
        return lines
    }
}

/// A fresh folder for one test's files.
func webTestDirectory() throws -> URL {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bendsynth-web-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir
}
