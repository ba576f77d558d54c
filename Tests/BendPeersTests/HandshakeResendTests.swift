// SPDX-License-Identifier: GPL-3.0-or-later
@testable import BendPeers
import Foundation
import XCTest

/// RW-44: the first handshake frame on a fresh link may be lost; the waiting side sends
/// it again until answered, and identical repeats do not close the link.
final class HandshakeResendTests: XCTestCase {
    private func session(_ name: String, role: PeerRole, resend: Double) -> (PeerSession, PeerRecorder) {
        var c = PeerSession.Configuration(displayName: name, role: role)
        c.handshakeResendInterval = resend
        let s = try! PeerSession(configuration: c)  // no descriptors left: the test cannot go on
        let r = PeerRecorder()
        r.attach(s)
        return (s, r)
    }

    func testServerResendsTheChallengeAndAnswersARepeatedHelloWithTheSameAccept() throws {
        let (server, sr) = session("stage", role: .server, resend: 0.2)
        defer { server.stop() }
        let raw = try RawPeer(try server.listen(on: "127.0.0.1:0"))
        // The first CHALLENGE is "lost": the raw peer waits for the second.
        guard case .challenge(_, _, let first)? = try raw.next() else { return XCTFail("no CHALLENGE") }
        guard case .challenge(_, _, let again)? = try raw.next() else { return XCTFail("no second CHALLENGE") }
        XCTAssertEqual(first, again, "the same challenge, resent")
        let state = try PeerHandshake.answer(version: PeerProtocol.version, authRequired: false, serverNonce: first, key: nil, role: .client,
                                             identity: PeerIdentity(instance: 77, udpPort: 0, udpToken: 0, name: "late"),
                                             nonce: randomBytes(PeerProtocol.nonceBytes))
        raw.send(.hello(state.hello))
        guard case .accept(let a)? = try raw.next() else { return XCTFail("no ACCEPT") }
        XCTAssertEqual(try PeerHandshake.check(a, client: state).name, "stage")
        raw.side = state.keys.side(asServer: false)
        raw.send(.hello(state.hello))   // as if our HELLO had been lost and resent
        var second: PeerMessage?
        while let m = try raw.next(1) { if case .accept = m { second = m; break } }
        XCTAssertEqual(second, .accept(a), "a repeated HELLO gets the same ACCEPT")
        raw.send(.text("still connected"))
        XCTAssertTrue(waitFor { sr.messages.last?.0 == .text("still connected") })
        XCTAssertEqual(sr.stateNames(), ["connecting", "connected"])
    }

    func testClientResendsHelloUntilAcceptedAndIgnoresARepeatedChallenge() throws {
        let (listener, bound) = try TCPTransport().listen(on: "127.0.0.1:0")
        defer { listener.close() }
        let (client, cr) = session("remote", role: .client, resend: 0.2)
        defer { client.stop() }
        let result = connectInBackground(client, bound, timeout: 5)
        let raw = try RawPeer(acceptingOn: listener)
        let nonce = [UInt8](repeating: 9, count: PeerProtocol.nonceBytes)
        raw.send(.challenge(version: PeerProtocol.version, authRequired: false, nonce: nonce))
        guard case .hello(let h1)? = try raw.next() else { return XCTFail("no HELLO") }
        raw.send(.challenge(version: PeerProtocol.version, authRequired: false, nonce: nonce))   // a resent CHALLENGE
        // HELLO number one is "lost": wait for the resend.
        guard case .hello(let h2)? = try raw.next() else { return XCTFail("HELLO was not resent") }
        XCTAssertEqual(h1, h2)
        raw.accept(SessionKeys(key: nil, serverNonce: nonce, clientNonce: h1.nonce), name: "stage", instance: 5, keyed: false)
        XCTAssertTrue(waitFor { result.get() != nil })
        XCTAssertEqual(try result.get()?.get().name, "stage")
        XCTAssertEqual(cr.stateNames(), ["connecting", "connected"])
    }

    func testClientGivesUpAfterTheTimeoutSayingHowOftenItSentHello() throws {
        let (listener, bound) = try TCPTransport().listen(on: "127.0.0.1:0")
        defer { listener.close() }
        let (client, _) = session("remote", role: .client, resend: 0.2)
        defer { client.stop() }
        let result = connectInBackground(client, bound, timeout: 1)
        let raw = try RawPeer(acceptingOn: listener)
        raw.send(.challenge(version: PeerProtocol.version, authRequired: false, nonce: [UInt8](repeating: 1, count: PeerProtocol.nonceBytes)))
        var hellos = 0
        while let m = try raw.next(2) { if case .hello = m { hellos += 1 }; if case .bye = m { break } }
        XCTAssertTrue(waitFor { result.get() != nil })
        guard case .failure(let e)? = result.get(), case .timeout(let detail) = e as? PeerError else { return XCTFail("expected a timeout") }
        XCTAssertEqual(detail, "no handshake within 1.0 s (HELLO sent \(hellos) times)")
        XCTAssertGreaterThanOrEqual(hellos, 2)
    }
}
