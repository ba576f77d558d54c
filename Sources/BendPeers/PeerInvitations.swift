/// Invitations the player answers (`InvitationDecision.ask`): on Bluetooth, where no key
/// proves who connects, the instrument's player accepts or declines each newcomer.
extension PeerSession {
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
