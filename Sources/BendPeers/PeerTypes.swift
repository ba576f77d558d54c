// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem

/// A peer's stable id: the instance number it sent in HELLO/ACCEPT, random per running
/// program and the same across its reconnects. 0 means "not known yet" (an outgoing
/// connection before ACCEPT).
public struct PeerID: Hashable, Sendable, CustomStringConvertible {
    public let value: UInt64
    public init(_ value: UInt64) { self.value = value }
    public var description: String { String(value, radix: 16) }
}

/// Who a peer is.
public struct PeerInfo: Sendable, Equatable, CustomStringConvertible {
    public var id: PeerID
    /// The display name the peer sent (at most 64 UTF-8 bytes).
    public var name: String
    /// Its transport address, e.g. "10.0.0.2:51234".
    public var address: String

    public init(id: PeerID, name: String, address: String) { self.id = id; self.name = name; self.address = address }

    /// The name as it may be shown on a terminal (`UntrustedText`: the peer chose it),
    /// or the address when it sent none.
    public var shownName: String { name.isEmpty ? address : UntrustedText.escaped(name) }

    public var description: String { name.isEmpty ? address : "'\(UntrustedText.escaped(name))' (\(address))" }
}

/// A peer's state as its owner sees it.
public enum PeerState: String, Sendable {
    /// Seen by discovery, not connected.
    case available
    /// No longer seen by discovery.
    case unavailable
    /// A handshake is under way.
    case connecting
    /// Frames flow.
    case connected
    /// Gone: closed, declined, timed out or lost. Its touches have ended.
    case disconnected
}

/// One state change, delivered in order on the session's I/O thread.
public struct PeerStateChange: Sendable {
    public var peer: PeerInfo
    public var state: PeerState
    /// Why, for `.disconnected`.
    public var reason: CloseReason?
    /// What happened, e.g. "closed by peer", "TOUCH: x = 1.5, expected 0…1".
    public var detail: String
    /// For `.disconnected`: the other side ended it (its BYE or DECLINE; `reason` and
    /// `detail` are its own), rather than this side (a timeout it saw, a bad frame, a stop).
    public var byPeer = false
    /// For `.disconnected`: the peer had been `.connected` (else it was declined or failed
    /// during the handshake: it never played).
    public var wasConnected = false
}

/// How a message is sent.
public enum SendMode: Sendable {
    /// On the stream: arrives, in order, or the peer is closed.
    case reliable
    /// As a UDP datagram when the peer has one (else on the stream); may be lost.
    case unreliable
}

/// Which connected peers a send goes to.
public enum PeerSelection: Sendable {
    case all
    case peers([PeerID])
}

/// The answer to an invitation (an incoming HELLO that passed the key check).
public enum InvitationDecision: Sendable {
    case accept
    case decline(String)
    /// The player decides: the invitation waits (the owner hears `.connecting` with the
    /// detail "… awaits an answer") until `PeerSession.answerInvitation(from:_:)` or the
    /// `invitationTimeout` (then declined).
    case ask
}

/// Link figures for the status line.
public struct PeerLinkStatus: Sendable {
    /// Last heartbeat round trip in seconds.
    public var roundTrip: Double?
    /// The peer's audio underruns and sounding voices, from its last PONG.
    public var remoteXruns: UInt32
    public var remoteVoices: UInt16
    /// UDP datagrams from this peer that were dropped (any reason below, a wrong address,
    /// or a frame that is not TOUCH or TILT).
    public var droppedDatagrams: Int
    /// Of those: replayed, or older than the replay window (`ReplayWindow.width`).
    public var replayedDatagrams = 0
    /// Of those: did not authenticate (changed on the way, or not from the peer).
    public var forgedDatagrams = 0
    /// Unreliable sends queued on a stream-only link: replaced by a newer move of the
    /// same touch (or tilt) before they were written, and dropped because the queue was full.
    public var replacedUnreliable = 0
    public var droppedUnreliable = 0
}
