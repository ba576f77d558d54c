// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem
import CSodium
import Foundation
import Glibc

/// The 32-byte key both ends of a connection share (off loopback always; on loopback when
/// given). Each side proves it to the other in the handshake, and the session's keys are
/// derived from it (`SessionKeys`, docs/PROTOCOL.md "Keys").
/// The key file holds the key as 64 hex digits (a trailing newline is allowed).
public struct SharedKey: Sendable, Equatable {
    public let bytes: [UInt8]

    /// - Throws: `PeerError.key` unless `bytes` has exactly 32 bytes.
    public init(bytes: [UInt8]) throws {
        guard bytes.count == PeerProtocol.nonceBytes else {
            throw PeerError.key("a key has 32 bytes, got \(bytes.count)")
        }
        self.bytes = bytes
    }

    /// A fresh random key.
    public static func generate() -> SharedKey {
        try! SharedKey(bytes: randomBytes(PeerProtocol.nonceBytes))
    }

    /// The key as 64 lowercase hex digits.
    public var hex: String { bytes.map { String(format: "%02x", $0) }.joined() }

    /// Reads a key file (64 hex digits).
    /// - Throws: `PeerError.key` naming the file and what is wrong.
    public static func load(path: String) throws -> SharedKey {
        var info = stat()
        if stat(path, &info) == 0, (info.st_mode & S_IFMT) != S_IFREG {
            let what = (info.st_mode & S_IFMT) == S_IFDIR ? "a folder" : "not a regular file"
            throw PeerError.key("key file '\(path)' is \(what); expected a file of 64 hex digits")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            let reason = access(path, F_OK) == 0 ? "permission denied" : "no such file"
            throw PeerError.key("cannot read key file '\(path)': \(reason)")
        }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        var out: [UInt8] = []
        var chars = Array(text.utf8)
        guard chars.count == 64 else {
            throw PeerError.key("key file '\(path)': expected 64 hex digits, found \(chars.count) characters")
        }
        while !chars.isEmpty {
            guard let b = UInt8(String(decoding: chars.prefix(2), as: UTF8.self), radix: 16) else {
                throw PeerError.key("key file '\(path)': '\(String(decoding: chars.prefix(2), as: UTF8.self))' at offset \(64 - chars.count) is not a hex byte")
            }
            out.append(b)
            chars.removeFirst(2)
        }
        return try SharedKey(bytes: out)
    }

    /// The default key file: `$XDG_CONFIG_HOME/bendsynth/key` (else `~/.config/…`).
    public static var defaultPath: String { ConfigFile.userFolder(program: "bendsynth") + "/key" }

    /// Loads the key at `path`, or creates it (mode 0600, directory 0700) when it does
    /// not exist. Returns the key and whether it was just created (print it once).
    /// - Throws: `PeerError.key` when the file exists but is bad, or cannot be made.
    public static func loadOrCreate(path: String) throws -> (key: SharedKey, created: Bool) {
        if FileManager.default.fileExists(atPath: path) { return (try load(path: path), false) }
        let dir = (path as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw PeerError.key("cannot create '\(dir)': \(error.localizedDescription)")
        }
        let key = generate()
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard fd >= 0 else { throw PeerError.key("cannot create key file '\(path)': \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let line = Array((key.hex + "\n").utf8)
        guard write(fd, line, line.count) == line.count else {
            let e = String(cString: strerror(errno))
            unlink(path)
            throw PeerError.key("cannot write key file '\(path)': \(e)")
        }
        return (key, true)
    }

    /// HMAC-SHA256(key, message): 32 bytes.
    public func authenticator(for message: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(crypto_auth_hmacsha256_BYTES))
        _ = crypto_auth_hmacsha256(&out, message, UInt64(message.count), bytes)
        return out
    }

    /// True when `tag` is HMAC-SHA256(key, message), compared in constant time.
    public func verify(_ tag: [UInt8], for message: [UInt8]) -> Bool {
        guard tag.count == Int(crypto_auth_hmacsha256_BYTES) else { return false }
        return crypto_auth_hmacsha256_verify(tag, message, UInt64(message.count), bytes) == 0
    }
}

/// `n` bytes from libsodium's CSPRNG (getrandom on Linux).
public func randomBytes(_ n: Int) -> [UInt8] {
    _ = sodiumReady
    var b = [UInt8](repeating: 0, count: n)
    randombytes_buf(&b, n)
    return b
}

/// sodium_init once (idempotent, thread-safe after the first call).
private let sodiumReady: Int32 = sodium_init()
