// SPDX-License-Identifier: GPL-3.0-or-later
import CSodium
import Foundation
import Glibc

/// The pairing token: 128 random bits as 32 hex digits, carried in the URL's fragment
/// (never sent in a request, so never in a log) and sent by the page as its first
/// message. Compared in constant time.
public struct WebToken: Sendable, Equatable, CustomStringConvertible {
    public let text: String

    /// Bytes a token may hold (URL-fragment safe, no escaping): A-Z a-z 0-9 - _.
    static func isTokenByte(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || b == 0x2d || b == 0x5f
    }

    /// A fresh random token (libsodium's `randombytes_buf`).
    public static func random() -> WebToken {
        _ = sodium_init()
        var bytes = [UInt8](repeating: 0, count: 16)
        randombytes_buf(&bytes, bytes.count)
        return WebToken(unchecked: bytes.map { String(format: "%02x", $0) }.joined())
    }

    init(unchecked text: String) { self.text = text }

    /// A token given as text. - Throws: `WebTokenError` when it has other bytes or a
    /// length outside 16…64.
    public init(_ text: String) throws(WebTokenError) {
        guard (16...WebMessageDecoder.maxTokenLength).contains(text.utf8.count), text.utf8.allSatisfy(WebToken.isTokenByte) else {
            throw WebTokenError("expected 16…\(WebMessageDecoder.maxTokenLength) characters of A-Z a-z 0-9 - _")
        }
        self.text = text
    }

    /// The token in `path` (its first line); when the file does not exist, a new random
    /// token is written there (mode 0600) and returned.
    /// - Throws: `WebTokenError` naming the file and what is wrong.
    public static func load(path: String) throws(WebTokenError) -> WebToken {
        if let data = FileManager.default.contents(atPath: path) {
            let line = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).first ?? ""
            do { return try WebToken(String(line).trimmingCharacters(in: .whitespaces)) } catch {
                throw WebTokenError("token file '\(path)', line 1: \(error)")
            }
        }
        guard access(path, F_OK) != 0 else { throw WebTokenError("token file '\(path)' cannot be read") }
        let token = random()
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw WebTokenError("cannot create token file '\(path)': \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let line = token.text + "\n"
        guard write(fd, line, line.utf8.count) == line.utf8.count else {
            unlink(path)
            throw WebTokenError("cannot write token file '\(path)': \(String(cString: strerror(errno)))")
        }
        return token
    }

    /// True when `offered` is this token: lengths first (a token's length is no secret),
    /// then libsodium's `sodium_memcmp`, whose time does not depend on where they differ.
    public func matches(_ offered: String) -> Bool {
        let a = Array(text.utf8), b = Array(offered.utf8)
        guard a.count == b.count, !a.isEmpty else { return false }
        return sodium_memcmp(a, b, a.count) == 0
    }

    public var description: String { text }
}

public struct WebTokenError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
