// SPDX-License-Identifier: GPL-3.0-or-later
import BendPeers
import BendSystem
import BendTestSupport
import Foundation
import Glibc
import XCTest

/// `play --bluetooth` against a mock bluetoothd (see BlueZTests): the profile it
/// registers, a connection bluetoothd hands over (`Profile1.NewConnection`) that plays a
/// touch and ends when bluetoothd asks (`RequestDisconnection`), and the pairing agent's
/// answers.
final class BlueZPlayTests: XCTestCase {
    var dir: URL!
    var bus: PrivateSystemBus!
    var instrument: Process?
    var log: String { dir.appendingPathComponent("play.err").path }
    var wav: String { dir.appendingPathComponent("take.wav").path }
    var record: URL { dir.appendingPathComponent("bluez-calls.jsonl") }

    override func setUpWithError() throws {
        try PrivateSystemBus.requireTools()
        dir = try BinaryRunner.temporaryDirectory()
        bus = try PrivateSystemBus(dir: dir)
        let template = BinaryRunner.packageRoot.appendingPathComponent("Tests/BendAppTests/bluez/bluez_mock.py")
        try bus.startMock("org.bluez", template: template, parameters: "{\"adapter\": {\"powered\": true}, \"record\": \"\(record.path)\"}")
    }

    override func tearDownWithError() throws {
        _ = stopInstrument()
        bus?.stop()
        if let dir { try? FileManager.default.removeItem(at: dir) }
    }

    var stderr: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

    /// `play --bluetooth --no-terminal` with `extra`, recording to `wav`, until it says it
    /// registered the profile.
    func startInstrument(_ extra: [String]) throws {
        FileManager.default.createFile(atPath: log, contents: nil)
        let p = Process()
        p.executableURL = BinaryRunner.executable
        p.arguments = ["play", "--no-terminal", "--bluetooth", "-d", "bendsynth_no_such_pcm", "--record", wav] + extra
        p.environment = ProcessInfo.processInfo.environment.merging(bus.environment) { $1 }
        p.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        p.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        p.standardError = FileHandle(forWritingAtPath: log)
        try p.run()
        instrument = p
        try waitUntil("the profile registered") { stderr.contains("listening for Bluetooth peers on RFCOMM channel 7") || !p.isRunning }
        XCTAssertTrue(p.isRunning, stderr)
    }

    func stopInstrument() -> Int32? {
        guard let p = instrument else { return nil }
        instrument = nil
        if p.isRunning { kill(p.processIdentifier, SIGTERM) }
        p.waitUntilExit()
        return p.terminationStatus
    }

