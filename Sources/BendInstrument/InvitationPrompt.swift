// SPDX-License-Identifier: GPL-3.0-or-later
import BendPeers
import Synchronization

/// Bluetooth invitations the player answers at the pad (`play --bluetooth` with the
/// terminal): the status line asks "… asks to play: y accepts, n declines"; the next y or
/// n key answers the oldest waiting invitation (those keys do not reach the pad while
/// one waits). Unanswered invitations are declined by the session after 30 s.
public final class InvitationPrompt: InvitationAsker, @unchecked Sendable {
    private let waiting = Mutex<[PeerInfo]>([])
    public init() {}

    private let answer = Mutex<(@Sendable (PeerID, InvitationDecision) -> Void)?>(nil)

    /// Where answers go (the session's `answerInvitation`). - Thread: setup.
    public func connect(_ answer: @escaping @Sendable (PeerID, InvitationDecision) -> Void) { self.answer.withLock { $0 = answer } }

    /// An invitation now waits for the player. - Thread: any (the session's I/O thread).
    public func offer(_ peer: PeerInfo) {
        // Only on the status line (`line`): stderr would garble the pad while it is drawn.
        waiting.withLock { w in if !w.contains(where: { $0.id == peer.id }) { w.append(peer) } }
    }

    /// The invitation was settled elsewhere (connected, declined, gone). - Thread: any.
    public func withdraw(_ id: PeerID) { waiting.withLock { $0.removeAll { $0.id == id } } }

    /// The question for the status line, or nil when nothing waits. - Thread: any.
    public var line: String? {
        waiting.withLock { $0.first }.map { "Bluetooth: \($0) asks to play: y accepts, n declines" }
    }

    /// One key byte from the terminal: true when it answered an invitation (consumed).
    /// - Thread: the keyboard reader.
    public func key(_ byte: UInt8) -> Bool {
        let yes = byte == UInt8(ascii: "y") || byte == UInt8(ascii: "Y")
        let no = byte == UInt8(ascii: "n") || byte == UInt8(ascii: "N")
        guard yes || no, let peer = waiting.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { return false }
        answer.withLock { $0 }?(peer.id, yes ? .accept : .decline("the instrument's player declined"))
        return true
    }
}
