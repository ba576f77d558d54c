// SPDX-License-Identifier: GPL-3.0-or-later
@testable import BendPeers
import Foundation
import XCTest

/// Invitations the player answers (`.ask`), as Bluetooth invitations are.
final class InvitationTests: XCTestCase {
    private func asking(timeout: Double = 30, maxPeers: Int = 8) -> (PeerSession, PeerRecorder) {
        var c = PeerSession.Configuration(displayName: "stage", role: .server)
        c.invitationTimeout = timeout
        c.maxPeers = maxPeers
        let s = try! PeerSession(configuration: c)  // no descriptors left: the test cannot go on
        s.invitationPolicy = { _ in .ask }
        let r = PeerRecorder()
        r.attach(s)
        return (s, r)
    }

    func testThePlayerAcceptsAWaitingInvitation() throws {
        let (server, sr) = asking()
        defer { server.stop() }
        let address = try server.listen(on: "127.0.0.1:0")
        let (client, cr) = makeSession("phone", role: .client)
        defer { client.stop() }
        let result = connectInBackground(client, address, timeout: 10)
        XCTAssertTrue(waitFor { server.pendingInvitations.count == 1 })
        XCTAssertEqual(sr.states.last?.detail, "invitation from 'phone' (\(server.pendingInvitations[0].address)) awaits an answer")
        XCTAssertNil(result.get(), "the client waits for the answer")
        server.answerInvitation(from: server.pendingInvitations[0].id, .accept)
        XCTAssertTrue(waitFor { result.get() != nil })
        XCTAssertEqual(try result.get()?.get().name, "stage")
        XCTAssertEqual(sr.stateNames(), ["connecting", "connecting", "connected"])
        XCTAssertEqual(cr.stateNames(), ["connecting", "connected"])
        XCTAssertTrue(server.pendingInvitations.isEmpty)
        XCTAssertEqual(client.send(.text("hi")), 1)
        XCTAssertTrue(waitFor { sr.messages.last?.0 == .text("hi") })
    }

    /// Two invitations wait while the room has one place: the one accepted first plays,
    /// the other, accepted after, is declined as too many (the room is counted again at
    /// the answer, not only when the HELLO came).
    func testAnInvitationAcceptedWhenTheRoomIsFullIsDeclined() throws {
        let (server, _) = asking(maxPeers: 1)
        defer { server.stop() }
        let address = try server.listen(on: "127.0.0.1:0")
        let (a, _) = makeSession("phone a", role: .client)
        let (b, _) = makeSession("phone b", role: .client)
        defer { a.stop(); b.stop() }
        let first = connectInBackground(a, address, timeout: 10)
        let second = connectInBackground(b, address, timeout: 10)
        XCTAssertTrue(waitFor { server.pendingInvitations.count == 2 })
        let waiting = server.pendingInvitations
        let idA = try XCTUnwrap(waiting.first { $0.name == "phone a" }?.id)
        let idB = try XCTUnwrap(waiting.first { $0.name == "phone b" }?.id)
        server.answerInvitation(from: idA, .accept)
        XCTAssertTrue(waitFor { first.get() != nil })
        XCTAssertEqual(try first.get()?.get().name, "stage")
        server.answerInvitation(from: idB, .accept)
        XCTAssertTrue(waitFor { second.get() != nil })
        guard case .failure(let e)? = second.get() else { return XCTFail("expected a decline") }
        XCTAssertEqual(e as? PeerError, .declined(.tooManyPeers, "already 1 player"))
        XCTAssertTrue(waitFor { server.pendingInvitations.isEmpty })
    }

    func testThePlayerDeclinesWithAReason() throws {
        let (server, _) = asking()
        defer { server.stop() }
        let address = try server.listen(on: "127.0.0.1:0")
        let (client, _) = makeSession("phone", role: .client)
        defer { client.stop() }
        let result = connectInBackground(client, address, timeout: 10)
        XCTAssertTrue(waitFor { server.pendingInvitations.count == 1 })
        server.answerInvitation(from: server.pendingInvitations[0].id, .decline("the player said no"))
        XCTAssertTrue(waitFor { result.get() != nil })
        guard case .failure(let e)? = result.get() else { return XCTFail("expected a decline") }
        XCTAssertEqual(e as? PeerError, .declined(.declinedByPolicy, "the player said no"))
        XCTAssertTrue(waitFor { server.pendingInvitations.isEmpty })
    }

    func testNoAnswerDeclinesAfterTheInvitationTimeout() throws {
        let (server, sr) = asking(timeout: 0.3)
        defer { server.stop() }
        let address = try server.listen(on: "127.0.0.1:0")
        let (client, _) = makeSession("phone", role: .client)
        defer { client.stop() }
        let result = connectInBackground(client, address, timeout: 10)
        XCTAssertTrue(waitFor { result.get() != nil })
        guard case .failure(let e)? = result.get() else { return XCTFail("expected a decline") }
        XCTAssertEqual(e as? PeerError, .declined(.declinedByPolicy, "no answer from the player within 0.3 s"))
        XCTAssertEqual(sr.states.last?.state, .disconnected)
        XCTAssertTrue(server.pendingInvitations.isEmpty)
    }
}
