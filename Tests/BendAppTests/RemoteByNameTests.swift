// SPDX-License-Identifier: GPL-3.0-or-later
import BendPeers
import Foundation
import Synchronization
import XCTest

/// `remote NAME`: the binary finds an instrument by the name it announces.
final class RemoteByNameTests: XCTestCase {
    /// The real announcement port: `remote "NAME" --script` finds a session announcing
    /// NAME and plays it: the touch arrives with the remote's name.
    func testRemoteByNamePlaysTheAnnouncedInstrument() throws {
        let name = "named-instrument-\(getpid())"
        let server = try PeerSession(configuration: .init(displayName: name, role: .server))
        let touches = Mutex<[String]>([])
        server.onReceive = { m, peer in
            if case let .touch(_, phase, x, _, _) = m { touches.withLock { $0.append(phase == .down ? "\(peer.name) down \(x)" : "\(peer.name) \(phase)") } }
        }
        defer { server.stop() }
        let bound = try server.listen(on: "127.0.0.1:0")
        let ep = try PeerAddress.parse(bound)
        let announcer = try PeerAnnouncer(PeerAnnouncement(tcpPort: ep.port, authRequired: false, name: name), broadcast: false)
        defer { announcer.stop() }
        let dir = try BinaryRunner.temporaryDirectory()
        let script = dir.appendingPathComponent("s.jsonl").path
        defer { try? FileManager.default.removeItem(at: dir) }
        try """
        {"t": 0.0, "type": "down", "id": 3, "x": 0.25, "y": 1}
        {"t": 0.1, "type": "up", "id": 3}
        """.write(toFile: script, atomically: true, encoding: .utf8)
        let r = try BinaryRunner.run(["remote", name, "--script", script, "--name", "by-name"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("'\(name)' is \(bound)"), r.stderr)
        XCTAssertEqual(touches.withLock { $0 }, ["by-name down 0.25", "by-name up"])
    }
}
