// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import XCTest

/// Runs the built `bendsynth` executable (it sits beside the test bundle), or another
/// of the package's (`bendsynth-bench`).
enum BinaryRunner {
    static var executable: URL { executable("bendsynth") }

    static func executable(_ name: String) -> URL {
        var dir = Bundle.main.bundleURL
        for _ in 0..<3 {
            let candidate = dir.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            dir.deleteLastPathComponent()
        }
        return packageRoot.appendingPathComponent(".build/debug/" + name)
    }

    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs bendsynth with `arguments`, stdin from /dev/null, and waits for it to exit;
    /// with `timeout`, it is sent SIGTERM after that many seconds (a command that should
    /// have refused to start but plays on must not hang the test).
    static func run(_ arguments: [String], environment: [String: String] = [:], timeout: Double? = nil,
                    tool: String = "bendsynth") throws -> Result {
        let p = Process()
        p.executableURL = executable(tool)
        p.arguments = arguments
        p.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        try p.run()
        let stop = DispatchWorkItem { if p.isRunning { p.terminate() } }
        if let timeout { DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: stop) }
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        stop.cancel()
        return Result(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self))
    }

    static func temporaryDirectory() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bendsynth-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// Runs a command to completion with posix_spawn and waitpid, stdin from /dev/null,
    /// stdout through a temporary file, and returns its exit status and output.
    /// Foundation's Process is not used here: a command that forks a daemon (tmux's
    /// server) leaves it holding the descriptors Process waits on, so it never returns.
    @discardableResult
    static func spawn(_ args: [String]) throws -> (status: Int32, output: String) {
        let outPath = FileManager.default.temporaryDirectory.appendingPathComponent("spawn-\(UUID().uuidString).out").path
        defer { try? FileManager.default.removeItem(atPath: outPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = args.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let rc = posix_spawnp(&pid, args[0], &actions, nil, argv, environ)
        guard rc == 0 else { throw NSError(domain: "posix_spawnp \(args[0])", code: Int(rc)) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return ((status >> 8) & 0xff, (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "")
    }
}
