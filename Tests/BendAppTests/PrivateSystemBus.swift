// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Glibc
import XCTest

/// A private D-Bus bus the test starts (a `dbus-daemon` of its own, stopped by its pid)
/// and gives to bendsynth as the system bus (`DBUS_SYSTEM_BUS_ADDRESS`), with python-dbusmock
/// services on it: a mock RealtimeKit1 (RTKitTests), a mock bluetoothd (BlueZTests).
final class PrivateSystemBus {
    let dir: URL
    private var daemon: Process?
    private var services: [String: Process] = [:]

    /// Skips the test when dbus-daemon, dbus-send or python3-dbusmock is missing.
    static func requireTools() throws {
        for tool in ["/usr/bin/dbus-daemon", "/usr/bin/dbus-send"] where !FileManager.default.isExecutableFile(atPath: tool) {
            throw XCTSkip("\(tool) is not installed")
        }
        guard try BinaryRunner.spawn(["/usr/bin/python3", "-c", "import dbusmock"]).status == 0 else { throw XCTSkip("python3-dbusmock is not installed") }
    }

    /// Starts the bus in `dir` (its socket is `dir/bus`).
    init(dir: URL) throws {
        self.dir = dir
        daemon = try Self.start("/usr/bin/dbus-daemon", ["--config-file=/usr/share/dbus-1/session.conf", "--nofork", "--address=\(address)"], env: [:])
        try Poll.require("the private bus to answer", seconds: 20) {
            try BinaryRunner.spawn(["dbus-send", "--bus=\(address)", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                                    "org.freedesktop.DBus.GetId"]).status == 0
        }
    }

    /// `unix:path=…`: what `DBUS_SYSTEM_BUS_ADDRESS` is set to.
    var address: String { "unix:path=\(dir.path)/bus" }
    /// The environment for a process that should see this bus as the system bus.
    var environment: [String: String] { ["DBUS_SYSTEM_BUS_ADDRESS": address] }

    /// Starts python-dbusmock with the template file `template` (its parameters as JSON)
    /// and waits until it owns `name`. Its calls are logged to `dir/NAME.log`.
    @discardableResult
    func startMock(_ name: String, template: URL, parameters: String = "{}") throws -> URL {
        let log = dir.appendingPathComponent("\(name).log")
        services[name] = try Self.start("/usr/bin/python3", ["-m", "dbusmock", "--template", template.path, "-l", log.path, "-p", parameters],
                                        env: environment)
        try Poll.require("the mock to own \(name)", seconds: 20) { try owned(name) }
        return log
    }

    /// Stops the mock that owns `name` (by its pid) and waits until the name is free.
    func stopMock(_ name: String) throws {
        guard let p = services.removeValue(forKey: name) else { return }
        if p.isRunning { p.terminate() }
        p.waitUntilExit()
        try Poll.require("\(name) to be released", seconds: 10) { try !owned(name) }
    }

    func owned(_ name: String) throws -> Bool {
        try BinaryRunner.spawn(["dbus-send", "--bus=\(address)", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                                "org.freedesktop.DBus.NameHasOwner", "string:\(name)"]).output.contains("boolean true")
    }

    /// `dbus-send --print-reply` to `destination`: its output (the reply, or the error).
    func send(_ destination: String, _ path: String, _ method: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        try BinaryRunner.spawn(["dbus-send", "--bus=\(address)", "--print-reply", "--reply-timeout=20000", "--dest=\(destination)", path, method] + arguments)
    }

    /// Stops the services, then the bus, each by its pid.
    func stop() {
        for p in services.values where p.isRunning { p.terminate(); p.waitUntilExit() }
        services.removeAll()
        if let daemon, daemon.isRunning { daemon.terminate(); daemon.waitUntilExit() }
        daemon = nil
    }

    private static func start(_ path: String, _ args: [String], env: [String: String]) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = args
        p.environment = ProcessInfo.processInfo.environment.merging(env) { $1 }
        p.standardInput = FileHandle.nullDevice
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        return p
    }
}
