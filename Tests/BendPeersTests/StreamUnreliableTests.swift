// SPDX-License-Identifier: GPL-3.0-or-later
@testable import BendPeers
import BendSystem
import Glibc
import XCTest

/// Unreliable sends to a peer without datagrams (as on Bluetooth RFCOMM) go through the
/// per-peer best-effort queue: in order, the newest move wins, none trails the touch's UP.
final class StreamUnreliableTests: XCTestCase {
    func testMovesWithoutUDPAreQueuedCoalescedAndNeverFollowTheUp() throws {
        let (server, sr) = makeSession("stage", role: .server)
        defer { server.stop() }
        let raw = try RawPeer(try server.listen(on: "127.0.0.1:0"))
        guard case .accept? = try raw.handshake(name: "no-udp", instance: 42) else { return XCTFail("no ACCEPT") }
        XCTAssertTrue(waitFor { server.connectedPeers.count == 1 })
        let peer = PeerID(42)
        let moves = 1000
        func sendMoves(_ range: ClosedRange<Int>) {
            for i in range {
                server.send(.touch(id: 1, phase: .move, x: Float(i) / Float(moves), y: 0.5, timestamp: 0), to: .peers([peer]), mode: .unreliable)
            }
        }
        sendMoves(1...moves / 2)
        // Let the I/O thread write what is queued: else the UP below may remove every queued move.
        XCTAssertTrue(waitFor { server.connection(peer)?.hasQueued == false })
        sendMoves(moves / 2 + 1...moves)
        // One more move still queued when the UP goes: once the I/O thread has written the
        // queue and waits in poll, enqueued without waking it.
        XCTAssertTrue(waitFor { server.connection(peer)?.hasQueued == false })
        usleep(10_000)
        XCTAssertTrue(try XCTUnwrap(server.connection(peer)).enqueueUnreliable(.touch(id: 1, phase: .move, x: 1, y: 0.5, timestamp: 0)))
        server.send(.touch(id: 1, phase: .up, x: 1, y: 0.5, timestamp: 0), to: .peers([peer]), mode: .reliable)
        var xs: [Float] = []
        var sawUp = false
        // Read on for 0.2 s after the UP (within the 1 s heartbeat timeout): a queued
        // move written after it would arrive then.
        var upAt: UInt64?
        while let m = try raw.next(upAt == nil ? 2 : 0.2) {
            switch m {
            case let .touch(1, .move, x, _, _):
                XCTAssertFalse(sawUp, "a move after the UP")
                xs.append(x)
            case .touch(1, .up, _, _, _): sawUp = true; upAt = MonotonicClock.nanos()
            default: break
            }
            if let upAt, MonotonicClock.nanos() - upAt > 200_000_000 { break }
        }
        XCTAssertTrue(sawUp)
        XCTAssertEqual(xs, xs.sorted(), "moves arrive in the order sent")
        let status = try XCTUnwrap(server.linkStatus(of: peer))
        XCTAssertEqual(status.droppedUnreliable, 0, "one touch never fills the queue")
        XCTAssertLessThanOrEqual(xs.count + status.replacedUnreliable, moves + 1, "each move was written or replaced (or removed by the UP)")
        XCTAssertGreaterThan(xs.count, 0)
        print("stream-only unreliable: \(moves) moves sent, \(xs.count) written, \(status.replacedUnreliable) replaced by newer ones")
        _ = sr
    }
}
