// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem
import CBluetooth  // for Glibc's socket names in this module: see Sources/CBluetooth/shim.h
import Glibc
import Synchronization

/// One stream to one peer. The session's I/O thread (`PeerLinks`) owns `phase`, the
/// decoder and the timers; senders on other threads use `write`, which holds the lock
/// that `shut` takes, so a descriptor is never written after it is closed.
final class PeerConnection: @unchecked Sendable {
    enum Phase { case awaitingChallenge, awaitingHello, awaitingDecision, awaitingAccept, connected, closed }

    let outgoing: Bool
    let remoteAddress: String
    var phase: Phase
    var decoder = FrameStreamDecoder()
    var info: PeerInfo
    /// Announced to the owner (a `.connecting` was sent), so a `.disconnected` follows.
    var announced = false
    var nonce: [UInt8] = []
    /// Server: HELLO must prove the shared key (the listener is not loopback, or always).
    var requireKey = false
    var handshakeDeadline: UInt64
    /// Seconds the handshake may take (for messages).
    let handshakeTimeout: Double
    var lastHeard: UInt64
    var lastPing: UInt64 = 0
    var pingSequence: UInt32 = 0
    /// The token this side gave the peer for its datagrams to us.
    let localToken: UInt32
    /// A waiting `connect(to:)`.
    var completion: ConnectCompletion?
    /// RW-44: the handshake frame this side waits for an answer to (server: CHALLENGE,
    /// client: HELLO), resent every `handshakeResendInterval` until answered.
    var handshakeFrame: PeerMessage?
    var lastHandshakeSend: UInt64 = 0
    var handshakeSends = 0
    /// Server: the HELLO accepted and the ACCEPT sent, so a resent HELLO gets the same
    /// answer; client: the ACCEPT received, so a repeat of it is recognised.
    var acceptedHello: Hello?
    var acceptFrame: PeerMessage?
    /// Client: what it sent in HELLO (its keys), until ACCEPT is checked.
    var client: PeerHandshake.ClientState?
    /// Server: the identity and keys from the accepted HELLO.
    var helloIdentity: PeerIdentity?
    var keys: SessionKeys?
    /// Once connected: the keys this side opens the peer's frames and datagrams with, the
    /// next stream counter expected, and the datagram counters taken. I/O thread only.
    var receiveStream: AEADKey?
    var receiveCounter: UInt64 = 0
    var receiveDatagrams: AEADKey?
    var window = ReplayWindow()

    struct Shared {
        /// Open until `shut`.
        var open = true
        /// The peer's datagram address (its IP, the UDP port from HELLO/ACCEPT).
        var udp: SocketAddress?
        var remoteToken: UInt32 = 0
        /// A write failed or timed out (a frame may be half sent): the I/O thread closes it.
        var broken = false
        var status = PeerLinkStatus(roundTrip: nil, remoteXruns: 0, remoteVoices: 0, droppedDatagrams: 0)
        /// Unreliable sends on a stream without datagrams (RFCOMM, or a peer without UDP):
        /// the I/O thread writes them when the stream is writable.
        var queue = BestEffortQueue()
        /// The latest unreliable send of each kind that went as a datagram (the tilt, each
        /// touch's move until its UP): written on the stream before a BYE that ends the
        /// session on purpose, so the last state is not lost with a datagram.
        var latest = BestEffortQueue(capacity: 64)
        /// Once connected: the keys this side seals with and the counters (the next
        /// stream frame's; the last datagram's, from 1).
        var sendStream: AEADKey?
        var sendCounter: UInt64 = 0
        var sendDatagrams: AEADKey?
        var datagramCounter: UInt64 = 0

        /// `m` as it goes on the stream: sealed under the next counter once the keys
        /// exist; handshake frames (and anything before the keys) in clear.
        mutating func frame(_ m: PeerMessage) -> [UInt8] {
            guard let key = sendStream, !m.type.isHandshake else { return FrameCodec.encode(m) }
            defer { sendCounter += 1 }
            return FrameCodec.seal(m, key: key, counter: sendCounter)
        }
    }
    let shared: Mutex<Shared>
    let socket: Socket
    /// The event loop's handler of the stream, while it is watched.
    var handler: EventLoop.Handler?

