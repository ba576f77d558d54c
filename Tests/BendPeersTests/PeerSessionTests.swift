// SPDX-License-Identifier: GPL-3.0-or-later
@testable import BendPeers
import BendSystem
import Foundation
import Glibc
import XCTest

final class PeerSessionTests: XCTestCase {
    func testConnectToAPortNobodyListensOnNamesTheCallAndTheAddress() throws {
        let (fd, bound) = try TCPTransport().listen(on: "127.0.0.1:0")
        fd.close()   // the port was just free: nothing listens there now
        XCTAssertThrowsError(try TCPTransport().connect(to: bound, timeout: 1)) {
            XCTAssertEqual($0 as? PeerError, .system(SystemError(call: "connect(\(bound))", code: ECONNREFUSED)))
            XCTAssertEqual("\($0)", "connect(\(bound)): Connection refused")
        }
    }

    func testInviteAcceptThenReliableAndUnreliableSendsArriveWithTheirSender() throws {
        let (server, sr) = makeSession("stage", role: .server)
        let (client, cr) = makeSession("pad", role: .client)
        defer { client.stop(); server.stop() }
        let address = try server.listen(on: "127.0.0.1:0")
        let peer = try client.connect(to: address, timeout: 2)
        XCTAssertEqual(peer.name, "stage")
        XCTAssertEqual(peer.id, PeerID(server.instance))
        XCTAssertEqual(cr.stateNames(), ["connecting", "connected"])
        XCTAssertTrue(waitFor { sr.stateNames() == ["connecting", "connected"] })
        XCTAssertEqual(sr.states.last?.peer.id, PeerID(client.instance))
        XCTAssertEqual(sr.states.last?.peer.name, "pad")
        // Over TCP each side sends its unreliable frames by UDP to the other's address.
        XCTAssertEqual(client.connection(peer.id)?.shared.withLock { $0.udp?.host }, "127.0.0.1")
        XCTAssertEqual(server.connection(PeerID(client.instance))?.shared.withLock { $0.udp?.host }, "127.0.0.1")

        XCTAssertEqual(client.send(.touch(id: 4, phase: .down, x: 0.5, y: 0.75, timestamp: 1), mode: .reliable), 1)
        XCTAssertEqual(client.send(.touch(id: 4, phase: .move, x: 0.25, y: 0.75, timestamp: 2), mode: .unreliable), 1)
        XCTAssertEqual(server.send(.text("hi from the stage"), to: .peers([PeerID(client.instance)])), 1)
        XCTAssertTrue(waitFor { sr.messages.count == 2 && cr.messages.count == 1 })
        // Both arrive; an unreliable send may overtake a reliable one (docs/PROTOCOL.md).
        XCTAssertEqual(sr.messages.map(\.0).filter { if case .touch(_, .down, _, _, _) = $0 { true } else { false } },
                       [.touch(id: 4, phase: .down, x: 0.5, y: 0.75, timestamp: 1)])
        XCTAssertEqual(sr.messages.map(\.0).filter { if case .touch(_, .move, _, _, _) = $0 { true } else { false } },
                       [.touch(id: 4, phase: .move, x: 0.25, y: 0.75, timestamp: 2)])
        XCTAssertEqual(Set(sr.messages.map(\.1.id)), [PeerID(client.instance)])
        XCTAssertEqual(cr.messages.first?.0, .text("hi from the stage"))
        XCTAssertEqual(cr.messages.first?.1.id, PeerID(server.instance))
        // The heartbeat measures a round trip.
        XCTAssertTrue(waitFor { client.linkStatus(of: peer.id)?.roundTrip != nil })
        print("loopback heartbeat round trip: \(String(format: "%.3f", client.linkStatus(of: peer.id)!.roundTrip! * 1e3)) ms")
    }

