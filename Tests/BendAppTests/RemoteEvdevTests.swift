// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendEngine
import BendEvdev
import BendInstrument
import BendPeers
import BendAudio
import Glibc
import Synchronization
import XCTest

/// `remote --evdev`: a local input device's touches play the remote instrument — fed
/// as raw `struct input_event`s through a pipe into the same evdev loop.
final class RemoteEvdevTests: XCTestCase {
    static let touchscreen = """
    N: Pipe Touchscreen
    I: 0018 0000 0000 0000
    P: 02 00 00 00 00 00 00 00
    A: 2f 0 9 0 0 0
    A: 35 0 1000 0 0 0
    A: 36 0 1000 0 0 0
    A: 39 0 65535 0 0 0
    E: 0.000000 0003 002f 0
    E: 0.000000 0003 0039 5
    E: 0.000000 0003 0035 250
    E: 0.000000 0003 0036 500
    E: 0.000000 0000 0000 0
    E: 0.010000 0003 0035 750
    E: 0.010000 0000 0000 0
    E: 0.020000 0003 0039 -1
    E: 0.020000 0000 0000 0

    """

    /// Touches the instrument side received, as "phase x" (x to 2 decimals) with ids.
    private final class Received: @unchecked Sendable {
        let lines = Mutex<[(id: UInt32, text: String)]>([])
    }

    private func pipeReader(_ recording: EvemuRecording) throws -> (EvdevReader, Int32) {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        return (EvdevReader(rawFD: fds[0], name: "pipe", device: recording.device, mapping: EvdevMapping()), fds[1])
    }

    private func write(_ recording: EvemuRecording, to fd: Int32) {
        let bytes = InputEvent.kernelBytes(recording.events)
        XCTAssertEqual(bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, bytes.count) }, bytes.count)
    }

    /// An instrument on loopback and a controller connected to it.
    private func instrumentAndController() throws -> (server: PeerSession, remote: PeerSession, Received) {
        let server = try PeerSession(configuration: .init(displayName: "evdev-test", role: .server))
        let received = Received()
        server.onReceive = { m, _ in
            if case let .touch(id, phase, x, _, _) = m {
                received.lines.withLock { $0.append((id, phase == .up ? "up" : "\(phase) \(String(format: "%.2f", x))")) }
            }
        }
        let remote = try PeerSession(configuration: .init(displayName: "controller", role: .client))
        _ = try remote.connect(to: try server.listen(on: "127.0.0.1:0"))   // on a throw, deinit stops both
        return (server, remote, received)
    }

    func testDeviceTouchesGoToTheInstrumentWithoutLocalSound() throws {
        let (server, remote, received) = try instrumentAndController()
        defer { remote.stop(); server.stop() }
        let recording = try EvemuRecording.parse([("inline", Self.touchscreen)])
        let (reader, writeEnd) = try pipeReader(recording)
        let devices = try XCTUnwrap(RemoteController.startDevices(paths: [], mapping: EvdevMapping(), grab: false, readers: [reader], log: { _ in }, forward: { remote.forward($0) }))
        defer { devices.stop() }
        write(recording, to: writeEnd)
        close(writeEnd)
        XCTAssertTrue(Poll.until { received.lines.withLock { $0.count } >= 3 }, "\(received.lines.withLock { $0 })")
        let lines = received.lines.withLock { $0 }
        // Downs and ups go reliably (in order), moves unreliably (UDP: may pass the up).
        XCTAssertEqual(lines.map(\.text).filter { !$0.hasPrefix("move") }, ["down 0.25", "up"])
        XCTAssertEqual(lines.map(\.text).filter { $0.hasPrefix("move") }, ["move 0.75"])
        XCTAssertEqual(Set(lines.map(\.id)).count, 1, "one touch")
        XCTAssertGreaterThanOrEqual(lines[0].id, 1 << 24, "tagged apart from the pad's ids (mouse 0, keys)")
    }

    /// `--monitor`: the same events reach the local port (they sound here) and the instrument.
    func testMonitoredDeviceTouchesGoToBothTheLocalPortAndTheInstrument() throws {
        let (server, remote, received) = try instrumentAndController()
        defer { remote.stop(); server.stop() }
        let recording = try EvemuRecording.parse([("inline", Self.touchscreen)])
        let (reader, writeEnd) = try pipeReader(recording)
        let local = Mutex<[String]>([])
        final class Observer: ControlEventObserver, @unchecked Sendable {
            let seen: @Sendable (ControlEvent) -> Void
            init(_ seen: @escaping @Sendable (ControlEvent) -> Void) { self.seen = seen }
            func observe(_ event: ControlEvent, source: UInt32, streamFrame: UInt64) { seen(event) }
        }
        let tone = ToneTable(samples: [Float](repeating: 0, count: 64), rate: 48_000)
        defer { tone.deallocate() }
        let mixer = Mixer(configuration: MixerConfiguration(rate: 48_000, maxPeriodFrames: 256, voices: 8), tone: tone)
        defer { mixer.deallocate() }
        let port = ControlPort(mixer: mixer, pitchMap: .linear, clock: nil, observers: [Observer { e in
            if case let .touch(_, phase, x, _) = e { local.withLock { $0.append(phase == .up ? "up" : "\(phase) \(String(format: "%.2f", x))") } }
        }])
        let source = EvdevSource(devices: [], mapping: EvdevMapping(), grab: false, forward: { remote.forward($0) }, note: { _ in })
        source.extraReaders = [reader]
        try source.start(port: port, context: InputContext(mixer: mixer, output: PacedOutput(rate: 48_000, periodFrames: 256), pitchMap: .linear, rate: 48_000)) {}
        defer { source.stop() }
        write(recording, to: writeEnd)
        close(writeEnd)
        XCTAssertTrue(Poll.until { received.lines.withLock { $0.count } >= 3 }, "\(received.lines.withLock { $0 })")
        XCTAssertEqual(received.lines.withLock { $0 }.map(\.text).filter { !$0.hasPrefix("move") }, ["down 0.25", "up"])
        XCTAssertEqual(received.lines.withLock { $0 }.map(\.text).filter { $0.hasPrefix("move") }, ["move 0.75"])
        XCTAssertEqual(local.withLock { $0 }, ["down 0.25", "move 0.75", "up"])
    }
}
