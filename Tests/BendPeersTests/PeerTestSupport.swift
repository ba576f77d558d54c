// SPDX-License-Identifier: GPL-3.0-or-later
@testable import BendPeers
import BendSystem
import Foundation
import Glibc
import XCTest

/// Collects a session's events and messages (thread-safe) and waits for conditions.
final class PeerRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var _states: [PeerStateChange] = []
    private var _messages: [(PeerMessage, PeerInfo)] = []

    var states: [PeerStateChange] { lock.lock(); defer { lock.unlock() }; return _states }
    var messages: [(PeerMessage, PeerInfo)] { lock.lock(); defer { lock.unlock() }; return _messages }

    func attach(_ s: PeerSession) {
        s.onStateChange = { [self] e in lock.lock(); _states.append(e); lock.unlock() }
        s.onReceive = { [self] m, p in lock.lock(); _messages.append((m, p)); lock.unlock() }
    }

    /// The states of one peer, or of every peer.
    func stateNames() -> [String] { states.map(\.state.rawValue) }
}

/// Polls `condition` until it holds or `seconds` pass.
func waitFor(_ seconds: Double = 5, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        usleep(2_000)
    }
    return condition()
}

func makeSession(_ name: String, role: PeerRole, key: SharedKey? = nil, timeout: Double = 1.0) -> (PeerSession, PeerRecorder) {
    var c = PeerSession.Configuration(displayName: name, role: role)
    c.key = key
    c.heartbeatTimeout = timeout
    let s = try! PeerSession(configuration: c)  // no descriptors left: the test cannot go on
    let r = PeerRecorder()
    r.attach(s)
    return (s, r)
}

final class LockedBox<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: T
    init(_ v: T) { value = v }
    func set(_ v: T) { lock.lock(); value = v; lock.unlock() }
    func get() -> T { lock.lock(); defer { lock.unlock() }; return value }
}

/// Runs `client.connect` on another thread; its result is nil until it returns.
func connectInBackground(_ client: PeerSession, _ address: String, timeout: Double) -> LockedBox<Result<PeerInfo, Error>?> {
    let result = LockedBox<Result<PeerInfo, Error>?>(nil)
    Thread { result.set(Result { try client.connect(to: address, timeout: timeout) }) }.start()
    return result
}

/// A hand-driven peer on a plain TCP socket: speaks frames the test chooses. After a
/// handshake (`handshake`, `serve`) its frames are sealed and opened as version 2 says.
final class RawPeer {
    let fd: Int32
    var decoder = FrameStreamDecoder()
    /// After a handshake: the keys and the stream counters.
    var side: SessionKeys.Side?
    var sendCounter: UInt64 = 0, receiveCounter: UInt64 = 0

    init(_ address: String) throws { fd = try TCPTransport().connect(to: address, timeout: 2).fd }
    /// The next connection to `listener`, accepted (the test plays the server).
    init(acceptingOn listener: Socket) throws {
        XCTAssertTrue(readable(listener.fd, 5), "no connection")
        fd = try XCTUnwrap(TCPTransport().accept(listener)).socket.fd
    }
    deinit { close(fd) }

    /// Sends `m`: sealed once the keys exist (handshake frames never).
    func send(_ m: PeerMessage) {
        guard let side, !m.type.isHandshake else { return sendClear(m) }
        sendRaw(FrameCodec.seal(m, key: side.sendStream, counter: sendCounter))
        sendCounter += 1
    }
    func sendClear(_ m: PeerMessage) { sendAll(fd, FrameCodec.encode(m)) }
    func sendRaw(_ bytes: [UInt8]) { sendAll(fd, bytes) }

    /// The next frame (opened when sealed), or nil at end of stream / after `seconds`.
    /// Throws a FrameError.
    func next(_ seconds: Double = 3) throws -> PeerMessage? {
        var pending: [PeerMessage] = []
        let deadline = Date().addingTimeInterval(seconds)
        while pending.isEmpty && Date() < deadline {
            guard readable(fd, 0.05) else { continue }
            var b = [UInt8](repeating: 0, count: 1)   // one byte at a time: never read past a frame
            let n = recv(fd, &b, 1, 0)
            if n <= 0 { return nil }
            pending = try decoder.feed(b)
        }
        guard case .sealed(let payload)? = pending.first, let side else { return pending.first }
        defer { receiveCounter += 1 }
        return try FrameCodec.open(sealed: payload, key: side.receiveStream, counter: receiveCounter)
    }

    /// Client: CHALLENGE → HELLO → ACCEPT (checked). Returns the ACCEPT, or what came instead.
    func handshake(name: String, instance: UInt64, key: SharedKey? = nil) throws -> PeerMessage? {
        guard case .challenge(let version, let authRequired, let nonce)? = try next() else { return nil }
        let state = try PeerHandshake.answer(version: version, authRequired: authRequired, serverNonce: nonce, key: key, role: .client,
                                             identity: PeerIdentity(instance: instance, udpPort: 0, udpToken: 0, name: name),
                                             nonce: randomBytes(PeerProtocol.nonceBytes))
        send(.hello(state.hello))
        let answer = try next()
        if case .accept(let a)? = answer {
            _ = try PeerHandshake.check(a, client: state)
            side = state.keys.side(asServer: false)
        }
        return answer
    }

    /// Server: sends CHALLENGE and reads the HELLO; the caller answers it. Returns the
    /// HELLO and the keys as the server derives them (with `key`).
    func challenge(key: SharedKey?, authRequired: Bool? = nil, version: UInt8 = PeerProtocol.version) throws -> (Hello, SessionKeys)? {
        let nonce = randomBytes(PeerProtocol.nonceBytes)
        send(.challenge(version: version, authRequired: authRequired ?? (key != nil), nonce: nonce))
        guard case .hello(let h)? = try next() else { return nil }
        return (h, SessionKeys(key: key, serverNonce: nonce, clientNonce: h.nonce))
    }

    /// Server: the ACCEPT for a HELLO read by `challenge`; `proof` overrides the server's.
    func accept(_ keys: SessionKeys, name: String, instance: UInt64, keyed: Bool, proof: [UInt8]? = nil) {
        var a = PeerHandshake.accept(PeerIdentity(instance: instance, udpPort: 0, udpToken: 0, name: name), keys: keys, keyed: keyed)
        if let proof { a.proof = proof }
        send(.accept(a))
        side = keys.side(asServer: true)
    }
}

/// True when `fd` becomes readable within `seconds`.
func readable(_ fd: Int32, _ seconds: Double) -> Bool {
    !((try? IOWait.wait(fd: fd, for: .readable, timeout: seconds)) ?? []).isEmpty
}

/// Writes all of `bytes` on the blocking socket `fd`, ignoring failures.
func sendAll(_ fd: Int32, _ bytes: [UInt8]) {
    _ = try? bytes.withUnsafeBytes { try Socket(fd: fd).sendAll($0) }
}
