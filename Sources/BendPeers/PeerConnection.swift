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
    /// Server: the HELLO accepted and the ACCEPT sent, so a resent HELLO gets the same answer.
    var acceptedHello: Hello?
    var acceptFrame: PeerMessage?

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
        let frame = FrameCodec.encode(message)
        return shared.withLock { s in
            guard s.open, !s.broken else { return false }
            // A touch's DOWN or UP goes after none of its older queued moves.
            if case let .touch(id, phase, _, _, _) = message, phase != .move { s.queue.removeMoves(of: id) }
            if sendAll(frame) { return true }
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
                if !sendAll(FrameCodec.encode(m)) { s.broken = true; return }
            }
        }
    }

    /// What one read of the stream gave.
    enum Received { case bytes(Int), closed, failed(String), nothing }

    /// Reads what is pending into `buffer` (the stream was readable).
    /// - Thread: the session's I/O thread.
    func receive(_ buffer: inout [UInt8]) -> Received {
        do {
            guard let n = try buffer.withUnsafeMutableBytes({ b in try socket.receive(into: b) }) else { return .nothing }
            return n == 0 ? .closed : .bytes(n)
        } catch let e as SystemError {
            return .failed(String(cString: strerror(e.code)))
        } catch {
            return .failed("\(error)")
        }
    }

    /// Best effort, never blocks (BYE to a peer that may be gone).
    func writeNow(_ message: PeerMessage) {
        let frame = FrameCodec.encode(message)
        shared.withLock { s in
            guard s.open else { return }
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

/// Hands a `connect(to:)` its result from the I/O thread.
final class ConnectCompletion: @unchecked Sendable {
    private let result = Mutex<Result<PeerInfo, PeerError>?>(nil)
    private let done = Semaphore()

    func finish(_ r: Result<PeerInfo, PeerError>) {
        let first = result.withLock { old -> Bool in
            guard old == nil else { return false }
            old = r
            return true
        }
        if first { done.signal() }
    }

    func wait() -> Result<PeerInfo, PeerError> {
        done.wait()
        return result.withLock { $0! }
    }
}

/// A POSIX semaphore (no Foundation in the I/O path).
final class Semaphore: @unchecked Sendable {
    private let s = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
    init(_ value: UInt32 = 0) { sem_init(s, 0, value) }
    deinit { sem_destroy(s); s.deallocate() }
    func signal() { sem_post(s) }
    func wait() { while sem_wait(s) != 0 && errno == EINTR {} }
}
