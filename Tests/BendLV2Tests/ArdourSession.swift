// SPDX-License-Identifier: GPL-3.0-or-later
import BendTestSupport
import Foundation
import XCTest

/// An Ardour 7 session in a folder of its own, driven headless by Debian's session tools:
/// `ardour7-lua` (Ardour's engine with the "None (Dummy)" backend, running the scripts
/// in `ardour/`) and `ardour7-export`. Each tool is a process the test starts and waits
/// for by pid, with a deadline; its output is kept in a log the failures quote.
///
/// The tools see: `LV2_PATH` = the test's own LV2 folder (user presets), the folder
/// holding the built bendsynth.lv2, Debian's /usr/lib/lv2; `XDG_CONFIG_HOME`,
/// `XDG_CACHE_HOME`, `XDG_STATE_HOME` and `XDG_DATA_HOME` inside the folder (Ardour's
/// configuration and plugin scan log, the plugin's own files), so nothing of the user's
/// is read or written.
final class ArdourSession {
    static let luaTool = "/usr/bin/ardour7-lua"
    static let exportTool = "/usr/bin/ardour7-export"
    static var installed: Bool {
        FileManager.default.isExecutableFile(atPath: luaTool) && FileManager.default.isExecutableFile(atPath: exportTool)
    }
    /// The Lua scripts beside this file.
    static var scripts: URL { URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("ardour") }
    /// The session's name (its folder is `sessionFolder`, its file NAME.ardour).
    static let name = "bendtest"

    /// The test's folder (removed by `remove()`).
    let folder: URL
    var sessionFolder: URL { folder.appendingPathComponent(Self.name) }
    /// An LV2_PATH entry of the test's own: user preset bundles.
    var presets: URL { folder.appendingPathComponent("lv2") }
    /// Every tool's output, in the order they ran.
    private(set) var logs: [(tool: String, output: String)] = []

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("bendsynth-ardour-\(UUID().uuidString)")
        for sub in ["lv2", "xdg/config", "xdg/cache", "xdg/state", "xdg/data"] {
            try FileManager.default.createDirectory(at: folder.appendingPathComponent(sub), withIntermediateDirectories: true)
        }
    }

    func remove() { try? FileManager.default.removeItem(at: folder) }

    var environment: [String] {
        let xdg = folder.appendingPathComponent("xdg").path
        return ["LV2_PATH=\(presets.path):\(LV2Bundle.folder.path):/usr/lib/lv2",
                "XDG_CONFIG_HOME=\(xdg)/config", "XDG_CACHE_HOME=\(xdg)/cache",
                "XDG_STATE_HOME=\(xdg)/state", "XDG_DATA_HOME=\(xdg)/data"]
    }

    /// Every log so far, for a failure's message.
    var transcript: String { logs.map { "--- \($0.tool)\n\($0.output)" }.joined(separator: "\n") }

    /// A new session with a MIDI track playing `uri`, its preset labelled `preset` loaded
    /// (when given), `keys` recorded one a second through the virtual keyboard, saved.
    /// The lines the script printed for the test ("bendsynth-test: …").
    @discardableResult
    func record(uri: String, keys: [Int], preset: String? = nil) throws -> [String] {
        try lua("record.lua", [uri, keys.map(String.init).joined(separator: ","), preset ?? ""])
    }

    /// The saved session opened again (the plugin restored from its saved state) and saved.
    @discardableResult
    func reopen(uri: String) throws -> [String] {
        try lua("reopen.lua", [uri])
    }

    /// The session exported (`ardour7-export -b float`, a third open of the session): the
    /// WAV's path.
    func export() throws -> String {
        let wav = folder.appendingPathComponent("export.wav").path
        let r = try run([Self.exportTool, "-b", "float", "-o", wav, sessionFolder.path, Self.name], seconds: 90)
        guard r.status == 0 else { throw ArdourError("ardour7-export exited \(r.status) (134: an abort)\n\(transcript)") }
        guard FileManager.default.fileExists(atPath: wav) else { throw ArdourError("ardour7-export wrote no \(wav)\n\(transcript)") }
        return wav
    }

    private func lua(_ script: String, _ args: [String]) throws -> [String] {
        let r = try run([Self.luaTool, Self.scripts.appendingPathComponent(script).path, sessionFolder.path, Self.name] + args, seconds: 90)
        guard r.status == 0 else { throw ArdourError("ardour7-lua \(script) exited \(r.status) (134: an abort)\n\(transcript)") }
        return r.output.split(separator: "\n").filter { $0.hasPrefix("bendsynth-test: ") }.map { String($0.dropFirst(16)) }
    }

    /// Runs `args` (stdout and stderr to a log), waits for its pid at most `seconds` (then
    /// kills it). Its status as a shell gives it: the exit code, or 128 + the signal.
    private func run(_ args: [String], seconds: Double) throws -> (status: Int32, output: String) {
        let log = folder.appendingPathComponent("tool-\(logs.count).log").path
        // env: the tool's own environment on top of the test's (the pid is the tool's).
        let pid = try Spawn.start(["/usr/bin/env"] + environment + args, output: log)
        let status = Self.wait(pid, seconds: seconds)
        let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        logs.append((URL(fileURLWithPath: args[0]).lastPathComponent + " " + args.dropFirst().map { URL(fileURLWithPath: $0).lastPathComponent }.joined(separator: " "), output))
        guard let status else {
            kill(pid, SIGKILL)
            _ = Self.wait(pid, seconds: 10)
            throw ArdourError("\(args[0]) still running after \(seconds) s: killed\n\(transcript)")
        }
        return (status, output)
    }

    /// Waits for `pid` at most `seconds` (waitpid polled every 10 ms): its exit code, 128 +
    /// the signal that ended it (134: SIGABRT), or nil while it still runs.
    /// (`Spawn.wait` reads a signal's end as exit 0: an abort would pass there.)
    static func wait(_ pid: pid_t, seconds: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(seconds)
        repeat {
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                let signal = status & 0x7f
                return signal == 0 ? (status >> 8) & 0xff : 128 + signal
            }
            usleep(10_000)
        } while Date() < deadline
        return nil
    }
}

struct ArdourError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}
