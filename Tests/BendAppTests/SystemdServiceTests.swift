// SPDX-License-Identifier: GPL-3.0-or-later
import XCTest
import Foundation
import BendDBus

/// The systemd user unit: it verifies, and `play` sends READY=1 through sd_notify to a
/// NOTIFY_SOCKET the test owns once the first period is out, then STOPPING=1 on SIGTERM.
final class SystemdServiceTests: XCTestCase {
    /// A datagram socket bound at `path`, as systemd's notify socket.
    final class NotifySocket {
        let fd: Int32
        let path: String

        init(path: String) throws {
            self.path = path
            fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            XCTAssertGreaterThanOrEqual(fd, 0)
            var addr = sockaddr_un()
            addr.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &addr.sun_path) { raw in
                _ = path.utf8CString.withUnsafeBytes { raw.copyMemory(from: $0) }
            }
            let rc = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
            XCTAssertEqual(rc, 0, String(cString: strerror(errno)))
            var timeout = timeval(tv_sec: 20, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        }

        /// The next datagram (waits up to 20 s), or nil.
        func receive() -> String? {
            var buffer = [UInt8](repeating: 0, count: 4096)
            let n = recv(fd, &buffer, buffer.count, 0)
            return n < 0 ? nil : String(decoding: buffer[..<n], as: UTF8.self)
        }

        deinit { close(fd); unlink(path) }
    }

    func testReadyAfterTheFirstPeriodAndStoppingOnSIGTERM() throws {
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let socket = try NotifySocket(path: dir.appendingPathComponent("notify").path)
        let script = dir.appendingPathComponent("long.jsonl")
        try "{\"t\": 0, \"type\": \"down\", \"id\": 1, \"x\": 0.5, \"y\": 0.5}\n{\"t\": 600, \"type\": \"up\", \"id\": 1}\n"
            .write(to: script, atomically: true, encoding: .utf8)
        let p = Process()
        p.executableURL = BinaryRunner.executable
        p.arguments = ["play", "--no-terminal", "--no-config", "--script", script.path, "-d", "null"]
        p.environment = ProcessInfo.processInfo.environment.merging(["NOTIFY_SOCKET": socket.path]) { $1 }
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        p.standardInput = FileHandle.nullDevice
        try p.run()
        let ready = try XCTUnwrap(socket.receive(), "no notification")
        XCTAssertTrue(ready.hasPrefix("READY=1\n"), ready)
        let frames = try XCTUnwrap(ready.range(of: #"\d+(?= frames out)"#, options: .regularExpression).map { Int(ready[$0])! }, ready)
        XCTAssertGreaterThan(frames, 0, "READY comes after the first period: \(ready)")
        XCTAssertTrue(ready.contains("STATUS=playing: "), ready)
        p.terminate()  // SIGTERM
        XCTAssertEqual(socket.receive(), "STOPPING=1")
        p.waitUntilExit()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(p.terminationReason, .exit)
        XCTAssertEqual(p.terminationStatus, 0, stderr)
        XCTAssertTrue(stderr.contains("played "), stderr)
    }

    /// READY=1 waits for the first period (the end-to-end test above tells only now and
    /// then: its first period is mostly out before play reaches the notifier), and is not
    /// sent when no period comes in the time allowed.
    func testReadyWaitsForTheFirstPeriod() throws {
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let socket = try NotifySocket(path: dir.appendingPathComponent("notify").path)
        setenv("NOTIFY_SOCKET", socket.path, 1)
        defer { unsetenv("NOTIFY_SOCKET") }
        let start = Date()
        XCTAssertTrue(ServiceNotifier.ready(status: "playing: x", firstPeriodDone: { Date().timeIntervalSince(start) > 0.2 }, frames: { 256 }))
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(start), 0.2, "READY before the first period")
        XCTAssertEqual(socket.receive(), "READY=1\nSTATUS=playing: x; 256 frames out")
        XCTAssertFalse(ServiceNotifier.ready(status: "playing: x", seconds: 0.1, firstPeriodDone: { false }, frames: { 0 }))
        let status = try XCTUnwrap(socket.receive())
        XCTAssertTrue(status.hasPrefix("STATUS=no period reached the device"), status)
    }

    func testUnitVerifies() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze") else { throw XCTSkip("no systemd-analyze") }
        let dir = try BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let template = try String(contentsOf: BinaryRunner.packageRoot.appendingPathComponent("dist/bendsynth.service.in"), encoding: .utf8)
        let unit = dir.appendingPathComponent("bendsynth.service")
        try template.replacingOccurrences(of: "@BINDIR@", with: BinaryRunner.executable.deletingLastPathComponent().path)
            .write(to: unit, atomically: true, encoding: .utf8)
        XCTAssertTrue(template.contains("Type=notify"))
        let r = try BinaryRunner.spawn(["sh", "-c", "systemd-analyze verify --man=no '\(unit.path)' 2>&1"])
        XCTAssertEqual(r.status, 0, r.output)
        XCTAssertEqual(r.output, "", r.output)
    }
}
