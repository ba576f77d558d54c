// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Glibc
import XCTest

/// Bluetooth through BlueZ's D-Bus API against a mock bluetoothd (python-dbusmock's bluez5
/// template, extended in bluez/bluez_mock.py) on a private bus given as the system bus:
/// what is said when Bluetooth cannot be used, discovery, the profile registration, a
/// connection handed over by NewConnection that plays, and the pairing agent.
final class BlueZTests: XCTestCase {
    static let service = "6a0b2f1e-7c4d-4b8e-9f3a-b3e5d1c20847"
    var dir: URL!
    var bus: PrivateSystemBus!
    /// Where the mock records ProfileManager1/AgentManager1 calls (unused here).
    var record: URL { dir.appendingPathComponent("bluez-calls.jsonl") }

    override func setUpWithError() throws {
        try PrivateSystemBus.requireTools()
        dir = try BinaryRunner.temporaryDirectory()
        bus = try PrivateSystemBus(dir: dir)
    }

    override func tearDownWithError() throws {
        bus?.stop()
        if let dir { try? FileManager.default.removeItem(at: dir) }
    }

    /// Starts the mock bluetoothd with `parameters` (see bluez/bluez_mock.py); calls are
    /// recorded in `record`.
    func startBlueZ(_ parameters: [String: Any]) throws {
        var p = parameters
        p["record"] = record.path
        let json = String(decoding: try JSONSerialization.data(withJSONObject: p), as: UTF8.self)
        let template = BinaryRunner.packageRoot.appendingPathComponent("Tests/BendAppTests/bluez/bluez_mock.py")
        try bus.startMock("org.bluez", template: template, parameters: json)
    }

    func run(_ args: [String]) throws -> BinaryRunner.Result { try BinaryRunner.run(args, environment: bus.environment) }

    /// Runs bendsynth on the private bus; stopped (SIGTERM, by its pid) after `seconds`
    /// if it has not exited: a `play` that wrongly went on plays until stopped.
    func runBounded(_ args: [String], seconds: Double = 15) throws -> (status: Int32, stderr: String) {
        let err = dir.appendingPathComponent("bounded.err")
        FileManager.default.createFile(atPath: err.path, contents: nil)
        let p = Process()
        p.executableURL = BinaryRunner.executable
        p.arguments = args
        p.environment = ProcessInfo.processInfo.environment.merging(bus.environment) { $1 }
        p.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        p.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        p.standardError = try FileHandle(forWritingTo: err)
        try p.run()
        if !Poll.until(seconds, { !p.isRunning }) { kill(p.processIdentifier, SIGTERM) }
        p.waitUntilExit()
        return (p.terminationStatus, try String(contentsOf: err, encoding: .utf8))
    }

    // MARK: - Bluetooth unavailable

    /// Every command that asks for Bluetooth exits 1 with exactly one line: `expected`.
    func assertUnavailable(_ expected: String, file: StaticString = #filePath, line: UInt = #line) throws {
        for args in [["peers", "--bluetooth", "--seconds", "1"], ["play", "--bluetooth", "--no-terminal", "-d", "null"], ["remote", "00:11:22:33:44:55"]] {
            let r = try runBounded(args)
            XCTAssertEqual(r.status, 1, "\(args): \(r.stderr)", file: file, line: line)
            let lines = r.stderr.split(separator: "\n")
            XCTAssertEqual(lines.count, 1, "\(args): one line: \(r.stderr)", file: file, line: line)
            XCTAssertTrue(r.stderr.contains(expected), "\(args): expected '\(expected)': \(r.stderr)", file: file, line: line)
        }
    }

    func testEachReasonBluetoothCannotBeUsedIsOnePlainLineAndExitOne() throws {
        try assertUnavailable("Bluetooth: bluetoothd is not running (nobody owns org.bluez on the system D-Bus)")
        try startBlueZ(["adapter": NSNull()])
        try assertUnavailable("Bluetooth: no adapter (bluetoothd lists none)")
        try bus.stopMock("org.bluez")
        try startBlueZ(["adapter": ["powered": false]])
        try assertUnavailable("Bluetooth: adapter hci0 is powered off (turn it on: bluetoothctl power on)")
        try bus.stopMock("org.bluez")
        try startBlueZ(["adapter": ["powered": false, "powerState": "off-blocked"]])
        try assertUnavailable("Bluetooth: adapter hci0 is blocked by rfkill (unblock it: rfkill unblock bluetooth)")
        // No system bus at all.
        let r = try BinaryRunner.run(["peers", "--bluetooth", "--seconds", "1"],
                                     environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(dir.path)/no-such-bus"])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("Bluetooth: cannot reach the system D-Bus ("), r.stderr)
    }

    // MARK: - Discovery

    func testDiscoveryListsTheDeviceThatOffersTheServiceAndNotTheOther() throws {
        try startBlueZ(["adapter": ["powered": true], "devices": [
            ["address": "11:22:33:44:55:66", "name": "bendsynth on stage", "rssi": -48, "paired": true,
             "uuids": ["00001101-0000-1000-8000-00805f9b34fb", Self.service]],
            ["address": "77:88:99:AA:BB:CC", "name": "headphones", "rssi": -70, "uuids": ["0000110b-0000-1000-8000-00805f9b34fb"]],
        ]])
        let r = try run(["peers", "--bluetooth", "--seconds", "1"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.first, "Bluetooth: 1 instrument found", r.stdout)
        XCTAssertTrue(lines.contains("11:22:33:44:55:66\tbluetooth\t-48 dBm\tpaired\tbendsynth on stage"), r.stdout)
        XCTAssertFalse(r.stdout.contains("77:88:99:AA:BB:CC"), r.stdout)
        let log = try String(contentsOf: dir.appendingPathComponent("org.bluez.log"), encoding: .utf8)
        XCTAssertTrue(log.contains("StartDiscovery") && log.contains("StopDiscovery"), log)
    }
}
