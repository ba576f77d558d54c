// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem

// MARK: - Invitations (I/O thread)

/// A HELLO's answer: key and identity checked, room, then the player's policy (accept,
/// decline, or ask and wait for `answer`); the list of waiting invitations other threads read.
extension PeerLinks {
    /// The server's answer to a HELLO: key and identity (`PeerHandshake.check`), room,
    /// then the policy. (Another version was declined when the HELLO was decoded.)
    func answerHello(_ h: Hello, from c: PeerConnection) {
        let identity: PeerIdentity, keys: SessionKeys
        do {
            (identity, keys) = try PeerHandshake.check(h, serverNonce: c.nonce, key: c.requireKey ? configuration.key : nil)
        } catch {
            if error.reason == .authenticationFailed { onAuthenticationFailure(c.remoteAddress, error.detail) }
            return decline(c, error.reason, error.detail)
        }
        c.keys = keys
        c.helloIdentity = identity
        c.info = PeerInfo(id: PeerID(identity.instance), name: identity.name, address: c.remoteAddress)
        c.announced = true
        onStateChange(PeerStateChange(peer: c.info, state: .connecting, reason: nil, detail: "invitation from \(c.info)"))
        if let old = connections.first(where: { $0 !== c && $0.phase == .connected && $0.info.id == c.info.id }) {
            closeConnection(old, .replaced, "a new connection from the same peer", bye: true)
        }
        guard connected.withLock({ $0.count }) < configuration.maxPeers else {
            return decline(c, .tooManyPeers, roomFull)
        }
        c.acceptedHello = h
        switch invitationPolicy(c.info) {
        case .accept: admit(c)
        case .decline(let why): decline(c, .declinedByPolicy, why)
        case .ask: awaitAnswer(c)
        }
    }

    /// Sends ACCEPT for the HELLO in `c.acceptedHello` and connects.
    func admit(_ c: PeerConnection) {
        guard let keys = c.keys, let id = c.helloIdentity else { return }
        let me = PeerIdentity(instance: instance, udpPort: datagrams.port, udpToken: c.localToken, name: configuration.displayName)
        let accept = PeerMessage.accept(PeerHandshake.accept(me, keys: keys, keyed: c.requireKey))
        c.acceptFrame = accept
        _ = c.write(accept)
        becomeConnected(c, keys: keys.side(asServer: true), udpPort: id.udpPort, token: id.udpToken)
    }

    func decline(_ c: PeerConnection, _ r: CloseReason, _ d: String) {
        _ = c.write(.decline(reason: r, detail: d))
        closeConnection(c, r, d, bye: false)
    }

    func awaitAnswer(_ c: PeerConnection) {
        c.phase = .awaitingDecision
        c.handshakeFrame = nil   // nothing to resend: the peer resends its HELLO
        c.handshakeDeadline = MonotonicClock.nanos() + UInt64(configuration.invitationTimeout * 1e9)
        notePending()
        onStateChange(PeerStateChange(peer: c.info, state: .connecting, reason: nil,
                                      detail: "invitation from \(c.info) awaits an answer"))
    }

    /// DECLINE's detail when the room is full.
    var roomFull: String { "already \(configuration.maxPeers) player\(configuration.maxPeers == 1 ? "" : "s")" }

    /// The player's answer (`PeerSession.answerInvitation`) to a waiting invitation.
    func answer(_ decision: InvitationDecision, to id: PeerID) {
        guard let c = connections.first(where: { $0.phase == .awaitingDecision && $0.info.id == id }) else { return }
        switch decision {
        case .ask: return
        case .decline(let why): decline(c, .declinedByPolicy, why)
        case .accept:
            if connected.withLock({ $0.count }) >= configuration.maxPeers {
                decline(c, .tooManyPeers, roomFull)
            } else {
                admit(c)
            }
        }
        notePending()
    }

    /// Refreshes the copy other threads read.
    func notePending() {
        let list = connections.filter { $0.phase == .awaitingDecision }.map(\.info)
        pending.withLock { $0 = list }
    }
}
