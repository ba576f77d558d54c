// SPDX-License-Identifier: GPL-3.0-or-later
import XCTest
import Foundation

/// RTKit when SCHED_FIFO is refused: `play` under setpriv without CAP_SYS_NICE (so the
/// kernel refuses SCHED_FIFO, as on a desktop) asks a mock RealtimeKit1 (python-dbusmock)
/// on a private bus, given as the system bus, with its render thread's kernel id.
final class RTKitTests: XCTestCase {
    var dir: URL!
    var bus: PrivateSystemBus!
    var processes: [Process] = []

    override func setUpWithError() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else { throw XCTSkip("/usr/bin/setpriv is not installed") }
        try PrivateSystemBus.requireTools()
        dir = try BinaryRunner.temporaryDirectory()
    }

    override func tearDownWithError() throws {
        for p in processes.reversed() where p.isRunning { p.terminate(); p.waitUntilExit() }
        bus?.stop()
        if let dir { try? FileManager.default.removeItem(at: dir) }
    }

    /// A private bus and a mock RealtimeKit1 on it: MaxRealtimePriority 20, RTTimeUSecMax
    /// 200000; MakeThreadRealtime refuses (AccessDenied) when `refuse`.
    func startMock(refuse: Bool) throws -> URL {
        bus = try PrivateSystemBus(dir: dir)
        let template = dir.appendingPathComponent("rtkit_mock.py")
        try """
        dbus = __import__('dbus')
        BUS_NAME = 'org.freedesktop.RealtimeKit1'
        MAIN_OBJ = '/org/freedesktop/RealtimeKit1'
        MAIN_IFACE = 'org.freedesktop.RealtimeKit1'
        SYSTEM_BUS = True

        def load(mock, parameters):
            code = "raise dbus.exceptions.DBusException('not for you', name='org.freedesktop.DBus.Error.AccessDenied')" if parameters.get('refuse') else ''
            mock.AddMethod(MAIN_IFACE, 'MakeThreadRealtime', 'tu', '', code)
            mock.AddProperties(MAIN_IFACE, {'MaxRealtimePriority': dbus.Int32(20), 'MinNiceLevel': dbus.Int32(-15),
                                            'RTTimeUSecMax': dbus.Int64(200000)})
        """.write(to: template, atomically: true, encoding: .utf8)
        return try bus.startMock("org.freedesktop.RealtimeKit1", template: template, parameters: refuse ? "{\"refuse\": true}" : "{}")
    }

    /// play without CAP_SYS_NICE on a long script; stderr goes to a file.
    func startPlay() throws -> (Process, URL) {
        let script = dir.appendingPathComponent("long.jsonl")
        try "{\"t\": 0, \"type\": \"down\", \"id\": 1, \"x\": 0.5, \"y\": 0.5}\n{\"t\": 600, \"type\": \"up\", \"id\": 1}\n"
            .write(to: script, atomically: true, encoding: .utf8)
        let err = dir.appendingPathComponent("play.err")
        FileManager.default.createFile(atPath: err.path, contents: nil)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        p.arguments = ["--inh-caps", "-sys_nice", "--bounding-set", "-sys_nice", BinaryRunner.executable.path,
                       "play", "--no-terminal", "--no-config", "--script", script.path, "-d", "null"]
        p.environment = ProcessInfo.processInfo.environment.merging(bus.environment) { $1 }
        p.standardInput = FileHandle.nullDevice
        p.standardOutput = FileHandle.nullDevice
        p.standardError = try FileHandle(forWritingTo: err)
        try p.run()
        processes.append(p)
        return (p, err)
    }

    func testRenderThreadIsMadeRealtimeByRTKit() throws {
        let log = try startMock(refuse: false)
        let (play, err) = try startPlay()
        var call: (tid: Int32, priority: Int32)?
        try waitUntil("MakeThreadRealtime in the mock's log") {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            guard let r = text.range(of: #"MakeThreadRealtime \d+ \d+"#, options: .regularExpression) else { return false }
            let parts = text[r].split(separator: " ")
            call = (Int32(parts[1])!, Int32(parts[2])!)
            return true
        }
        let (tid, priority) = try XCTUnwrap(call)
        // The id is the render thread's: /proc/PID/task/TID/comm names it.
        let comm = try String(contentsOfFile: "/proc/\(play.processIdentifier)/task/\(tid)/comm", encoding: .utf8)
        XCTAssertEqual(comm.trimmingCharacters(in: .whitespacesAndNewlines), "bendsynth paced")
        XCTAssertEqual(priority, 20, "70 asked, lowered to the mock's MaxRealtimePriority")
        // RLIMIT_RTTIME set to RTKit's RTTimeUSecMax before asking.
        let limits = try String(contentsOfFile: "/proc/\(play.processIdentifier)/limits", encoding: .utf8)
        XCTAssertNotNil(limits.range(of: #"Max realtime timeout\s+200000\s+200000\s+us"#, options: .regularExpression), limits)
        try waitUntil("the real-time note") { ((try? String(contentsOf: err, encoding: .utf8)) ?? "").contains("RTKit") }
        play.terminate()
        play.waitUntilExit()
        let stderr = try String(contentsOf: err, encoding: .utf8)
        XCTAssertEqual(play.terminationStatus, 0, stderr)
        XCTAssertTrue(stderr.contains("real-time scheduling refused (EPERM); RTKit made the thread real-time at priority 20"), stderr)
        XCTAssertEqual(stderr.components(separatedBy: "RTKit").count - 1, 1, "said once: \(stderr)")
    }

    func testRTKitRefusalIsReportedAndPlayGoesOn() throws {
        let log = try startMock(refuse: true)
        let (play, err) = try startPlay()
        try waitUntil("the real-time note") { ((try? String(contentsOf: err, encoding: .utf8)) ?? "").contains("RTKit") }
        XCTAssertTrue(play.isRunning)
        play.terminate()
        play.waitUntilExit()
        let stderr = try String(contentsOf: err, encoding: .utf8)
        XCTAssertEqual(play.terminationStatus, 0, stderr)
        XCTAssertTrue(stderr.contains("real-time scheduling refused (EPERM), and by RTKit (org.freedesktop.DBus.Error.AccessDenied: not for you): playing at normal priority"), stderr)
        XCTAssertTrue(try String(contentsOf: log, encoding: .utf8).contains("MakeThreadRealtime"))
    }
}
