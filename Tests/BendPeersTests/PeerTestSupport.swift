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

func makeSession(_ name: String, role: PeerRole, key: SharedKey? = nil, requireKey: Bool = false, timeout: Double = 1.0) -> (PeerSession, PeerRecorder) {
    var c = PeerSession.Configuration(displayName: name, role: role)
    c.key = key
    c.alwaysRequireKey = requireKey
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

/// A hand-driven peer on a plain TCP socket: speaks frames the test chooses.
final class RawPeer {
    let fd: Int32
    var decoder = FrameStreamDecoder()

    init(_ address: String) throws { fd = try TCPTransport().connect(to: address, timeout: 2).fd }
    /// The next connection to `listener`, accepted (the test plays the server).
    init(acceptingOn listener: Socket) throws {
        XCTAssertTrue(readable(listener.fd, 5), "no connection")
        fd = try XCTUnwrap(TCPTransport().accept(listener)).socket.fd
    }
    deinit { close(fd) }

    func send(_ m: PeerMessage) { sendAll(fd, FrameCodec.encode(m)) }
    func sendRaw(_ bytes: [UInt8]) { sendAll(fd, bytes) }

    /// The next frame, or nil at end of stream / after `seconds`. Throws a FrameError.
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
        return pending.first
    }

    /// CHALLENGE → HELLO → ACCEPT. Returns the ACCEPT.
    func handshake(name: String, instance: UInt64, key: SharedKey? = nil) throws -> PeerMessage? {
        guard case .challenge(_, let authRequired, let nonce)? = try next() else { return nil }
        let auth = authRequired ? (key?.authenticator(for: nonce) ?? []) : []
        send(.hello(Hello(role: .client, instance: instance, udpPort: 0, udpToken: 0, name: name, auth: auth)))
        return try next()
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
