// SPDX-License-Identifier: GPL-3.0-or-later
/// The checks and answers of the version-2 handshake (docs/PROTOCOL.md, "Handshake"):
/// CHALLENGE (server nonce) → HELLO (client nonce, client proof, sealed identity) →
/// ACCEPT (server proof, sealed identity). Both sides prove the shared key by answering
/// the other's nonce, and a client that holds a key plays only an instrument that proved
/// it. Pure: the caller (`PeerLinks`) sends and closes.
/// - Thread: any.
enum PeerHandshake {
    /// Why a handshake ends: the reason and detail for DECLINE or BYE.
    struct Refusal: Error, Equatable {
        var reason: CloseReason
        var detail: String
        init(_ reason: CloseReason, _ detail: String) { self.reason = reason; self.detail = detail }
    }

    /// What the client learned from CHALLENGE and sent in HELLO.
    struct ClientState: Sendable {
        var hello: Hello
        var keys: SessionKeys
        /// The server must prove the key in ACCEPT.
        var keyed: Bool
    }

    /// The HELLO that answers a CHALLENGE. `nonce`: the client's fresh nonce.
    /// - Throws: `Refusal` (sent as BYE): another version; a client with a key facing an
    ///   instrument that asks for none (it could not prove the key, so it may be anyone).
    static func answer(version: UInt8, authRequired: Bool, serverNonce: [UInt8], key: SharedKey?, role: PeerRole,
                       identity: PeerIdentity, nonce: [UInt8]) throws(Refusal) -> ClientState {
        guard version == PeerProtocol.version else {
            throw Refusal(.versionMismatch, "the instrument speaks peer protocol version \(version), this bendsynth version \(PeerProtocol.version): "
                          + "upgrade the \(version < PeerProtocol.version ? "instrument's" : "remote's") bendsynth")
        }
        if key != nil && !authRequired {
            throw Refusal(.authenticationFailed, "the instrument asks for no shared key, so it cannot prove it holds yours (--key-file): "
                          + "not played (without --key-file an instrument on loopback can be played without a key)")
        }
        let keyed = authRequired && key != nil
        let keys = SessionKeys(key: keyed ? key : nil, serverNonce: serverNonce, clientNonce: nonce)
        let ad = [FrameType.hello.rawValue, PeerProtocol.version, role.rawValue]
        let hello = Hello(role: role, nonce: nonce, proof: keyed ? keys.clientProof : [],
                          identity: FrameCodec.sealIdentity(identity, key: keys.clientIdentity, ad: ad))
        return ClientState(hello: hello, keys: keys, keyed: keyed)
    }

    /// The server's check of a HELLO: the client's identity and the session keys.
    /// - Throws: `Refusal` (sent as DECLINE): no proof or a wrong one where the key is
    ///   required (`.authenticationFailed`: "this instrument needs …", "wrong key"); a proof
    ///   where none is asked; an identity that does not open or decode.
    static func check(_ h: Hello, serverNonce: [UInt8], key: SharedKey?) throws(Refusal) -> (PeerIdentity, SessionKeys) {
        let keys = SessionKeys(key: key, serverNonce: serverNonce, clientNonce: h.nonce)
        if key != nil {
            guard !h.proof.isEmpty else { throw Refusal(.authenticationFailed, "this instrument needs the shared key (--key-file)") }
            guard constantTimeEqual(h.proof, keys.clientProof) else { throw Refusal(.authenticationFailed, "wrong key") }
        } else if !h.proof.isEmpty {
            throw Refusal(.authenticationFailed, "this instrument has no shared key: play it without --key-file")
        }
        let ad = [FrameType.hello.rawValue, h.version, h.role.rawValue]
        do {
            return (try FrameCodec.openIdentity(h.identity, key: keys.clientIdentity, ad: ad, frame: "HELLO"), keys)
        } catch {
            throw Refusal(error.reason, error.detail)
        }
    }

    /// The server's ACCEPT: its proof (when it has a key) and its sealed identity.
    static func accept(_ identity: PeerIdentity, keys: SessionKeys, keyed: Bool) -> Accept {
        Accept(proof: keyed ? keys.serverProof : [],
               identity: FrameCodec.sealIdentity(identity, key: keys.serverIdentity, ad: [FrameType.accept.rawValue]))
    }

    /// The client's check of ACCEPT: the instrument proved the key (when the client has
    /// one) and its identity opens.
    /// - Throws: `Refusal` (sent as BYE) `.authenticationFailed` when the proof is missing
    ///   or wrong — a different key, or not the instrument the player meant.
    static func check(_ a: Accept, client: ClientState) throws(Refusal) -> PeerIdentity {
        if client.keyed, !constantTimeEqual(a.proof, client.keys.serverProof) {
            throw Refusal(.authenticationFailed, "the instrument did not prove it holds the shared key: a different key, or not the instrument you meant")
        }
        do {
            return try FrameCodec.openIdentity(a.identity, key: client.keys.serverIdentity, ad: [FrameType.accept.rawValue], frame: "ACCEPT")
        } catch {
            throw Refusal(error.reason, error.detail)
        }
    }
}
