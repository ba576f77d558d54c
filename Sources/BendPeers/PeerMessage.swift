// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl

/// One message of the bendsynth peer protocol (docs/PROTOCOL.md), decoded.
///
/// Coordinates are the pad's: x, y in 0…1; tilt −1…+1. Timestamps are the sender's
/// CLOCK_MONOTONIC in nanoseconds (only differences between them mean anything).
public enum PeerMessage: Sendable, Equatable {
    /// Server → client, first frame on a stream (never sealed, version 1's layout):
    /// protocol version, whether HELLO must prove the shared key, and a fresh 32-byte nonce.
    case challenge(version: UInt8, authRequired: Bool, nonce: [UInt8])
    /// Client → server, answers CHALLENGE: its nonce, its proof of the key, its sealed identity.
    case hello(Hello)
    /// Server → client: the invitation was accepted; the server's proof and sealed identity.
    case accept(Accept)
    /// Either way: the invitation was declined; the stream closes after it.
    case decline(reason: CloseReason, detail: String)
    /// A touch of the sender (ids are the sender's own: a separate namespace per peer).
    case touch(id: UInt32, phase: TouchPhase, x: Float, y: Float, timestamp: UInt64)
    /// The sender's tilt, −1…+1.
    case tilt(value: Float, timestamp: UInt64)
    /// A short UTF-8 message for the other player (shown up to `PeerProtocol.maxTextBytes`;
    /// at most `PeerProtocol.textFieldBytes` on the wire).
    case text(String)
    /// Heartbeat request; `sent` is echoed in PONG for the round-trip time.
    case ping(sequence: UInt32, sent: UInt64)
    /// Heartbeat answer with the answering instrument's status.
    case pong(sequence: UInt32, echoed: UInt64, xruns: UInt32, voices: UInt16)
    /// The sender leaves; the stream closes after it.
    case bye(reason: CloseReason, detail: String)
    /// After the handshake, every frame: another frame's body sealed under the sender's
    /// stream key and counter (`AEADKey`), as it came off the wire (ciphertext ‖ tag).
    case sealed([UInt8])

    /// The frame type byte.
    public var type: FrameType {
        switch self {
        case .challenge: .challenge
        case .hello: .hello
        case .accept: .accept
        case .decline: .decline
        case .touch: .touch
        case .tilt: .tilt
        case .text: .text
        case .ping: .ping
        case .pong: .pong
        case .bye: .bye
        case .sealed: .sealed
        }
    }
}

/// HELLO's fields (version 2).
public struct Hello: Sendable, Equatable {
    /// Read first: a HELLO of another version is declined before the rest is parsed.
    public var version: UInt8
    public var role: PeerRole
    /// The client's fresh 32-byte nonce (the server's proof answers it).
    public var nonce: [UInt8]
    /// Empty, or the client's proof of the shared key (`SessionKeys.clientProof`): 32 bytes.
    public var proof: [UInt8]
    /// The client's `PeerIdentity`, sealed (`SessionKeys.clientIdentity`, counter 0,
    /// additional data: type, version and role bytes).
    public var identity: [UInt8]

    public init(version: UInt8 = PeerProtocol.version, role: PeerRole, nonce: [UInt8], proof: [UInt8], identity: [UInt8]) {
        self.version = version; self.role = role; self.nonce = nonce; self.proof = proof; self.identity = identity
    }
}

/// ACCEPT's fields (the server's side of HELLO, version 2).
public struct Accept: Sendable, Equatable {
    /// Empty (no key), or the server's proof of the shared key (`SessionKeys.serverProof`).
    public var proof: [UInt8]
    /// The server's `PeerIdentity`, sealed (`SessionKeys.serverIdentity`, counter 0,
    /// additional data: the type byte).
    public var identity: [UInt8]

    public init(proof: [UInt8], identity: [UInt8]) { self.proof = proof; self.identity = identity }
}

/// Who a side is, sealed inside HELLO and ACCEPT so only the other end reads it.
public struct PeerIdentity: Sendable, Equatable {
    /// Random per running session, stable across reconnects.
    public var instance: UInt64
    /// UDP port the sender receives datagrams on (0: none).
    public var udpPort: UInt16
    /// Token the receiver puts before every datagram it sends to the sender.
    public var udpToken: UInt32
    /// Display name, UTF-8, at most `PeerProtocol.maxNameBytes`.
    public var name: String

