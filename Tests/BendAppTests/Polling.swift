// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import XCTest

/// Waiting for what another process or thread does.
enum Poll {
    /// Polls `condition` every 5 ms until it holds or `seconds` pass; its last answer.
    static func until(_ seconds: Double = 5, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return true }
            usleep(5_000)
        }
        return try condition()
    }

    /// Polls `condition` until it holds; fails the running test and gives up (throws)
    /// after `seconds`. For helpers outside a test case; a test calls `waitUntil`.
    static func require(_ what: String, seconds: Double = 20, _ condition: () throws -> Bool) throws {
        guard try !until(seconds, condition) else { return }
        XCTFail("timed out waiting for \(what)")
        throw XCTSkip("gave up")
    }
}

extension XCTestCase {
    /// Polls `condition` until it holds; fails the test and gives up after `seconds`.
    func waitUntil(_ what: String, seconds: Double = 20, _ condition: () throws -> Bool) throws {
        try Poll.require(what, seconds: seconds, condition)
    }
}

/// A tmux server of the test's own (`tmux -L`): runs a command in a real terminal that
/// the test plays with `send-keys` and reads with `capture-pane`.
struct Tmux {
    let socket: String

    init(_ prefix: String) { socket = "\(prefix)-\(getpid())" }
    init(_ socket: String, exact: Bool) { self.socket = socket }

    static var installed: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux") }

    /// Runs a tmux client on this server and returns its output.
    @discardableResult
    func callAsFunction(_ args: [String]) throws -> String {
        try BinaryRunner.spawn(["tmux", "-L", socket] + args).output
    }

    /// What session `target` shows now.
    func screen(_ target: String) throws -> String { try self(["capture-pane", "-p", "-t", target]) }

    /// Attaches a client to session `name` from a second tmux server of the test's own
    /// (whose `columns`×`rows` pane is the client's terminal), so the session has focus to
    /// lose: with `focus-events` on, tmux sends `CSI O` to a pane that asked for focus
    /// reports (mode 1004) when its window stops being the client's current one, and
    /// `CSI I` when it is again. Returns the outer server; kill it when done.
    func attachClient(_ name: String, columns: Int, rows: Int) throws -> Tmux {
        try self(["set", "-g", "focus-events", "on"])
        let outer = Tmux(socket + "-client", exact: true)
        try outer(["new-session", "-d", "-s", "client", "-x", "\(columns)", "-y", "\(rows)", "TMUX= tmux -L \(socket) attach -t \(name)"])
        try outer(["set", "-g", "status", "off"])
        return outer
    }

    /// Runs the shell command line `command` in a new `columns`×`rows` session `name`;
    /// its stderr, then `exit=STATUS` when it ends, go to the file `log`.
    func start(_ name: String, columns: Int, rows: Int, _ command: String, log: String) throws {
        try self(["new-session", "-d", "-s", name, "-x", "\(columns)", "-y", "\(rows)", "\(command) 2>\(log); echo exit=$? >>\(log)"])
    }
}

extension XCTestCase {
    /// Types `q` in `tmux`'s session `name` (started by `Tmux.start`) and waits for its
    /// command to end: what it wrote to `log`, its exit status last.
    func quit(_ tmux: Tmux, _ name: String, log: String) throws -> String {
        try tmux(["send-keys", "-t", name, "q"])
        try waitUntil("\(name) to exit") { (try? String(contentsOfFile: log, encoding: .utf8))?.contains("exit=") ?? false }
        return try String(contentsOfFile: log, encoding: .utf8)
    }
}