    func recorded(_ call: String) -> [[String: Any]] {
        let text = (try? String(contentsOf: record, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .filter { $0["call"] as? String == call }
    }

    /// A stream the test already holds, as a transport for a client session.
    struct HandedTransport: PeerTransport {
        let name = "test socket"
        let carriesDatagrams = false
        let socket: Socket
        func listen(on address: String) throws -> (socket: Socket, bound: String) { throw PeerError.address("not here") }
        func accept(_ listener: Socket) -> (socket: Socket, remote: String)? { nil }
        func connect(to address: String, timeout: Double) throws -> Socket { socket }
        func requiresKey(listeningOn bound: String) -> Bool { false }
    }

    /// A listening Unix stream socket at `path`.
    func unixListener(_ path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var sa = sockaddr_un()
        sa.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &sa.sun_path) { raw in for (i, b) in path.utf8.enumerated() { raw[i] = b } }
        let bound = withUnsafePointer(to: &sa) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        XCTAssertEqual(bound, 0, String(cString: strerror(errno)))
        XCTAssertEqual(Glibc.listen(fd, 1), 0)
        return fd
    }

    func testTheProfileIsRegisteredAndAConnectionHandedOverPlaysATouch() throws {
        try startInstrument(["--accept-all", "--name", "stage left"])
        // The registration reached bluetoothd with the service UUID, channel 7 (a u16), role
        // server, and the name given by --name.
        let reg = try XCTUnwrap(recorded("RegisterProfile").first, "\(recorded("RegisterProfile"))")
        XCTAssertEqual(reg["uuid"] as? String, "6a0b2f1e-7c4d-4b8e-9f3a-b3e5d1c20847")
        let options = try XCTUnwrap(reg["options"] as? [String: Any])
        XCTAssertEqual(options["Channel"] as? Int, 7)
        XCTAssertEqual((reg["types"] as? [String: String])?["Channel"], "UInt16")
        XCTAssertEqual(options["Role"] as? String, "server")
        XCTAssertEqual(options["Name"] as? String, "stage left", "\(options)")

        // bluetoothd hands over a connection (here a Unix stream to the test) from a device.
        let path = dir.appendingPathComponent("rfcomm.sock").path
        let listener = try unixListener(path)
        defer { close(listener) }
        let r = try bus.send("org.bluez", "/", "org.bluez.Mock.Connect", ["string:11:22:33:44:55:66", "string:\(path)"])
        XCTAssertEqual(r.status, 0, r.output)
        let fd = accept(listener, nil, nil)
        XCTAssertGreaterThanOrEqual(fd, 0)

        // A client session over it: the handshake, then a touch at x 0.75 (660 Hz) held 1 s.
        let client = try PeerSession(configuration: PeerSession.Configuration(displayName: "bt tester", role: .client),
                                     transport: HandedTransport(socket: Socket(fd: fd)))
        let peer = try client.connect(to: "11:22:33:44:55:66", timeout: 5)
        XCTAssertEqual(peer.name, "stage left", "the session carries --name too: \(peer)")
        try waitUntil("the instrument to see the player") { stderr.contains("'bt tester' (11:22:33:44:55:66) connected") }
        XCTAssertEqual(client.send(.touch(id: 1, phase: .down, x: 0.75, y: 1, timestamp: 0)), 1)
        usleep(1_000_000)   // the touch is held this long
        XCTAssertEqual(client.send(.touch(id: 1, phase: .up, x: 0.75, y: 1, timestamp: 0)), 1)
        // bluetoothd asks the instrument to let go of the device (Profile1.RequestDisconnection):
        // the link closes and the player leaves (its session alone would stay).
        let asked = try bus.send("org.bluez", "/", "org.bluez.Mock.RequestDisconnection", ["string:11:22:33:44:55:66"])
        XCTAssertEqual(asked.status, 0, asked.output)
        try waitUntil("the player to leave") { stderr.contains("'bt tester' (11:22:33:44:55:66) left") }
        client.stop()
        XCTAssertEqual(stopInstrument(), 0, stderr)
        XCTAssertEqual(recorded("UnregisterProfile").count, 1, "the profile is unregistered at the end")

        let left = Measure.channel(try WAVReader.read(wav).samples, 0)
        let first = try XCTUnwrap(left.firstIndex { $0 != 0 }, "the touch sounded")
        let last = try XCTUnwrap(left.lastIndex { $0 != 0 })
        let held = Double(last - first) / 48_000
        XCTAssertEqual(held, 1.0, accuracy: 0.15, "sounded while the touch was down")
        let f = Measure.peakFrequency(Array(left[(first + 2_400)..<(first + 40_000)]), rate: 48_000)
        XCTAssertEqual(f, 440 * 2.0.squareRoot(), accuracy: 622 * 0.005, "x 0.75 on the default pad: 600 cents over A4")
        print("Bluetooth touch through NewConnection: \(String(format: "%.1f", f)) Hz for \(String(format: "%.2f", held)) s")
    }

    /// Agent1.RequestConfirmation through the mock: "accepted" or the error name.
    func pair(_ address: String) throws -> String {
        let r = try bus.send("org.bluez", "/", "org.bluez.Mock.Pair", ["string:\(address)", "uint32:123456"])
        XCTAssertEqual(r.status, 0, r.output)
        return r.output.split(separator: "\"").dropFirst().first.map(String.init) ?? r.output
    }

    func testTheAgentAcceptsPairingFromAllowedAddressesOrEveryoneWithAcceptAll() throws {
        try startInstrument(["--allow", "11:22:33:44:55:66"])
        let agent = try XCTUnwrap(recorded("RegisterAgent").first)
        XCTAssertEqual(agent["capability"] as? String, "DisplayYesNo")
        XCTAssertEqual(recorded("RequestDefaultAgent").first?["path"] as? String, agent["path"] as? String)
        XCTAssertEqual(try pair("11:22:33:44:55:66"), "accepted")
        XCTAssertEqual(try pair("77:88:99:AA:BB:CC"), "org.bluez.Error.Rejected", "no player to ask, not allowed")
        XCTAssertEqual(stopInstrument(), 0, stderr)
        XCTAssertEqual(recorded("UnregisterAgent").count, 1)

        try startInstrument(["--accept-all"])
        XCTAssertEqual(try pair("77:88:99:AA:BB:CC"), "accepted")
        XCTAssertEqual(stopInstrument(), 0, stderr)
    }

    /// Starts `Mock.Pair(address, 123456)` without waiting: dbus-send blocks until the agent answers.
    func pairInBackground(_ address: String) throws -> (Process, URL) {
        let out = dir.appendingPathComponent("pair-\(address.prefix(2)).out")
        FileManager.default.createFile(atPath: out.path, contents: nil)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-send")
        p.arguments = ["--bus=\(bus.address)", "--print-reply", "--reply-timeout=30000", "--dest=org.bluez", "/", "org.bluez.Mock.Pair",
                       "string:\(address)", "uint32:123456"]
        p.standardInput = FileHandle.nullDevice
        p.standardOutput = try FileHandle(forWritingTo: out)
        p.standardError = p.standardOutput
        try p.run()
        return (p, out)
    }

    func testThePlayerAnswersAPairingRequestAtThePad() throws {
        guard Tmux.installed else { throw XCTSkip("tmux is not installed") }
        let tmux = Tmux("bendsynth-bt")
        try tmux.start("bt", columns: 120, rows: 30,
                       "DBUS_SYSTEM_BUS_ADDRESS=\(bus.address) \(BinaryRunner.executable.path) play --bluetooth -d null", log: log)
        defer { try? tmux(["kill-server"]) }
        try waitUntil("the agent registered") { !recorded("RequestDefaultAgent").isEmpty }
        for (key, expected) in [("y", "accepted"), ("n", "org.bluez.Error.Rejected")] {
            let (pairing, out) = try pairInBackground("77:88:99:AA:BB:CC")
            try waitUntil("the question on the pad") { try tmux.screen("bt").contains("'pairing, passkey 123456' (77:88:99:AA:BB:CC) asks to play: y accepts, n declines") }
            XCTAssertTrue(pairing.isRunning, "the request waits for the player")
            try tmux(["send-keys", "-t", "bt", key])
            pairing.waitUntilExit()
            let reply = try String(contentsOf: out, encoding: .utf8)
            XCTAssertTrue(reply.contains("\"\(expected)\""), "\(key): \(reply)")
        }
        let stderr = try quit(tmux, "bt", log: log)
        XCTAssertTrue(stderr.contains("exit=0"), stderr)
    }
}
