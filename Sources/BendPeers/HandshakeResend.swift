import Glibc

/// RW-44: a fresh link (RFCOMM above all) may lose the first bytes sent on it, so the
/// side that waits for an answer — the server after CHALLENGE, the client after HELLO —
/// sends its frame again every `handshakeResendInterval` until the answer comes or the
/// handshake timeout closes the connection (its detail says how many times it was sent).
/// The receiving side treats an identical repeat as a repeat, not as out of order.
extension PeerSession {
    /// Sends a handshake frame and remembers it for resending. - Thread: I/O thread.
    func sendHandshake(_ m: PeerMessage, on c: PeerConnection) {
        c.handshakeFrame = m
        c.handshakeSends = 1
        c.lastHandshakeSend = MonotonicNanos.now()
        _ = c.write(m)
    }

    /// - Thread: I/O thread.
    func resendHandshakeIfDue(_ c: PeerConnection, now: UInt64) {
        guard let m = c.handshakeFrame, c.phase == .awaitingHello || c.phase == .awaitingAccept,
              Double(now &- c.lastHandshakeSend) >= configuration.handshakeResendInterval * 1e9 else { return }
        c.lastHandshakeSend = now
        c.handshakeSends += 1
        _ = c.write(m)
    }
}