    func testPolicyDeclinesWithItsReason() throws {
        let (server, sr) = makeSession("stage", role: .server)
        server.invitationPolicy = { $0.name == "pad" ? .decline("busy rehearsing") : .accept }
        let (client, cr) = makeSession("pad", role: .client)
        defer { client.stop(); server.stop() }
        let address = try server.listen(on: "127.0.0.1:0")
        XCTAssertThrowsError(try client.connect(to: address)) {
            XCTAssertEqual($0 as? PeerError, .declined(.declinedByPolicy, "busy rehearsing"))
        }
        XCTAssertEqual(cr.stateNames(), ["connecting", "disconnected"])
        XCTAssertTrue(waitFor { sr.stateNames() == ["connecting", "disconnected"] })
        XCTAssertEqual(sr.states.last?.reason, .declinedByPolicy)
        XCTAssertTrue(server.connectedPeers.isEmpty)
    }

    func testDisconnectFromAllPeersReachesBothSidesInOrder() throws {
        let (server, sr) = makeSession("stage", role: .server)
        let (a, ar) = makeSession("a", role: .client)
        let (b, _) = makeSession("b", role: .client)
        defer { a.stop(); b.stop(); server.stop() }
        let address = try server.listen(on: "127.0.0.1:0")
        _ = try a.connect(to: address)
        _ = try b.connect(to: address)
        XCTAssertTrue(waitFor { server.connectedPeers.count == 2 })
        a.disconnectFromAllPeers()
        XCTAssertTrue(waitFor { ar.stateNames() == ["connecting", "connected", "disconnected"] })
        XCTAssertEqual(ar.states.last?.reason, .normal)
        XCTAssertTrue(waitFor { server.connectedPeers.map(\.name) == ["b"] })
        let aStates = sr.states.filter { $0.peer.id == PeerID(a.instance) }
        XCTAssertEqual(aStates.map(\.state), [.connecting, .connected, .disconnected])
        XCTAssertEqual(aStates.last?.reason, .normal)
    }

    func testClosedSocketDisconnectsAtOnceAndSilentPeerAfterTheHeartbeatTimeout() throws {
        let (server, sr) = makeSession("stage", role: .server, timeout: 1.0)
        defer { server.stop() }
        let address = try server.listen(on: "127.0.0.1:0")
        // FIN: the peer closes its socket mid-touch.
        var fin: RawPeer? = try RawPeer(address)
        guard case .accept? = try fin!.handshake(name: "fin", instance: 11) else { return XCTFail("no ACCEPT") }
        fin!.send(.touch(id: 1, phase: .down, x: 0.5, y: 0.5, timestamp: 0))
        XCTAssertTrue(waitFor { sr.messages.count == 1 })
        var t0 = Date()
        fin = nil
        XCTAssertTrue(waitFor { sr.states.last?.state == .disconnected })
        XCTAssertEqual(sr.states.last?.reason, .connectionLost)
        // FIN, or RST when our PINGs were still unread in its receive buffer (RW-40 C1/C2).
        XCTAssertTrue(["closed by peer", "Connection reset by peer"].contains(sr.states.last?.detail ?? ""), sr.states.last?.detail ?? "")
        print("FIN noticed after \(String(format: "%.1f", Date().timeIntervalSince(t0) * 1e3)) ms")

        // Silent loss (RW-40 C3): handshake, touch, then nothing at all.
        let silent = try RawPeer(address)
        guard case .accept? = try silent.handshake(name: "silent", instance: 12) else { return XCTFail("no ACCEPT") }
        silent.send(.touch(id: 1, phase: .down, x: 0.5, y: 0.5, timestamp: 0))
        t0 = Date()
        XCTAssertTrue(waitFor(3.1) { sr.states.last?.peer.id == PeerID(12) && sr.states.last?.state == .disconnected })
        XCTAssertEqual(sr.states.last?.reason, .heartbeatTimeout)
        print("silent peer disconnected after \(String(format: "%.2f", Date().timeIntervalSince(t0))) s (timeout 1 s)")
    }

