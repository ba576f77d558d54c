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
            throw BenchError.setup("soak: web client: \(error)")
        }
    }

    /// Closes the TCP connection without a close frame (a phone that goes away).
    func close() { socket.close() }
}