    init(socket: Socket, outgoing: Bool, remote: String, handshakeTimeout: Double) {
        self.socket = socket
        self.outgoing = outgoing
        self.remoteAddress = remote
        self.phase = outgoing ? .awaitingChallenge : .awaitingHello
        self.info = PeerInfo(id: PeerID(0), name: "", address: remote)
        let now = MonotonicClock.nanos()
        self.handshakeDeadline = now + UInt64(handshakeTimeout * 1e9)
        self.handshakeTimeout = handshakeTimeout
        self.lastHeard = now
        self.localToken = randomBytes(4).reduce(0) { $0 << 8 | UInt32($1) } | 1
        self.shared = Mutex(Shared())
        try? socket.setSendTimeout(seconds: 0.5)
    }

    /// Writes one whole frame on the stream. False when the stream is closed or broken.
    /// - Thread: any.
    func write(_ message: PeerMessage) -> Bool {
        shared.withLock { s in
            guard s.open, !s.broken else { return false }
            // A touch's DOWN or UP goes after none of its older queued moves.
            if case let .touch(id, phase, _, _, _) = message, phase != .move { s.queue.removeMoves(of: id); s.latest.removeMoves(of: id) }
            if sendAll(s.frame(message)) { return true }
            s.broken = true
            return false
        }
    }

    /// Queues an unreliable message (the newest move of a touch replaces a queued one).
    /// False when it was dropped (queue full) or the stream is closed.
    /// - Thread: any.
    func enqueueUnreliable(_ message: PeerMessage) -> Bool {
        shared.withLock { s in
            guard s.open, !s.broken else { return false }
            return s.queue.enqueue(message) != .dropped
        }
    }

    /// True while unreliable messages wait for the stream. - Thread: any.
    var hasQueued: Bool { shared.withLock { !$0.queue.isEmpty } }

    /// Writes the queued unreliable messages, oldest first (the stream was writable).
    /// - Thread: the session's I/O thread.
    func flushQueue() {
        shared.withLock { s in
            guard s.open, !s.broken else { return }
            while let m = s.queue.dequeue() {
                if !sendAll(s.frame(m)) { s.broken = true; return }
            }
        }
    }

    /// The datagram carrying unreliable `message` (sealed under the next datagram counter)
    /// and where it goes; nil when the peer takes no datagrams. Remembers it as the latest.
    /// - Thread: any.
    func datagram(_ message: PeerMessage) -> (bytes: [UInt8], to: SocketAddress)? {
        shared.withLock { s in
            guard s.open, !s.broken, let to = s.udp, let key = s.sendDatagrams else { return nil }
            s.datagramCounter += 1
            s.latest.enqueue(message)
            return (FrameCodec.sealDatagram(message, token: s.remoteToken, key: key, counter: s.datagramCounter), to)
        }
    }

    /// The TOUCH or TILT in a datagram for this connection (`token` is ours), or nil when
    /// it is dropped and counted: from another address, a counter already taken or too old
    /// (`ReplayWindow`), not authentic, or another frame.
    /// - Thread: the session's I/O thread.
    func openDatagram(token: UInt32, from: SocketAddress, body: ArraySlice<UInt8>) -> PeerMessage? {
        guard let key = receiveDatagrams else { return nil }
        func drop(_ count: (inout PeerLinkStatus) -> Void = { _ in }) -> PeerMessage? {
            shared.withLock { count(&$0.status); $0.status.droppedDatagrams += 1 }
            return nil
        }
        guard shared.withLock({ $0.udp?.ipBytes == from.ipBytes }) else { return drop() }
        guard let parts = FrameCodec.datagramParts(body) else { return drop { $0.forgedDatagrams += 1 } }
        guard window.check(parts.counter) == .fresh else { return drop { $0.replayedDatagrams += 1 } }
        guard let m = FrameCodec.openDatagram(parts, token: token, key: key) else { return drop { $0.forgedDatagrams += 1 } }
        window.mark(parts.counter)
        lastHeard = MonotonicClock.nanos()
        switch m {
        case .touch, .tilt: return m
        default: return drop()
        }
    }

