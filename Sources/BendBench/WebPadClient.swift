// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem
import Foundation

/// A minimal WebSocket client that plays the web pad as the page does (docs/WEB.md):
/// the upgrade to the `bendsynth` subprotocol on /ws, then masked text frames — `h
/// TOKEN`, then touch lines. It never reads after the upgrade (the instrument's replies
/// are small; the socket's buffer holds them). For the soak's load only.
/// - Thread: one at a time.
final class WebPadClient: @unchecked Sendable {
    private let socket: Socket
    private var mask: UInt32 = 0x1234_5678

    /// Connects, upgrades and pairs with `token`. - Throws: `BenchError.setup`.
    init(port: UInt16, token: String) throws {
        do {
            socket = try Socket.connected(to: SocketAddress(numeric: "127.0.0.1", port: port)!, timeout: 3)
            try socket.setNonBlocking(false)
            try socket.setNoDelay()
        } catch { throw BenchError.setup("soak: web client: \(error)") }
        let request = "GET /ws HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: bendsynth\r\n\r\n"
        do {
            try Array(request.utf8).withUnsafeBytes { try socket.sendAll($0) }
            var reply: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 512)
            while !reply.suffix(4).elementsEqual([13, 10, 13, 10]) {
                guard let n = try chunk.withUnsafeMutableBytes({ try socket.receive(into: UnsafeMutableRawBufferPointer(rebasing: $0[0..<1])) }), n > 0 else {
                    throw BenchError.setup("soak: web client: the server closed during the upgrade")
                }
                reply.append(chunk[0])
            }
            guard String(decoding: reply, as: UTF8.self).hasPrefix("HTTP/1.1 101") else {
                throw BenchError.setup("soak: web client: upgrade refused: \(String(decoding: reply.prefix(80), as: UTF8.self))")
            }
        } catch let e as BenchError { socket.close(); throw e } catch { socket.close(); throw BenchError.setup("soak: web client: \(error)") }
        try send("h \(token)")
    }

    /// Sends one text message (lines joined by `\n`). - Throws: `BenchError.setup` when the
    /// server closed the connection.
    func send(_ text: String) throws {
        let payload = Array(text.utf8)
        var frame: [UInt8] = [0x81]   // FIN, text
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else {
            frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xff)]
        }
        mask = mask &* 1_664_525 &+ 1_013_904_223
        let key = withUnsafeBytes(of: mask.bigEndian) { Array($0) }
        frame += key
        for (i, b) in payload.enumerated() { frame.append(b ^ key[i & 3]) }
        do { try frame.withUnsafeBytes { try socket.sendAll($0) } } catch {
            throw BenchError.setup("soak: web client: \(error)" + (closeReason().map { "; the server had closed it: \($0)" } ?? ""))
        }
    }

    /// The close frame the server left in the socket's buffer (its code and reason), read
    /// without waiting once a send has failed; nil if there is none.
    private func closeReason() -> String? {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while let n = try? chunk.withUnsafeMutableBytes({ try socket.receive(into: $0, flags: Int32(MSG_DONTWAIT)) }), n > 0 {
            bytes += chunk[0..<n]
        }
        var i = 0
        while i + 2 <= bytes.count {   // server frames: unmasked; lengths up to 65535 here
            let opcode = bytes[i] & 0x0f
            var length = Int(bytes[i + 1] & 0x7f), start = i + 2
            if length == 126, i + 4 <= bytes.count { length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3]); start = i + 4 }
            guard start + length <= bytes.count else { break }
            if opcode == 8, length >= 2 {
                let code = Int(bytes[start]) << 8 | Int(bytes[start + 1])
                return "\(code) \(String(decoding: bytes[(start + 2)..<(start + length)], as: UTF8.self))"
            }
            i = start + length
        }
        return nil
    }

    /// Closes the TCP connection without a close frame (a phone that goes away).
    func close() { socket.close() }
}
