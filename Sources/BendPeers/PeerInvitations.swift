/// Invitations the player answers (`InvitationDecision.ask`): on Bluetooth, where no key
/// proves who connects, the instrument's player accepts or declines each newcomer.
extension PeerSession {
    /// The server's answer to a HELLO: version, key, room, then the policy.
    /// - Thread: I/O thread.
    func answerHello(_ h: Hello, from c: PeerConnection) {
        func decline(_ r: CloseReason, _ d: String) { self.decline(c, r, d) }
        guard h.version == PeerProtocol.version else {
            return decline(.versionMismatch, "this instrument speaks version \(PeerProtocol.version), not \(h.version)")
        }
        if requireKey {
            guard !h.auth.isEmpty else { return decline(.authenticationFailed, "this instrument needs the shared key (--key-file)") }
            guard configuration.key?.verify(h.auth, for: c.nonce) == true else { return decline(.authenticationFailed, "wrong key") }
        }
        c.info = PeerInfo(id: PeerID(h.instance), name: h.name, address: c.remoteAddress)
        c.announced = true
        onStateChange(PeerStateChange(peer: c.info, state: .connecting, reason: nil, detail: "invitation from \(c.info)"))
        if let old = connections.first(where: { $0 !== c && $0.phase == .connected && $0.info.id == c.info.id }) {
            closeConnection(old, .replaced, "a new connection from the same peer", bye: true)
        }
        guard connected.withLock({ $0.count }) < configuration.maxPeers else {
            return decline(.tooManyPeers, "already \(configuration.maxPeers) peers")
        }
        c.acceptedHello = h
        switch invitationPolicy(c.info) {
        case .accept: admit(c)
        case .decline(let why): decline(.declinedByPolicy, why)
        case .ask: awaitAnswer(c)
        }
    }

    /// Sends ACCEPT for the HELLO in `c.acceptedHello` and connects. - Thread: I/O thread.
    func admit(_ c: PeerConnection) {
        guard let h = c.acceptedHello else { return }
        let accept = PeerMessage.accept(Accept(instance: instance, udpPort: udpPort, udpToken: c.localToken, name: configuration.displayName))
        c.acceptFrame = accept
        _ = c.write(accept)
        becomeConnected(c, udpPort: h.udpPort, token: h.udpToken)
    }

    func decline(_ c: PeerConnection, _ r: CloseReason, _ d: String) {
        _ = c.write(.decline(reason: r, detail: d))
        closeConnection(c, r, d, bye: false)
    }

    /// Answers an invitation that is waiting for the player (`.ask`): `.accept` admits the
    /// peer (if there is still room), `.decline(reason)` declines it with that reason.
    /// Does nothing when no invitation from `id` waits (answered, timed out, gone).
    /// `.ask` is treated as no answer.
    /// - Thread: any.
    public func answerInvitation(from id: PeerID, _ decision: InvitationDecision) {
        commands.withLock { $0.append(.answer(id, decision)) }
        poke()
    }

    /// The invitations waiting for the player's answer now.
    /// - Thread: any.
    public var pendingInvitations: [PeerInfo] { pending.withLock { $0 } }

    /// - Thread: I/O thread.
    func awaitAnswer(_ c: PeerConnection) {
        c.phase = .awaitingDecision
        c.handshakeFrame = nil   // nothing to resend: the peer resends its HELLO
        c.handshakeDeadline = MonotonicNanos.now() + UInt64(configuration.invitationTimeout * 1e9)
        notePending()
        onStateChange(PeerStateChange(peer: c.info, state: .connecting, reason: nil,
                                      detail: "invitation from \(c.info) awaits an answer"))
    }

    /// - Thread: I/O thread.
    func applyAnswer(_ decision: InvitationDecision, to id: PeerID) {
        guard let c = connections.first(where: { $0.phase == .awaitingDecision && $0.info.id == id }) else { return }
        switch decision {
        case .ask: return
        case .decline(let why): decline(c, .declinedByPolicy, why)
        case .accept:
            if connected.withLock({ $0.count }) >= configuration.maxPeers {
                decline(c, .tooManyPeers, "already \(configuration.maxPeers) peers")
            } else {
                admit(c)
            }
        }
        notePending()
    }

    /// Refreshes the copy other threads read. - Thread: I/O thread.
    func notePending() {
        let list = connections.filter { $0.phase == .awaitingDecision }.map(\.info)
        pending.withLock { $0 = list }
    }
}
