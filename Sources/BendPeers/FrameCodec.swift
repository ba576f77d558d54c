// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl

/// Encodes and decodes frames: a 2-byte big-endian body length, then the body (a type
/// byte and the payload; integers big-endian, floats IEEE 754 binary32 big-endian,
/// strings a 1- or 2-byte length then UTF-8). Pure: no I/O, no state. Sealing (version 2)
/// is `FrameCodec.seal`/`open` (SealedFrames.swift).
/// - Thread: any.
public enum FrameCodec {
    /// The whole frame for `message`, length prefix included.
    /// Strings longer than their bound are cut at a character boundary.
    public static func encode(_ message: PeerMessage) -> [UInt8] {
        var w = ByteWriter()
        w.u8(message.type.rawValue)
        switch message {
        case let .challenge(version, authRequired, nonce):
            w.u8(version); w.u8(authRequired ? 1 : 0); w.bytes(nonce, lengthBytes: 1)
        case let .hello(h):
            w.u8(h.version); w.u8(h.role.rawValue); w.bytes(h.nonce, lengthBytes: 1); w.bytes(h.proof, lengthBytes: 1)
            w.bytes(h.identity, lengthBytes: 2)
        case let .accept(a):
            w.bytes(a.proof, lengthBytes: 1); w.bytes(a.identity, lengthBytes: 2)
        case let .decline(reason, detail), let .bye(reason, detail):
            w.u8(reason.rawValue); w.string(detail, max: PeerProtocol.maxDetailBytes, lengthBytes: 1)
        case let .touch(id, phase, x, y, timestamp):
            w.u32(id); w.u8(phase.wireCode); w.u32(x.bitPattern); w.u32(y.bitPattern); w.u64(timestamp)
        case let .tilt(value, timestamp):
            w.u32(value.bitPattern); w.u64(timestamp)
        case let .text(s):
            w.string(s, max: PeerProtocol.textFieldBytes, lengthBytes: 2)
        case let .ping(sequence, sent):
            w.u32(sequence); w.u64(sent)
        case let .pong(sequence, echoed, xruns, voices):
            w.u32(sequence); w.u64(echoed); w.u32(xruns); w.u16(voices)
        case let .sealed(bytes):
            w.out += bytes
        }
        let body = w.out
        return [UInt8(body.count >> 8), UInt8(body.count & 0xff)] + body
    }

    /// Decodes one frame body (type byte + payload, without the length prefix).
    /// - Throws: `FrameError` (.oversizedFrame, .malformedFrame) naming the field;
    ///   `.versionMismatch` for a HELLO of another version (its layout is not parsed).
    public static func decode(body: some Collection<UInt8>) throws(FrameError) -> PeerMessage {
        var r = ByteReader(Array(body))
        let typeByte = try r.u8("type")
        let limit = typeByte == FrameType.sealed.rawValue ? PeerProtocol.maxSealedFrameBytes : PeerProtocol.maxFrameBytes
        guard body.count <= limit else {
            throw FrameError(.oversizedFrame, "\(body.count) bytes, at most \(limit)")
        }
        guard let type = FrameType(rawValue: typeByte) else {
            throw FrameError(.malformedFrame, "unknown frame type \(typeByte)")
        }
        r.frame = "\(type)".uppercased()
        let m: PeerMessage
        switch type {
        case .challenge:
            let version = try r.u8("version")
            let auth = try r.u8("auth flag")
            guard auth <= 1 else { throw r.error("auth flag = \(auth), expected 0 or 1") }
            let nonce = try r.bytes("nonce", lengthBytes: 1)
            guard nonce.count == PeerProtocol.nonceBytes else { throw r.error("nonce has \(nonce.count) bytes, expected \(PeerProtocol.nonceBytes)") }
            m = .challenge(version: version, authRequired: auth == 1, nonce: nonce)
        case .hello:
            let version = try r.u8("version")
            guard version == PeerProtocol.version else {
                // Only an instrument reads HELLO: the remote's bendsynth is the one to change.
                throw FrameError(.versionMismatch, "HELLO of peer protocol version \(version); this bendsynth speaks version \(PeerProtocol.version): "
                                 + "upgrade the \(version < PeerProtocol.version ? "remote's" : "instrument's") bendsynth")
            }
            let roleByte = try r.u8("role")
            guard let role = PeerRole(rawValue: roleByte) else { throw r.error("role = \(roleByte), expected 0…2") }
            let nonce = try r.bytes("nonce", lengthBytes: 1)
            guard nonce.count == PeerProtocol.nonceBytes else { throw r.error("nonce has \(nonce.count) bytes, expected \(PeerProtocol.nonceBytes)") }
            let proof = try r.proof()
            m = .hello(Hello(version: version, role: role, nonce: nonce, proof: proof, identity: try r.identity()))
        case .accept:
            let proof = try r.proof()
            m = .accept(Accept(proof: proof, identity: try r.identity()))
        case .decline, .bye:
            let code = try r.u8("reason")
            let reason = CloseReason(rawValue: code) ?? .other
            let detail = try r.string("detail", max: PeerProtocol.maxDetailBytes, lengthBytes: 1)
            m = type == .bye ? .bye(reason: reason, detail: detail) : .decline(reason: reason, detail: detail)
        case .touch:
            let id = try r.u32("touch id")
            let p = try r.u8("phase")
            guard let phase = TouchPhase(wireCode: p) else { throw r.error("phase = \(p), expected 0 (down), 1 (move) or 2 (up)") }
            let x = try r.unit("x"), y = try r.unit("y")
            m = .touch(id: id, phase: phase, x: x, y: y, timestamp: try r.u64("timestamp"))
        case .tilt:
            let v = Float(bitPattern: try r.u32("tilt"))
            guard v.isFinite, (-1...1).contains(v) else { throw r.error("tilt = \(v), expected −1…1") }
            m = .tilt(value: v, timestamp: try r.u64("timestamp"))
        case .text:
            m = .text(try r.string("text", max: PeerProtocol.textFieldBytes, lengthBytes: 2))
        case .ping:
            m = .ping(sequence: try r.u32("sequence"), sent: try r.u64("sent"))
        case .pong:
            m = .pong(sequence: try r.u32("sequence"), echoed: try r.u64("echoed"), xruns: try r.u32("xruns"), voices: try r.u16("voices"))
        case .sealed:
            // At least a sealed type byte and the tag.
            guard r.remaining > AEADKey.tagBytes else { throw r.error("\(r.remaining) bytes, at least \(AEADKey.tagBytes + 1)") }
            m = .sealed(try r.rest())
        }
        guard r.remaining == 0 else { throw r.error("\(r.remaining) bytes after the last field") }
        return m
    }
}