    public init(instance: UInt64, udpPort: UInt16, udpToken: UInt32, name: String) {
        self.instance = instance; self.udpPort = udpPort; self.udpToken = udpToken; self.name = name
    }
}

/// Frame type byte values (docs/PROTOCOL.md).
public enum FrameType: UInt8, Sendable {
    case challenge = 1, hello = 2, accept = 3, decline = 4
    case touch = 16, tilt = 17, text = 18
    case ping = 32, pong = 33
    case bye = 48
    case sealed = 64

    /// CHALLENGE, HELLO, ACCEPT, DECLINE: never sealed (sent before the keys exist, or
    /// repeated as sent).
    var isHandshake: Bool { rawValue <= 4 }
}

/// What a session is: an instrument (`server`), a controller (`client`) or both.
public enum PeerRole: UInt8, Sendable {
    case server = 0, client = 1, peer = 2
}

/// Why a peer was declined or closed; sent in DECLINE and BYE.
public enum CloseReason: UInt8, Sendable, Equatable, CustomStringConvertible {
    case normal = 0
    case malformedFrame = 1
    case oversizedFrame = 2
    case outOfOrder = 3
    case versionMismatch = 4
    case authenticationFailed = 5
    case declinedByPolicy = 6
    case tooManyPeers = 7
    case heartbeatTimeout = 8
    case connectionLost = 9
    case handshakeTimeout = 10
    case replaced = 11
    case tampered = 12
    case other = 255

    public var description: String {
        switch self {
        case .normal: "normal"
        case .malformedFrame: "malformed frame"
        case .oversizedFrame: "oversized frame"
        case .outOfOrder: "frame out of order"
        case .versionMismatch: "protocol version mismatch"
        case .authenticationFailed: "authentication failed"
        case .declinedByPolicy: "declined"
        case .tooManyPeers: "too many players"
        case .heartbeatTimeout: "no heartbeat"
        case .connectionLost: "connection lost"
        case .handshakeTimeout: "handshake timed out"
        case .replaced: "replaced by a new connection from the same peer"
        case .tampered: "frame failed authentication"
        case .other: "other"
        }
    }
}

/// Protocol constants.
public enum PeerProtocol {
    /// Protocol version carried in CHALLENGE and HELLO.
    public static let version: UInt8 = 2
    /// Largest frame body (type byte + payload) in bytes; the length prefix is 2 bytes.
    public static let maxFrameBytes = 512
    /// Largest SEALED frame body: its type byte, a sealed body of at most `maxFrameBytes`
    /// and the 16-byte tag.
    public static let maxSealedFrameBytes = 1 + maxFrameBytes + 16
    /// Largest sealed identity in HELLO/ACCEPT: instance, port, token, a name, the tag.
    public static let maxIdentityBytes = 8 + 2 + 4 + 1 + maxNameBytes + 16
    /// Longest display name in UTF-8 bytes.
    public static let maxNameBytes = 64
    /// Longest TEXT in UTF-8 bytes that a player sees: the remote's text line takes no
    /// more, and an instrument shows no more (a longer one is shown cut, with a note).
    /// The one text limit of the program; the wire allows a longer field
    /// (`textFieldBytes`), so peers that send more are cut on screen, not closed.
    public static let maxTextBytes = 200
    /// The TEXT field's bound on the wire in UTF-8 bytes (docs/PROTOCOL.md, str16 ≤ 280):
    /// the codec cuts longer texts there when encoding and rejects longer ones when decoding.
    public static let textFieldBytes = 280
    /// Longest DECLINE/BYE detail in UTF-8 bytes.
    public static let maxDetailBytes = 200
    /// CHALLENGE/HELLO nonce and proof (HMAC-SHA256) length in bytes.
    public static let nonceBytes = 32
    /// DNS-SD style service name.
    public static let service = "bendsynth"
    /// Default TCP (and UDP) port.
    public static let defaultPort: UInt16 = 47_810
}
