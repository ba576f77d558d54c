// SPDX-License-Identifier: GPL-3.0-or-later
@testable import BendPeers
import Foundation
import XCTest

/// Protocol version 2 on the wire: a relay records every byte between a client and an
/// instrument (docs/PROTOCOL.md, "Sealing").
final class SealedSessionTests: XCTestCase {
    /// True when `needle` occurs in `haystack`.
    private func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard needle.count <= haystack.count else { return false }
        return (0...(haystack.count - needle.count)).contains { i in haystack[i..<(i + needle.count)].elementsEqual(needle) }
    }

    private func isTilt(_ m: PeerMessage) -> Float? { if case .tilt(let v, _) = m { v } else { nil } }
    private func moveX(_ m: PeerMessage, _ id: UInt32) -> Float? {
        if case let .touch(t, .move, x, _, _) = m, t == id { x } else { nil }
    }

    /// A keyed instrument, a relay in front of it and a client connected through the relay.
    private func relayed(key: SharedKey? = SharedKey.generate(), clientName: String = "pad")
        throws -> (server: PeerSession, sr: PeerRecorder, relay: RecordingRelay, client: PeerSession, cr: PeerRecorder, peer: PeerInfo) {
        let (server, sr) = makeSession("stage", role: .server, key: key, timeout: 3)
        let address = try server.listen(on: "127.0.0.1:0")
        let relay = try RecordingRelay(server: address, udpPort: server.datagramPort)
        let (client, cr) = makeSession(clientName, role: .client, key: key, timeout: 3)
        let peer = try client.connect(to: relay.address, timeout: 3)
        XCTAssertTrue(waitFor { server.connectedPeers.count == 1 })
        return (server, sr, relay, client, cr, peer)
    }

    func testTheRelaySeesNeitherTextsNorNamesNorTheKey() throws {
        let key = SharedKey.generate()
        let (server, sr) = makeSession("stage-name-1234", role: .server, key: key)
        let address = try server.listen(on: "127.0.0.1:0")
        let relay = try RecordingRelay(server: address, udpPort: server.datagramPort)
        let (client, cr) = makeSession("pad-name-5678", role: .client, key: key)
        defer { client.stop(); server.stop(); relay.stop() }
        let peer = try client.connect(to: relay.address)
        XCTAssertEqual(peer.name, "stage-name-1234")
        XCTAssertEqual(peer.address, relay.address, "connected to names the address reached")
        // connect returns when the client's side of the handshake is done; the server
        // counts the peer a moment later (its send to no peer returned 0 under load).
        XCTAssertTrue(waitFor { server.connectedPeers.count == 1 })
        let secret = "the secret melody 4711"
        XCTAssertEqual(client.send(.text(secret)), 1)
        XCTAssertEqual(server.send(.text("answer 0815")), 1)
        client.send(.touch(id: 9, phase: .down, x: 0.5, y: 0.5, timestamp: 1))
        client.send(.touch(id: 9, phase: .move, x: 0.25, y: 0.5, timestamp: 2), mode: .unreliable)
        XCTAssertTrue(waitFor { sr.messages.count == 3 && cr.messages.count == 1 })
        XCTAssertEqual(sr.messages.map(\.0).first { if case .text = $0 { true } else { false } }, .text(secret))
        XCTAssertEqual(sr.messages.last?.1.name, "pad-name-5678")
        XCTAssertEqual(relay.datagrams.count, 1, "the move went through the relay as a datagram")
        let wire = relay.clientToServer + relay.serverToClient + relay.datagrams.flatMap { $0 }
        XCTAssertGreaterThan(wire.count, 200)
        for text in [secret, "answer 0815", "pad-name-5678", "stage-name-1234"] {
            XCTAssertFalse(contains(wire, Array(text.utf8)), "'\(text)' is on the wire")
        }
        XCTAssertFalse(contains(wire, key.bytes), "the key is on the wire")
        // In clear: the CHALLENGE (version 1's layout) and the handshake's clear fields only.
        XCTAssertEqual(Array(relay.serverToClient.prefix(6)), [0, 36, FrameType.challenge.rawValue, 2, 1, 32])
        print("relay: \(wire.count) bytes recorded, no text, name or key among them")
    }

    func testARecordedDatagramSentAgainOrChangedMovesNothingAndIsCounted() throws {
        let (server, sr, relay, client, _, peer) = try relayed()
        defer { client.stop(); server.stop(); relay.stop() }
        client.send(.touch(id: 1, phase: .down, x: 0.5, y: 0.5, timestamp: 0))
        client.send(.touch(id: 1, phase: .move, x: 0.25, y: 0.5, timestamp: 1), mode: .unreliable)
        XCTAssertTrue(waitFor { sr.messages.compactMap { self.moveX($0.0, 1) } == [0.25] })
        let old = try XCTUnwrap(relay.datagrams.last)
        client.send(.touch(id: 1, phase: .move, x: 0.75, y: 0.5, timestamp: 2), mode: .unreliable)
        XCTAssertTrue(waitFor { sr.messages.compactMap { self.moveX($0.0, 1) } == [0.25, 0.75] })
        let clientID = PeerID(client.instance)
        relay.send(old)   // replayed: would move the touch back to 0.25
        XCTAssertTrue(waitFor { server.linkStatus(of: clientID)?.droppedDatagrams == 1 })
        XCTAssertEqual(server.linkStatus(of: clientID)?.replayedDatagrams, 1)
        XCTAssertEqual(sr.messages.compactMap { self.moveX($0.0, 1) }, [0.25, 0.75], "the touch stays at 0.75")
        // A changed copy of a datagram not yet delivered (a fresh counter): dropped, and
        // it does not use up the counter — the genuine one arrives after it.
        relay.hold(true)
        client.send(.touch(id: 1, phase: .move, x: 0.5, y: 0.5, timestamp: 3), mode: .unreliable)
        XCTAssertTrue(waitFor { relay.heldCount == 1 })
        var changed = try XCTUnwrap(relay.datagrams.last)
        changed[changed.count - 20] ^= 0x40   // one bit of the ciphertext
        relay.send(changed)
        XCTAssertTrue(waitFor { server.linkStatus(of: clientID)?.droppedDatagrams == 2 })
        XCTAssertEqual(server.linkStatus(of: clientID)?.forgedDatagrams, 1)
        relay.hold(false)
        XCTAssertTrue(waitFor { sr.messages.compactMap { self.moveX($0.0, 1) } == [0.25, 0.75, 0.5] })
        _ = peer
    }

    func testDatagramsReorderedWithinTheWindowArriveAndOneBeyondItIsDropped() throws {
        let (server, sr, relay, client, _, _) = try relayed()
        defer { client.stop(); server.stop(); relay.stop() }
        client.send(.touch(id: 2, phase: .down, x: 0.5, y: 0.5, timestamp: 0))
        relay.hold(true)
        for i in 0..<6 { client.send(.touch(id: 2, phase: .move, x: Float(i) / 100, y: 0.5, timestamp: 0), mode: .unreliable) }
        XCTAssertTrue(waitFor { relay.heldCount == 6 })
        relay.hold(false, order: [5, 0, 1, 2, 3, 4])   // the newest first: the rest are within the window
        XCTAssertTrue(waitFor { sr.messages.compactMap { self.moveX($0.0, 2) }.count == 6 })
        relay.hold(true)
        let n = Int(ReplayWindow.width) + 6
        for i in 0..<n { client.send(.touch(id: 2, phase: .move, x: Float(i) / 100, y: 0.5, timestamp: 0), mode: .unreliable) }
        XCTAssertTrue(waitFor { relay.heldCount == n })
        relay.hold(false, order: Array(1..<n) + [0])   // the first arrives 69 counters late
        let id = PeerID(client.instance)
        XCTAssertTrue(waitFor { (sr.messages.compactMap { self.moveX($0.0, 2) }.count == 6 + n - 1) && server.linkStatus(of: id)?.droppedDatagrams == 1 })
        XCTAssertEqual(server.linkStatus(of: id)?.replayedDatagrams, 1)
    }

    func testOneFlippedByteInAStreamFrameClosesThatPeerAndNoOther() throws {
        let (server, sr, relay, client, cr, _) = try relayed(clientName: "relayed")
        let (good, _) = makeSession("good", role: .client, key: server.configuration.key)
        defer { client.stop(); good.stop(); server.stop(); relay.stop() }
        _ = try good.connect(to: relay.serverAddress)
        XCTAssertTrue(waitFor { server.connectedPeers.count == 2 })
        relay.flipClientFrame()
        client.send(.text("changed on the way"))
        XCTAssertTrue(waitFor { sr.states.contains { $0.peer.name == "relayed" && $0.state == .disconnected } })
        let closed = try XCTUnwrap(sr.states.last { $0.peer.name == "relayed" })
        XCTAssertEqual(closed.reason, .tampered)
        XCTAssertTrue(closed.detail.hasPrefix("sealed frame "), closed.detail)
        XCTAssertTrue(closed.detail.hasSuffix(" does not authenticate (changed on the way, or another key)"), closed.detail)
        // The relayed client hears why (the instrument's sealed BYE).
        XCTAssertTrue(waitFor { cr.states.last?.state == .disconnected })
        XCTAssertEqual(cr.states.last?.reason, .tampered)
        XCTAssertEqual(cr.states.last?.byPeer, true)
        // The other peer plays on.
        XCTAssertEqual(good.send(.text("still here")), 1)
        XCTAssertTrue(waitFor { sr.messages.last?.0 == .text("still here") })
        XCTAssertEqual(server.connectedPeers.map(\.name), ["good"])
        XCTAssertFalse(sr.messages.contains { $0.0 == .text("changed on the way") })
    }

    func testAForgedInstrumentWithAnotherKeyOrNoneIsNotPlayed() throws {
        let key = SharedKey.generate()
        for forgery in ["another key", "no key"] {
            let (listener, bound) = try TCPTransport().listen(on: "127.0.0.1:0")
            defer { listener.close() }
            let (client, cr) = makeSession("pad", role: .client, key: key)
            defer { client.stop() }
            let result = connectInBackground(client, bound, timeout: 3)
            let raw = try RawPeer(acceptingOn: listener)
            if forgery == "another key" {
                // It cannot check the proof, so it accepts anyone, proving its own key.
                let (_, keys) = try XCTUnwrap(try raw.challenge(key: SharedKey.generate()))
                raw.accept(keys, name: "stage", instance: 5, keyed: true)
            } else {
                raw.send(.challenge(version: PeerProtocol.version, authRequired: false, nonce: randomBytes(32)))
            }
            var after: [PeerMessage] = []
            while let m = try? raw.next(1) { after.append(m) }
            XCTAssertTrue(waitFor { result.get() != nil })
            guard case .failure(let e)? = result.get(), case .declined(let reason, let detail)? = e as? PeerError else { return XCTFail("\(forgery): played") }
            XCTAssertEqual(reason, .authenticationFailed, forgery)
            XCTAssertTrue(detail.contains(forgery == "no key" ? "asks for no shared key" : "did not prove it holds the shared key"), detail)
            XCTAssertEqual(cr.stateNames(), ["connecting", "disconnected"], "never connected: nothing was played")
            // What the client sent after the handshake: one BYE saying why, no touch.
            XCTAssertEqual(after.count, 1, "\(forgery): \(after)")
            if case .bye(let r, _)? = after.first { XCTAssertEqual(r, .authenticationFailed) } else { XCTFail("\(forgery): \(after)") }
        }
    }

    func testAVersion1PeerReadsTheChallengeAndAnUpgradeDecline() throws {
        let (server, sr) = makeSession("stage", role: .server)
        defer { server.stop() }
        let raw = try RawPeer(try server.listen(on: "127.0.0.1:0"))
        // The first frame in version 1's layout: length, type 1, version, auth flag, nonce.
        guard case .challenge(let version, false, let nonce)? = try raw.next() else { return XCTFail("no CHALLENGE") }
        XCTAssertEqual(version, 2)
        XCTAssertEqual(FrameCodec.encode(.challenge(version: 2, authRequired: false, nonce: nonce)), [0, 36, 1, 2, 0, 32] + nonce)
        // Version 1's HELLO: version, role, instance u64, udp port u16, token u32, name str8, auth bytes8.
        let hello: [UInt8] = [2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 2] + Array("v1".utf8) + [0]
        raw.sendRaw([0, UInt8(hello.count)] + hello)
        guard case .decline(let reason, let detail)? = try raw.next() else { return XCTFail("no DECLINE") }
        XCTAssertEqual(reason, .versionMismatch)
        XCTAssertEqual(detail, "HELLO of peer protocol version 1; this bendsynth speaks version 2: upgrade the remote's bendsynth")
        XCTAssertNil(try raw.next(1), "closed after the DECLINE")
        XCTAssertTrue(sr.states.isEmpty)
    }

    func testAVersion2RemoteTellsToUpgradeAVersion1Instrument() throws {
        let (listener, bound) = try TCPTransport().listen(on: "127.0.0.1:0")
        defer { listener.close() }
        let (client, _) = makeSession("pad", role: .client)
        defer { client.stop() }
        let result = connectInBackground(client, bound, timeout: 3)
        let raw = try RawPeer(acceptingOn: listener)
        raw.send(.challenge(version: 1, authRequired: false, nonce: randomBytes(32)))
        XCTAssertEqual(try raw.next(), .bye(reason: .versionMismatch, detail: "the instrument speaks peer protocol version 1, this bendsynth version 2: upgrade the instrument's bendsynth"))
        XCTAssertTrue(waitFor { result.get() != nil })
        guard case .failure(let e)? = result.get() else { return XCTFail("played a version-1 instrument") }
        XCTAssertEqual("\(e)", "declined: protocol version mismatch (the instrument speaks peer protocol version 1, this bendsynth version 2: upgrade the instrument's bendsynth)")
    }

    func testIPv6LoopbackCarriesTheStreamAndTheDatagrams() throws {
        let (server, sr) = makeSession("stage", role: .server)
        let (client, _) = makeSession("pad", role: .client)
        defer { client.stop(); server.stop() }
        let address = try server.listen(on: "[::1]:0")
        XCTAssertTrue(address.hasPrefix("[::1]:"), address)
        let peer = try client.connect(to: address)
        XCTAssertEqual(peer.address, address)
        client.send(.touch(id: 3, phase: .down, x: 0.5, y: 0.5, timestamp: 0))
        client.send(.touch(id: 3, phase: .move, x: 0.125, y: 0.5, timestamp: 1), mode: .unreliable)
        XCTAssertTrue(waitFor { sr.messages.compactMap { self.moveX($0.0, 3) } == [0.125] })
        XCTAssertEqual(client.connection(peer.id)?.shared.withLock { $0.udp?.description }.map { $0.hasPrefix("[::1]:") }, true)
    }

    /// The relay holds every datagram back: the last tilt and move arrive all the same,
    /// on the stream, before the BYE.
    func testTheLastStateArrivesBeforeByeWhenTheDatagramsDoNot() throws {
        let (server, sr, relay, client, _, _) = try relayed()
        defer { client.stop(); server.stop(); relay.stop() }
        client.send(.touch(id: 4, phase: .down, x: 0.5, y: 0.5, timestamp: 0))
        relay.hold(true)
        client.send(.tilt(value: 0.5, timestamp: 1), mode: .unreliable)
        client.send(.touch(id: 4, phase: .move, x: 0.3, y: 0.5, timestamp: 2), mode: .unreliable)
        client.send(.touch(id: 5, phase: .down, x: 0.5, y: 0.5, timestamp: 3))
        client.send(.touch(id: 5, phase: .move, x: 0.6, y: 0.5, timestamp: 4), mode: .unreliable)
        client.send(.touch(id: 5, phase: .up, x: 0.6, y: 0.5, timestamp: 5))
        client.send(.tilt(value: -0.75, timestamp: 6), mode: .unreliable)
        XCTAssertTrue(waitFor { relay.heldCount == 4 })
        client.disconnectFromAllPeers()
        XCTAssertTrue(waitFor { sr.states.last?.state == .disconnected })
        XCTAssertEqual(sr.states.last?.reason, .normal)
        let got = sr.messages.map(\.0)
        XCTAssertEqual(got.compactMap(isTilt), [-0.75], "the last tilt, once")
        XCTAssertEqual(got.compactMap { self.moveX($0, 4) }, [0.3], "the last move of the touch still down")
        XCTAssertEqual(got.compactMap { self.moveX($0, 5) }, [], "none for a touch that ended")
        relay.hold(false)   // too late: the session is gone
    }
}
