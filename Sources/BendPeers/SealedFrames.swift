// SPDX-License-Identifier: GPL-3.0-or-later
/// Version 2's sealed frames and datagrams, and the identity inside HELLO/ACCEPT
/// (docs/PROTOCOL.md, "Sealing"). Pure: the caller keeps the keys and the counters.
/// - Thread: any.
extension FrameCodec {
    /// The whole SEALED frame carrying `message` (length prefix included): its body
    /// sealed under `key` and the stream counter `counter`; the additional data is the
    /// frame's 3 header bytes (length prefix and type), so they cannot be altered either.
    static func seal(_ message: PeerMessage, key: AEADKey, counter: UInt64) -> [UInt8] {
        let body = Array(encode(message).dropFirst(2))
        let length = 1 + body.count + AEADKey.tagBytes
        let header: [UInt8] = [UInt8(length >> 8), UInt8(length & 0xff), FrameType.sealed.rawValue]
        return header + key.seal(body, counter: counter, ad: header)
    }

    /// The message inside a SEALED frame's payload (`PeerMessage.sealed`), the `counter`-th
    /// from this sender.
    /// - Throws: `FrameError` `.tampered` when it does not authenticate (a changed, replayed,
    ///   dropped or reordered frame, or another key); the inner frame's own errors; a
    ///   handshake or SEALED frame inside is malformed.
    static func open(sealed payload: [UInt8], key: AEADKey, counter: UInt64) throws(FrameError) -> PeerMessage {
        let length = 1 + payload.count
        let header: [UInt8] = [UInt8(length >> 8), UInt8(length & 0xff), FrameType.sealed.rawValue]
        guard let body = key.open(payload, counter: counter, ad: header) else {
            throw FrameError(.tampered, "sealed frame \(counter) does not authenticate (changed on the way, or another key)")
        }
        let m = try decode(body: body)
        guard !m.type.isHandshake, m.type != .sealed else {
            throw FrameError(.malformedFrame, "\(String(describing: m.type).uppercased()) inside a sealed frame")
        }
        return m
    }

    /// A datagram: the receiver's `token` (u32), the sender's datagram `counter` (u64, from
    /// 1), then `message`'s body sealed under `key` and `counter`, with the token and counter
    /// as additional data.
    static func sealDatagram(_ message: PeerMessage, token: UInt32, key: AEADKey, counter: UInt64) -> [UInt8] {
        var w = ByteWriter()
        w.u32(token); w.u64(counter)
        return w.out + key.seal(Array(encode(message).dropFirst(2)), counter: counter, ad: w.out)
    }

    /// What follows a datagram's token: its counter and sealed body.
    struct DatagramParts {
        var counter: UInt64
        var sealed: ArraySlice<UInt8>
    }

    /// Splits what follows the token. Nil when too short to hold a counter and a sealed body.
    static func datagramParts(_ afterToken: ArraySlice<UInt8>) -> DatagramParts? {
        guard afterToken.count > 8 + AEADKey.tagBytes else { return nil }
        let start = afterToken.startIndex
        let counter = afterToken[start..<(start + 8)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return DatagramParts(counter: counter, sealed: afterToken[(start + 8)...])
    }

    /// The message of a datagram whose parts are `parts`, behind `token`; nil when it does
    /// not authenticate or does not decode.
    static func openDatagram(_ parts: DatagramParts, token: UInt32, key: AEADKey) -> PeerMessage? {
        var w = ByteWriter()
        w.u32(token); w.u64(parts.counter)
        guard let body = key.open(parts.sealed, counter: parts.counter, ad: w.out) else { return nil }
        return try? decode(body: body)
    }

    /// An identity sealed for HELLO (`ad` = type, version, role bytes) or ACCEPT (`ad` =
    /// the type byte), under counter 0 of its own key.
    static func sealIdentity(_ id: PeerIdentity, key: AEADKey, ad: [UInt8]) -> [UInt8] {
        var w = ByteWriter()
        w.u64(id.instance); w.u16(id.udpPort); w.u32(id.udpToken)
        w.string(id.name, max: PeerProtocol.maxNameBytes, lengthBytes: 1)
        return key.seal(w.out, counter: 0, ad: ad)
    }

    /// - Throws: `FrameError` `.tampered` when the identity does not authenticate, else
    ///   the field that is wrong.
    static func openIdentity(_ sealed: [UInt8], key: AEADKey, ad: [UInt8], frame: String) throws(FrameError) -> PeerIdentity {
        guard let plain = key.open(sealed, counter: 0, ad: ad) else {
            throw FrameError(.tampered, "\(frame): the identity does not authenticate (changed on the way, or another key)")
        }
        var r = ByteReader(plain)
        r.frame = "\(frame) identity"
        let id = PeerIdentity(instance: try r.u64("instance"), udpPort: try r.u16("udp port"), udpToken: try r.u32("udp token"),
                              name: try r.string("name", max: PeerProtocol.maxNameBytes, lengthBytes: 1))
        guard r.remaining == 0 else { throw r.error("\(r.remaining) bytes after the last field") }
        return id
    }
}
