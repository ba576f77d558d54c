// SPDX-License-Identifier: GPL-3.0-or-later
@testable import BendPeers
import XCTest

final class ReplayWindowTests: XCTestCase {
    func testFreshReplayedAndTooOldCounters() {
        var w = ReplayWindow()
        XCTAssertEqual(w.check(0), .tooOld, "senders count from 1")
        for n: UInt64 in [1, 2, 5] { XCTAssertEqual(w.check(n), .fresh); w.mark(n) }
        XCTAssertEqual(w.check(5), .replayed)
        XCTAssertEqual(w.check(2), .replayed)
        XCTAssertEqual(w.check(3), .fresh, "reordered within the window")
        w.mark(3)
        XCTAssertEqual(w.check(3), .replayed)
        w.mark(5 + 63)
        XCTAssertEqual(w.check(5), .replayed, "63 below the highest: still remembered")
        XCTAssertEqual(w.check(4), .tooOld, "64 below the highest: beyond the window")
        XCTAssertEqual(w.check(6), .fresh)
        w.mark(1_000)
        XCTAssertEqual(w.check(5 + 63), .tooOld)
        XCTAssertEqual(w.check(999), .fresh)
        XCTAssertEqual(w.check(1_000), .replayed)
        XCTAssertEqual(w.highest, 1_000)
    }
}

/// The instrument's line for a peer refused when the room is full says so; a peer that
/// played and went "left".
final class RefusalNoticeTests: XCTestCase {
    func testAPlayerRefusedForTooManyIsRefusedNotLeft() throws {
        var c = PeerSession.Configuration(displayName: "stage", role: .server)
        c.maxPeers = 1
        let server = try PeerSession(configuration: c)
        let sr = PeerRecorder()
        sr.attach(server)
        let (a, _) = makeSession("a", role: .client), (b, _) = makeSession("b", role: .client)
        defer { a.stop(); b.stop(); server.stop() }
        let address = try server.listen(on: "127.0.0.1:0")
        _ = try a.connect(to: address)
        XCTAssertThrowsError(try b.connect(to: address)) { XCTAssertEqual("\($0)", "declined: too many players (already 1 player)") }
        // The instrument reports the refusal after its DECLINE went out.
        XCTAssertTrue(waitFor { sr.states.contains { $0.peer.name == "b" && $0.state == .disconnected } })
        let refused = try XCTUnwrap(sr.states.last { $0.peer.name == "b" })
        XCTAssertEqual(PeerSource.farewell(refused), "\(refused.peer) refused: too many players (already 1 player)")
        a.disconnectFromAllPeers()
        XCTAssertTrue(waitFor { sr.states.last?.peer.name == "a" && sr.states.last?.state == .disconnected })
        let left = try XCTUnwrap(sr.states.last)
        XCTAssertEqual(PeerSource.farewell(left), "\(left.peer) left: normal (hung up)")
    }
}
