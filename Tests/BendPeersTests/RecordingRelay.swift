// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem
import Foundation
import Glibc
import XCTest

/// A relay between one client and a server on loopback that records every byte.
///
/// The client connects to `address` (127.0.0.2) and, as the protocol says, sends its
/// datagrams to that host at the server's UDP port: the relay binds 127.0.0.2 at that port
/// too. It forwards the stream and the datagrams from 127.0.0.1, so the server sees the
/// client's loopback address on both. The stream is forwarded frame by frame (it splits
/// on the 2-byte length prefix), so a test can change one byte of a chosen frame.
final class RecordingRelay: @unchecked Sendable {
    /// What the client connects to.
    let address: String
    /// The server's own address (to reach it without the relay).
    let serverAddress: String
    private let loop: EventLoop
    private let listener: Socket
    private let udpIn: Socket
    private let udpOut: Socket
    private let serverTCP: SocketAddress
    private let serverUDP: SocketAddress
    private let lock = NSLock()
    private var _clientToServer: [UInt8] = [], _serverToClient: [UInt8] = [], _datagrams: [[UInt8]] = []
    private var held: [[UInt8]] = []
    private var pending: [Int32: [UInt8]] = [:]
    private var pairs: [(client: Socket, server: Socket)] = []
    /// Frames from the client to pass untouched before one is changed (nil: none).
    private var flipAfter: Int?
    /// Datagrams are held back (not forwarded) while true.
    private var holding = false

    /// - Parameters:
    ///   - server: the server's TCP address (`HOST:PORT` on 127.0.0.1).
    ///   - udpPort: the server's datagram port (`PeerSession.datagramPort`).
    init(server: String, udpPort: UInt16) throws {
        serverTCP = try XCTUnwrap(SocketAddress(numeric: "127.0.0.1", port: try XCTUnwrap(UInt16(server.split(separator: ":").last ?? ""))))
        serverUDP = try XCTUnwrap(SocketAddress(numeric: "127.0.0.1", port: udpPort))
        serverAddress = serverTCP.description
        listener = try Socket.listening(on: try XCTUnwrap(SocketAddress(numeric: "127.0.0.2", port: 0)))
        address = try listener.localAddress().description
        udpIn = try Socket.datagram(boundTo: try XCTUnwrap(SocketAddress(numeric: "127.0.0.2", port: udpPort)))
        udpOut = try Socket.datagram(boundTo: try XCTUnwrap(SocketAddress(numeric: "127.0.0.1", port: 0)))
        loop = try EventLoop(name: "test relay")
        _ = loop.add(fd: listener.fd) { [self] _ in acceptOne() }
        _ = loop.add(fd: udpIn.fd) { [self] _ in datagram() }
        try loop.start()
    }

    deinit { stop() }

    private var stopped = false
    func stop() {
        guard !stopped else { return }
        stopped = true
        loop.stop()
        for p in pairs { p.client.close(); p.server.close() }
        listener.close(); udpIn.close(); udpOut.close()
    }

    var clientToServer: [UInt8] { lock.lock(); defer { lock.unlock() }; return _clientToServer }
    var serverToClient: [UInt8] { lock.lock(); defer { lock.unlock() }; return _serverToClient }
    var datagrams: [[UInt8]] { lock.lock(); defer { lock.unlock() }; return _datagrams }

    /// Changes one byte (the 6th: inside a sealed frame's ciphertext) of the client's
    /// frame after the next `frames` ones.
    func flipClientFrame(after frames: Int = 0) { lock.lock(); flipAfter = frames; lock.unlock() }

    /// Holds datagrams back (`true`) or forwards the held ones in `order` (indexes into
    /// the held list; nil: as they came) and goes on forwarding (`false`).
    func hold(_ on: Bool, order: [Int]? = nil) {
        lock.lock()
        holding = on
        let out = on ? [] : (order.map { o in o.map { held[$0] } } ?? held)
        if !on { held = [] }
        lock.unlock()
        for d in out { send(d) }
    }

    var heldCount: Int { lock.lock(); defer { lock.unlock() }; return held.count }

    /// Sends `datagram` to the server again, from the client's address.
    func send(_ datagram: [UInt8]) {
        _ = try? datagram.withUnsafeBytes { try udpOut.send($0, to: serverUDP) }
    }

    private func acceptOne() {
        guard let (client, _) = try? listener.accept() else { return }
        guard let server = try? Socket.connected(to: serverTCP, timeout: 2) else { client.close(); return }
        pairs.append((client, server))
        handlers[client.fd] = loop.add(fd: client.fd) { [self] _ in pump(from: client, to: server, upstream: true) }
        handlers[server.fd] = loop.add(fd: server.fd) { [self] _ in pump(from: server, to: client, upstream: false) }
    }

    private func pump(from: Socket, to: Socket, upstream: Bool) {
        var b = [UInt8](repeating: 0, count: 4096)
        guard let n = try? b.withUnsafeMutableBytes({ try from.receive(into: $0) }), n > 0 else {
            // End of stream: pass it on.
            shutdown(to.fd, Int32(SHUT_WR))
            if let h = handlers.removeValue(forKey: from.fd) { loop.remove(h) }
            return
        }
        var buffer = pending[from.fd, default: []] + b[0..<n]
        var frames: [[UInt8]] = []
        while buffer.count >= 2 {
            let length = Int(buffer[0]) << 8 | Int(buffer[1])
            guard buffer.count >= 2 + length else { break }
            frames.append(Array(buffer[0..<(2 + length)]))
            buffer.removeFirst(2 + length)
        }
        pending[from.fd] = buffer
        for var f in frames {
            lock.lock()
            if upstream { _clientToServer += f } else { _serverToClient += f }
            if upstream, let k = flipAfter {
                if k == 0, f.count > 5 { f[5] ^= 0x01; flipAfter = nil } else { flipAfter = k - 1 }
            }
            lock.unlock()
            _ = try? f.withUnsafeBytes { try to.sendAll($0) }
        }
    }

    private var handlers: [Int32: EventLoop.Handler] = [:]

    private func datagram() {
        var b = [UInt8](repeating: 0, count: 2048)
        while let (n, _) = try? b.withUnsafeMutableBytes({ try udpIn.receiveFrom(into: $0, flags: Int32(MSG_DONTWAIT)) }) {
            let d = Array(b[0..<n])
            lock.lock()
            _datagrams.append(d)
            let hold = holding
            if hold { held.append(d) }
            lock.unlock()
            if !hold { send(d) }
        }
    }
}
