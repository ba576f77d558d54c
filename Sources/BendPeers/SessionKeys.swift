// SPDX-License-Identifier: GPL-3.0-or-later
import CSodium

/// The secrets of one version-2 session (docs/PROTOCOL.md, "Keys"), derived from the
/// shared key K and both handshake nonces (the server's `Ns` from CHALLENGE, the
/// client's `Nc` from HELLO):
///
/// - the proofs: `HMAC-SHA256(K, "bendsynth2 client" ‖ Ns ‖ Nc)` in HELLO and
///   `HMAC-SHA256(K, "bendsynth2 server" ‖ Ns ‖ Nc)` in ACCEPT — each side answers the
///   other's nonce with a value only a holder of K can make;
/// - the session key `M = HMAC-SHA256(K, "bendsynth2 session" ‖ Ns ‖ Nc)` and from it, with
///   libsodium's `crypto_kdf_derive_from_key` (context "bendpeer"), one XChaCha20-Poly1305
///   key per use and direction: 1 client→server stream, 2 server→client stream,
///   3 client→server datagrams, 4 server→client datagrams, 5 HELLO's identity,
///   6 ACCEPT's identity.
///
/// A session without a key (loopback without `--key-file`, Bluetooth) uses 32 zero bytes
/// as K: its frames are sealed the same way, which guards against corruption but keeps
/// nothing secret from whoever sees the nonces (they travel in clear).
/// - Thread: any (a value).
struct SessionKeys: Sendable {
    let clientProof: [UInt8]
    let serverProof: [UInt8]
    let clientStream: AEADKey
    let serverStream: AEADKey
    let clientDatagrams: AEADKey
    let serverDatagrams: AEADKey
    let clientIdentity: AEADKey
    let serverIdentity: AEADKey

    init(key: SharedKey?, serverNonce: [UInt8], clientNonce: [UInt8]) {
        let k = key?.bytes ?? [UInt8](repeating: 0, count: PeerProtocol.nonceBytes)
        func mac(_ label: String) -> [UInt8] {
            let message = Array(label.utf8) + serverNonce + clientNonce
            var out = [UInt8](repeating: 0, count: Int(crypto_auth_hmacsha256_BYTES))
            _ = crypto_auth_hmacsha256(&out, message, UInt64(message.count), k)
            return out
        }
        clientProof = mac("bendsynth2 client")
        serverProof = mac("bendsynth2 server")
        let master = mac("bendsynth2 session")
        func subkey(_ id: UInt64) -> AEADKey {
            var out = [UInt8](repeating: 0, count: AEADKey.keyBytes)
            let context: [CChar] = Array("bendpeer".utf8CString)   // 8 bytes + NUL; kdf reads 8
            _ = crypto_kdf_derive_from_key(&out, out.count, id, context, master)
            return AEADKey(out)
        }
        clientStream = subkey(1)
        serverStream = subkey(2)
        clientDatagrams = subkey(3)
        serverDatagrams = subkey(4)
        clientIdentity = subkey(5)
        serverIdentity = subkey(6)
    }

    /// The keys one side seals with (`send…`) and opens with (`receive…`).
    struct Side: Sendable {
        let sendStream, receiveStream, sendDatagrams, receiveDatagrams: AEADKey
    }

    /// The server's side, or the client's (`asServer` false).
    func side(asServer: Bool) -> Side {
        asServer ? Side(sendStream: serverStream, receiveStream: clientStream, sendDatagrams: serverDatagrams, receiveDatagrams: clientDatagrams)
                 : Side(sendStream: clientStream, receiveStream: serverStream, sendDatagrams: clientDatagrams, receiveDatagrams: serverDatagrams)
    }
}

/// True when `a` and `b` are equal, compared in constant time (libsodium `sodium_memcmp`).
func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    a.count == b.count && (a.isEmpty || sodium_memcmp(a, b, a.count) == 0)
}

/// One XChaCha20-Poly1305 key (libsodium `crypto_aead_xchacha20poly1305_ietf`). The
/// 24-byte nonce is a counter: 8 bytes big-endian, then 16 zero bytes; each key is used
/// for one direction and one use only, so a counter never repeats under a key.
/// - Thread: any (a value).
struct AEADKey: Sendable {
    static let keyBytes = 32
    /// Bytes a sealed message is longer than its plaintext (the Poly1305 tag).
    static let tagBytes = Int(crypto_aead_xchacha20poly1305_ietf_ABYTES)

    let bytes: [UInt8]

    init(_ bytes: [UInt8]) {
        precondition(bytes.count == Self.keyBytes, "an XChaCha20-Poly1305 key has 32 bytes")
        self.bytes = bytes
    }

    private static func nonce(_ counter: UInt64) -> [UInt8] {
        var n = [UInt8](repeating: 0, count: Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES))
        for i in 0..<8 { n[i] = UInt8(truncatingIfNeeded: counter >> UInt64(56 - 8 * i)) }
        return n
    }

    /// `plaintext` sealed under `counter`, authenticating `ad` too: ciphertext ‖ tag.
    func seal(_ plaintext: [UInt8], counter: UInt64, ad: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: plaintext.count + Self.tagBytes)
        var length: UInt64 = 0
        _ = crypto_aead_xchacha20poly1305_ietf_encrypt(&out, &length, plaintext, UInt64(plaintext.count), ad, UInt64(ad.count),
                                                       nil, Self.nonce(counter), bytes)
        return out
    }

    /// The plaintext of `sealed` (ciphertext ‖ tag) under `counter` and `ad`; nil when it
    /// does not authenticate (tampered, another key, another counter) or is too short.
    func open(_ sealed: some Collection<UInt8>, counter: UInt64, ad: [UInt8]) -> [UInt8]? {
        let c = Array(sealed)
        guard c.count >= Self.tagBytes else { return nil }
        var out = [UInt8](repeating: 0, count: max(c.count - Self.tagBytes, 1))
        var length: UInt64 = 0
        let rc = crypto_aead_xchacha20poly1305_ietf_decrypt(&out, &length, nil, c, UInt64(c.count), ad, UInt64(ad.count),
                                                            Self.nonce(counter), bytes)
        guard rc == 0 else { return nil }
        return Array(out.prefix(Int(length)))
    }
}