/// Splits a byte stream into frame bodies (TCP, RFCOMM). Feed it what `read` returned.
/// - Thread: one at a time.
public struct FrameStreamDecoder: Sendable {
    private var buffer: [UInt8] = []

    public init() {}

    /// Bytes received but not yet a whole frame.
    public var pending: Int { buffer.count }

    /// Appends `bytes` and returns every whole frame now decoded, in order.
    /// - Throws: `FrameError` at the first bad frame (the stream is then unusable:
    ///   close the peer with the error's reason).
    public mutating func feed(_ bytes: some Collection<UInt8>) throws(FrameError) -> [PeerMessage] {
        buffer.append(contentsOf: bytes)
        var out: [PeerMessage] = []
        var start = 0
        while buffer.count - start >= 2 {
            let length = Int(buffer[start]) << 8 | Int(buffer[start + 1])
            guard length > 0 else { throw FrameError(.malformedFrame, "frame length 0") }
            guard length <= PeerProtocol.maxSealedFrameBytes else {
                throw FrameError(.oversizedFrame, "frame length \(length), at most \(PeerProtocol.maxSealedFrameBytes)")
            }
            guard buffer.count - start >= 2 + length else { break }
            out.append(try FrameCodec.decode(body: buffer[(start + 2)..<(start + 2 + length)]))
            start += 2 + length
        }
        buffer.removeFirst(start)
        return out
    }
}

extension ByteReader {
    /// HELLO's or ACCEPT's proof: empty or 32 bytes.
    mutating func proof() throws(FrameError) -> [UInt8] {
        let p = try bytes("proof", lengthBytes: 1)
        guard p.isEmpty || p.count == PeerProtocol.nonceBytes else { throw error("proof has \(p.count) bytes, expected 0 or 32") }
        return p
    }

    /// HELLO's or ACCEPT's sealed identity.
    mutating func identity() throws(FrameError) -> [UInt8] {
        let b = try bytes("identity", lengthBytes: 2)
        guard b.count > AEADKey.tagBytes, b.count <= PeerProtocol.maxIdentityBytes else {
            throw error("identity has \(b.count) bytes, expected \(AEADKey.tagBytes + 1)…\(PeerProtocol.maxIdentityBytes)")
        }
        return b
    }
}

/// A touch phase on the wire (docs/PROTOCOL.md, TOUCH): 0 down, 1 move, 2 up.
extension TouchPhase {
    var wireCode: UInt8 {
        switch self {
        case .down: 0
        case .move: 1
        case .up: 2
        }
    }

    init?(wireCode: UInt8) {
        switch wireCode {
        case 0: self = .down
        case 1: self = .move
        case 2: self = .up
        default: return nil
        }
    }
}
