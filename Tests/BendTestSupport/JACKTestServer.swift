// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Glibc

/// A jackd of the test's own: `jackd --no-realtime -S -d dummy -r RATE -p PERIOD` under a
/// private server name (JACK_DEFAULT_SERVER), started by posix_spawn and stopped by its
/// pid. `-S` (synchronous mode): the server waits for every client each cycle, so a
/// capture client reads exactly what was rendered even on a loaded machine.
/// While it runs, this process's environment names it (JACK_DEFAULT_SERVER, and
/// JACK_NO_START_SERVER=1 so no client ever starts another).
public final class JACKTestServer {
    public let name: String
    public let pid: pid_t
    public let logPath: String
    private var running = true

    /// Whether Debian's jackd2 is installed (`make test` installs it).
    public static var installed: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/jackd") }

    /// The server names a test may use. jackd keeps up to 8 servers in its shared registry
    /// (/dev/shm/jack-shm-registry) and reclaims the entry of a dead server only when a new
    /// one starts under the same name: names unique per run (pid + random) filled the
    /// registry with the entries of servers that were killed (or orphaned by a crashed test
    /// run) until every start failed with "Too many servers already active". A small fixed
    /// set of names reclaims its own entries; the next name is taken only while another
    /// test run holds one.
    static let names = (0..<4).map { "bendsynth-test-\($0)" }

    /// Starts the server and waits until `jack_lsp` answers (polled every 20 ms, 20 s at most).
    public init(rate: Int = 48_000, period: Int = 64) throws {
        var failures: [String] = []
        names: for candidate in JACKTestServer.names {
            let logPath = FileManager.default.temporaryDirectory.appendingPathComponent("\(candidate)-\(getpid()).log").path
            setenv("JACK_DEFAULT_SERVER", candidate, 1)
            setenv("JACK_NO_START_SERVER", "1", 1)
            let pid = try Spawn.start(["jackd", "--no-realtime", "-S", "-d", "dummy", "-r", "\(rate)", "-p", "\(period)"], output: logPath)
            switch try JACKTestServer.waitUntilAnswering(pid) {
            case .answering:
                self.name = candidate
                self.pid = pid
                self.logPath = logPath
                return
            case .exited:
                let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
                try? FileManager.default.removeItem(atPath: logPath)
                failures.append("\(candidate): \(log)")
                // Another run's server holds this name: try the next. Anything else (the
                // registry full of other names' entries) is this machine's, not the test's.
                if !log.contains("already active") || log.contains("Too many servers") { break names }
            case .silent:
                kill(pid, SIGKILL)
                _ = Spawn.wait(pid, seconds: 5)
                failures.append("\(candidate): jackd did not answer jack_lsp within 20 s")
            }
        }
        unsetenv("JACK_DEFAULT_SERVER")
        unsetenv("JACK_NO_START_SERVER")
        throw JACKTestError("jackd did not start: " + failures.joined(separator: "\n"))
    }

    private enum Start { case answering, exited, silent }

    /// Polls `jack_lsp` every 20 ms, 20 s at most, while `pid` runs.
    private static func waitUntilAnswering(_ pid: pid_t) throws -> Start {
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if try Spawn.run(["jack_lsp"]).status == 0 { return .answering }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid { return .exited }
            usleep(20_000)
        }
        return .silent
    }

    /// The server's output so far.
    public var log: String { FileManager.default.contents(atPath: logPath).map { String(decoding: $0, as: UTF8.self) } ?? "" }

    /// Ports and their connections, as `jack_lsp -c` prints them.
    public func ports() throws -> String { try Spawn.run(["jack_lsp", "-c"]).output }

    /// SIGTERM (or `signal`), then waits for it to exit. Later calls do nothing.
    public func stop(signal: Int32 = SIGTERM) {
        guard running else { return }
        running = false
        kill(pid, signal)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        unsetenv("JACK_DEFAULT_SERVER")
        unsetenv("JACK_NO_START_SERVER")
        try? FileManager.default.removeItem(atPath: logPath)
    }

    deinit { stop() }
}

public struct JACKTestError: Error, CustomStringConvertible {
    public let description: String
    public init(_ d: String) { description = d }
}

/// posix_spawn without Foundation's Process (a daemon child holding its pipes would
/// stall Process), stdin from /dev/null.
public enum Spawn {
    /// Starts `args` with stdout and stderr to `output` (or /dev/null); returns its pid.
    /// `input`: a file descriptor for its stdin (a pipe the test holds open: jalv's
    /// console ends at its stdin's end), else /dev/null.
    public static func start(_ args: [String], output: String? = nil, input: Int32? = nil) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let input { posix_spawn_file_actions_adddup2(&actions, input, 0) } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_addopen(&actions, 1, output ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = args.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let rc = posix_spawnp(&pid, args[0], &actions, nil, argv, environ)
        guard rc == 0 else { throw JACKTestError("posix_spawnp \(args[0]): \(String(cString: strerror(rc)))") }
        return pid
    }

    /// Waits for `pid`, at most `seconds` (polled every 10 ms); its exit status, or nil
    /// when it is still running then.
    public static func wait(_ pid: pid_t, seconds: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(seconds)
        repeat {
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid { return (status >> 8) & 0xff }
            usleep(10_000)
        } while Date() < deadline
        return nil
    }

    /// Runs `args` to completion; its exit status and output (stdout and stderr).
    /// `jack_connect FROM TO`, tried again while it fails for up to `seconds` (a new JACK
    /// client's open can fail on a loaded machine: jackd answers it late). Throws with
    /// jack_connect's last output and whether FROM and TO were listed then.
    public static func connect(_ from: String, _ to: String, seconds: Double = 10) throws {
        let deadline = Date().addingTimeInterval(seconds)
        var last = (status: Int32(0), output: "")
        repeat {
            last = try run(["jack_connect", from, to])
            if last.status == 0 { return }
            usleep(50_000)  // a retry's pause, not a wait for a result
        } while Date() < deadline
        let ports = (try? run(["jack_lsp"]).output) ?? ""
        throw JACKConnectError(message: "jack_connect \(from) \(to) failed for \(seconds) s: status \(last.status), <\(last.output)>; "
            + "\(from) listed: \(ports.contains(from)), \(to) listed: \(ports.contains(to))")
    }

    public static func run(_ args: [String]) throws -> (status: Int32, output: String) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("spawn-\(UUID().uuidString).out").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let pid = try start(args, output: path)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return ((status >> 8) & 0xff, (try? String(contentsOfFile: path, encoding: .utf8)) ?? "")
    }
}

/// `Spawn.connect` gave up: the message has jack_connect's output.
public struct JACKConnectError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