    func testMalformedAndOutOfOrderFramesCloseOnlyThatPeerWithTheReason() throws {
        let (server, sr) = makeSession("stage", role: .server)
        let (good, _) = makeSession("good", role: .client)
        defer { good.stop(); server.stop() }
        let address = try server.listen(on: "127.0.0.1:0")
        _ = try good.connect(to: address)
        let cases: [(String, (RawPeer) -> Void, CloseReason, String)] = [
            ("bad x", { $0.send(.touch(id: 1, phase: .down, x: 1.5, y: 0, timestamp: 0)) }, .malformedFrame, "TOUCH: x = 1.5, expected 0…1"),
            ("oversized", { $0.sendRaw([0x7f, 0xff]) }, .oversizedFrame, "frame length 32767, at most 529"),
            ("unknown type", { $0.sendRaw([0, 1, 99]) }, .malformedFrame, "unknown frame type 99"),
            ("second hello", { $0.send(.hello(Hello(role: .client, nonce: Array(repeating: 1, count: 32), proof: [], identity: Array(repeating: 2, count: 20)))) },
             .outOfOrder, "hello frame while connected (after the handshake every frame is sealed)"),
            ("clear touch", { $0.sendClear(.touch(id: 1, phase: .down, x: 0.5, y: 0.5, timestamp: 0)) },
             .outOfOrder, "touch frame while connected (after the handshake every frame is sealed)"),
        ]
        for (i, (label, act, reason, detail)) in cases.enumerated() {
            let raw = try RawPeer(address)
            guard case .accept? = try raw.handshake(name: label, instance: UInt64(100 + i)) else { return XCTFail("\(label): no ACCEPT") }
            act(raw)
            var bye: PeerMessage?
            while let m = try raw.next() { if case .bye = m { bye = m; break } }
            XCTAssertEqual(bye, .bye(reason: reason, detail: detail), label)
            XCTAssertTrue(waitFor { sr.states.last?.peer.id == PeerID(UInt64(100 + i)) && sr.states.last?.state == .disconnected }, label)
        }
        // The good peer kept playing throughout.
        XCTAssertEqual(good.send(.text("still here")), 1)
        XCTAssertTrue(waitFor { sr.messages.last?.0 == .text("still here") })
        XCTAssertEqual(server.connectedPeers.map(\.name), ["good"])
    }

    func testNinthPeerIsDeclined() throws {
        let (server, _) = makeSession("stage", role: .server)
        defer { server.stop() }
        let address = try server.listen(on: "127.0.0.1:0")
        var clients: [PeerSession] = []
        defer { clients.forEach { $0.stop() } }
        for i in 0..<8 {
            let (c, _) = makeSession("c\(i)", role: .client)
            clients.append(c)
            _ = try c.connect(to: address)
        }
        let (ninth, _) = makeSession("c8", role: .client)
        defer { ninth.stop() }
        XCTAssertThrowsError(try ninth.connect(to: address)) {
            XCTAssertEqual($0 as? PeerError, .declined(.tooManyPeers, "already 8 players"))
        }
        XCTAssertEqual(server.connectedPeers.count, 8)
    }

    /// RW-44 step 4: a peer that comes back while its old connection still looks alive
    /// replaces it; the old one is closed (its touches end), nothing carries over.
    func testReconnectFromTheSameInstanceReplacesTheOldConnection() throws {
        let (server, sr) = makeSession("stage", role: .server, timeout: 5)
        defer { server.stop() }
        let address = try server.listen(on: "127.0.0.1:0")
        let old = try RawPeer(address)
        guard case .accept? = try old.handshake(name: "pad", instance: 77) else { return XCTFail("no ACCEPT") }
        let again = try RawPeer(address)
        guard case .accept? = try again.handshake(name: "pad", instance: 77) else { return XCTFail("no ACCEPT") }
        var bye: PeerMessage?
        while let m = try old.next() { if case .bye = m { bye = m; break } }
        XCTAssertEqual(bye, .bye(reason: .replaced, detail: "a new connection from the same peer"))
        XCTAssertTrue(waitFor { server.connectedPeers.count == 1 })
        XCTAssertEqual(sr.states.map(\.state), [.connecting, .connected, .connecting, .disconnected, .connected])
        XCTAssertEqual(sr.states[3].reason, .replaced)
    }
}
