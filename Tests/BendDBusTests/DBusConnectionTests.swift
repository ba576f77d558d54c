// SPDX-License-Identifier: GPL-3.0-or-later
import BendDBus
import BendSystem
import Foundation
import Glibc
import XCTest

/// BendDBus against a private dbus-daemon the test starts (and stops, by its pid): a
/// server connection exports an object, a client calls it; every value type travels
/// and comes back equal, a descriptor arrives as the same file, an error reply keeps
/// its name, a reply given later from another thread arrives.
final class DBusConnectionTests: XCTestCase {
    var dir: URL!
    var daemon: Process?
    var address: String { "unix:path=\(dir.path)/bus" }

    override func setUpWithError() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-daemon") else { throw XCTSkip("dbus-daemon is not installed") }
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("bendsynth-dbus-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        // `--print-address` writes the address once the bus listens: the socket file alone
        // exists a moment earlier, and a connect then was refused (a CI run failed so).
        p.arguments = ["--config-file=/usr/share/dbus-1/session.conf", "--nofork", "--address=\(address)", "--print-address=1"]
        let ready = Pipe()
        p.standardOutput = ready
        p.standardError = FileHandle.nullDevice
        try p.run()
        daemon = p
        var printed = Data()
        while !printed.contains(UInt8(ascii: "\n")) {
            let chunk = ready.fileHandleForReading.availableData  // blocks until data or end
            if chunk.isEmpty { break }
            printed.append(chunk)
        }
        XCTAssertTrue(printed.contains(UInt8(ascii: "\n")), "dbus-daemon printed no address")
    }

    override func tearDownWithError() throws {
        if let daemon, daemon.isRunning { daemon.terminate(); daemon.waitUntilExit() }
        if let dir { try? FileManager.default.removeItem(at: dir) }
    }

    /// A server on its own loop answering Echo (its arguments back), Fail (an error) and
    /// Later (answered by `later` from another thread).
    func startServer(later: @escaping @Sendable (DBusConnection, DBusMessage) -> Void) throws -> (DBusConnection, EventLoop) {
        let server = try DBusConnection.connect(address: address)
        try server.export(path: "/test") { [unowned server] m in
            switch m.member {
            case "Echo":
                let args = m.arguments()
                server.reply(to: m, args)
                for case .fd(let fd) in args { close(fd) }
            case "Fail": server.replyError(to: m, name: "org.bendsynth.Error.Test", "as asked")
            case "Later": later(server, m)
            default: return false
            }
            return true
        }
        let loop = try EventLoop(name: "dbus test server")
        server.attach(to: loop)
        try loop.start()
        return (server, loop)
    }

    func testValuesTravelAndComeBackEqual() throws {
        let (server, loop) = try startServer { _, _ in }
        defer { loop.stop(); server.close() }
        let client = try DBusConnection.connect(address: address)
        defer { client.close() }
        var pipeFDs: [Int32] = [-1, -1]
        XCTAssertEqual(pipe(&pipeFDs), 0)
        defer { close(pipeFDs[0]); close(pipeFDs[1]) }
        let values: [DBusValue] = [
            .string("hé\u{1b}"), .objectPath("/org/bluez/hci0"), .bool(true), .byte(200), .int16(-48), .uint16(7), .int32(-5), .uint32(123_456),
            .int(-1 << 40, signature: "x"), .uint(1 << 63, signature: "t"), .double(0.25),
            .strings(["a", "b"]), .array(element: "s", []),
            .properties([("Channel", .uint16(7)), ("Nested", .variant(.strings(["x"]))), ("Flag", .bool(false))]),
            .structure([.string("s"), .uint32(1)]),
        ]
        let echoed = try client.call(server.uniqueName, "/test", "org.bendsynth.Test", "Echo", values + [.fd(pipeFDs[1])])
        XCTAssertEqual(Array(echoed.prefix(values.count)), values)
        guard case .fd(let got) = echoed.last else { return XCTFail("no descriptor: \(echoed)") }
        var a = stat(), b = stat()
        XCTAssertEqual(fstat(pipeFDs[1], &a), 0)
        XCTAssertEqual(fstat(got, &b), 0)
        XCTAssertEqual(a.st_ino, b.st_ino, "the same pipe came back")
        XCTAssertEqual(values[13].namedEntries?["Channel"]?.integer, 7)
    }

    func testErrorsKeepTheirNameAndAMissingServiceIsSaidSo() throws {
        let (server, loop) = try startServer { _, _ in }
        defer { loop.stop(); server.close() }
        let client = try DBusConnection.connect(address: address)
        defer { client.close() }
        XCTAssertThrowsError(try client.call(server.uniqueName, "/test", "org.bendsynth.Test", "Fail")) {
            let e = $0 as? DBusError
            XCTAssertEqual(e?.name, "org.bendsynth.Error.Test")
            XCTAssertEqual(e?.message, "as asked")
        }
        XCTAssertThrowsError(try client.call("org.bendsynth.Nobody", "/", "org.bendsynth.Test", "Echo")) {
            XCTAssertTrue(($0 as? DBusError)?.serviceMissing ?? false, "\($0)")
        }
        XCTAssertThrowsError(try client.call(server.uniqueName, "/nothing", "org.bendsynth.Test", "Echo")) {
            XCTAssertEqual(($0 as? DBusError)?.name, "org.freedesktop.DBus.Error.UnknownObject")
        }
    }

    func testAReplyGivenLaterFromAnotherThreadArrives() throws {
        let held = DispatchQueue(label: "answer later")
        let (server, loop) = try startServer { server, m in
            held.asyncAfter(deadline: .now() + 0.2) { server.perform { $0.reply(to: m, [.string("later")]) } }
        }
        defer { loop.stop(); server.close() }
        let client = try DBusConnection.connect(address: address)
        defer { client.close() }
        let start = Date()
        XCTAssertEqual(try client.call(server.uniqueName, "/test", "org.bendsynth.Test", "Later"), [.string("later")])
        XCTAssertGreaterThan(Date().timeIntervalSince(start), 0.15)
    }
}