    /// Before a BYE that ends the session on purpose: the unreliable sends still queued
    /// and the latest ones that went as datagrams (the tilt, the last move of each touch
    /// still down), on the stream, so the last state arrives before the BYE even when a
    /// datagram is lost or overtaken by it. Then the BYE.
    /// - Thread: the session's I/O thread.
    func finish(with bye: PeerMessage) {
        shared.withLock { s in
            guard s.open, !s.broken else { return }
            while let m = s.queue.dequeue() { if !sendAll(s.frame(m)) { s.broken = true; return } }
            while let m = s.latest.dequeue() { if !sendAll(s.frame(m)) { s.broken = true; return } }
            if !sendAll(s.frame(bye)) { s.broken = true }
        }
    }

    /// What one read of the stream gave.
    enum Received { case bytes(Int), closed, failed(String), nothing }

    /// Reads what is pending into `buffer` (the stream was readable).
    /// - Thread: the session's I/O thread.
    func receive(_ buffer: inout [UInt8], flags: Int32 = 0) -> Received {
        do {
            guard let n = try buffer.withUnsafeMutableBytes({ b in try socket.receive(into: b, flags: flags) }) else { return .nothing }
            return n == 0 ? .closed : .bytes(n)
        } catch let e as SystemError {
            return .failed(String(cString: strerror(e.code)))
        } catch {
            return .failed("\(error)")
        }
    }

    /// Best effort, never blocks (BYE to a peer that may be gone).
    func writeNow(_ message: PeerMessage) {
        shared.withLock { s in
            guard s.open else { return }
            let frame = s.frame(message)
            _ = try? frame.withUnsafeBytes { b in try socket.send(b, flags: Int32(MSG_DONTWAIT)) }
        }
    }

    /// Writes all of `bytes` on the (blocking, 0.5 s send timeout) stream; false on any
    /// failure. Called under `shared`'s lock.
    private func sendAll(_ bytes: [UInt8]) -> Bool {
        do {
            try bytes.withUnsafeBytes { b in try socket.sendAll(b) }
            return true
        } catch {
            return false
        }
    }

    /// Closes the descriptor (once); its loop handler must be removed first.
    /// - Thread: the session's I/O thread.
    func shut() {
        phase = .closed
        shared.withLock { s in
            if s.open { socket.close(); s.open = false }
        }
    }
}

/// Hands a `connect(to:)` its result from the I/O thread: to the caller waiting in
/// `wait()`, or to `then` (the asynchronous connect, on the I/O thread).
final class ConnectCompletion: @unchecked Sendable {
    private let result = Mutex<Result<PeerInfo, PeerError>?>(nil)
    /// The waiting caller's wake-up (nil with `then`: nobody waits).
    private let done: Wakeup?
    private let then: (@Sendable (Result<PeerInfo, PeerError>) -> Void)?

    /// For a caller that will `wait()`. - Throws: `SystemError` (EMFILE: no eventfd).
    init() throws(SystemError) { done = try Wakeup("peer connect"); then = nil }

    init(then: @escaping @Sendable (Result<PeerInfo, PeerError>) -> Void) { done = nil; self.then = then }

    func finish(_ r: Result<PeerInfo, PeerError>) {
        let first = result.withLock { old -> Bool in
            guard old == nil else { return false }
            old = r
            return true
        }
        guard first else { return }
        if let then { then(r) } else { done?.signal() }
    }

    func wait() -> Result<PeerInfo, PeerError> {
        done?.wait()
        return result.withLock { $0! }
    }
}
