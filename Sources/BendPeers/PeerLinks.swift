// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem
import CBluetooth  // for Glibc's socket names in this module: see Sources/CBluetooth/shim.h
import Synchronization

/// The session's links to its peers: every connection, its handshake (docs/PROTOCOL.md),
/// invitations, heartbeats and closing, and the table other threads send through.
/// Each stream is watched on the session's event loop; the links hand the owner state
/// changes and messages (the handlers below), in order, on the loop's thread.
///
/// RW-44: a fresh link (RFCOMM above all) may lose the first bytes sent on it, so the
/// side that waits for an answer — the server after CHALLENGE, the client after HELLO —
/// sends its frame again every `handshakeResendInterval` until the answer comes or the
/// handshake timeout closes the connection (its detail says how many times it was sent).
/// The receiving side treats an identical repeat as a repeat, not as out of order.
/// - Thread: the methods marked "I/O thread" on the session's loop thread only (or after
///   the loop ended); the others from any thread.
final class PeerLinks: @unchecked Sendable {
    let configuration: PeerSession.Configuration
    let instance: UInt64
    let datagrams: PeerDatagrams
    private let loop: EventLoop

    /// The owner's handlers (`PeerSession`'s). Set before the I/O thread starts.
    var onStateChange: @Sendable (PeerStateChange) -> Void = { _ in }
    var onReceive: @Sendable (PeerMessage, PeerInfo) -> Void = { _, _ in }
    var invitationPolicy: @Sendable (PeerInfo) -> InvitationDecision = { _ in .accept }
    var status: @Sendable () -> (xruns: UInt32, voices: UInt16) = { (0, 0) }
    /// A HELLO that did not prove the key: its address and why (declined already).
    var onAuthenticationFailure: @Sendable (_ address: String, _ detail: String) -> Void = { _, _ in }

    /// Every connection not yet pruned. I/O thread only.
    var connections: [PeerConnection] = []
    /// Where streams are read into. I/O thread only.
    private var buffer = [UInt8](repeating: 0, count: 4096)
    /// The connected ones by peer, for senders on other threads.
    let connected = Mutex<[PeerID: PeerConnection]>([:])
    /// Invitations waiting for the player (`InvitationDecision.ask`), for other threads.
    let pending = Mutex<[PeerInfo]>([])
    /// When `tick` last ran (monotonic ns; 0: never). I/O thread only.
    private var lastTick: UInt64 = 0

    init(configuration: PeerSession.Configuration, instance: UInt64, datagrams: PeerDatagrams, loop: EventLoop) {
        self.configuration = configuration
        self.instance = instance
        self.datagrams = datagrams
        self.loop = loop
    }

    // MARK: - Any thread

    /// Sends `message` to the selected connected peers. Returns how many it was handed to.
    /// A queued send or a broken stream is the loop's work (`tick`).
    func send(_ message: PeerMessage, to selection: PeerSelection, mode: SendMode) -> Int {
        let targets: [PeerConnection] = connected.withLock { peers in
            switch selection {
            case .all: Array(peers.values)
            case .peers(let ids): ids.compactMap { peers[$0] }
            }
        }
        var sent = 0
        for c in targets {
            if mode == .unreliable, datagrams.current != nil, let (bytes, to) = c.datagram(message) {
                if datagrams.send(bytes, to: to) { sent += 1 }
            } else if mode == .unreliable {
                if c.enqueueUnreliable(message) { sent += 1 }
                loop.execute { [self] in tick() }
            } else if c.write(message) {
                sent += 1
            } else {
                loop.execute { [self] in tick() }
            }
        }
        return sent
    }

    var connectedPeers: [PeerInfo] { connected.withLock { $0.values.map(\.info) } }

    func connection(_ id: PeerID) -> PeerConnection? { connected.withLock { $0[id] } }

    var pendingInvitations: [PeerInfo] { pending.withLock { $0 } }

    // MARK: - I/O thread

    /// An outgoing connection from `PeerSession.connect`: it waits for CHALLENGE.
    func adopt(_ c: PeerConnection) {
        watch(c)
        c.announced = true
        onStateChange(PeerStateChange(peer: c.info, state: .connecting, reason: nil, detail: "connecting to \(c.remoteAddress)"))
    }

    /// An accepted stream: CHALLENGE goes out (demanding the key when `requireKey`).
    func accepted(_ socket: Socket, remote: String, requireKey: Bool) {
        let c = PeerConnection(socket: socket, outgoing: false, remote: remote, handshakeTimeout: configuration.handshakeTimeout)
        c.nonce = randomBytes(PeerProtocol.nonceBytes)
        c.requireKey = requireKey
        watch(c)
        sendHandshake(.challenge(version: PeerProtocol.version, authRequired: requireKey, nonce: c.nonce), on: c)
    }

    /// Keeps `c` and watches its stream on the loop.
    private func watch(_ c: PeerConnection) {
        connections.append(c)
        c.handler = loop.add(fd: c.socket.fd, events: .readable) { [self] events in
            service(c, readable: !events.subtracting(.writable).isEmpty, writable: events.contains(.writable))
        }
    }

    /// `c`'s stream was ready: `writable` flushes its queue, `readable` reads and handles
    /// what came (a bad frame closes it). Then the timers (`tick`), as after every read.
    private func service(_ c: PeerConnection, readable: Bool, writable: Bool) {
        defer { tick() }
        if writable, c.phase != .closed { c.flushQueue() }
        guard readable, c.phase != .closed else { return }
        read(c)
    }

    /// Reads once from `c`'s stream and handles what came (`flags`: MSG_DONTWAIT when
    /// the loop did not say it was readable).
    private func read(_ c: PeerConnection, flags: Int32 = 0) {
        switch c.receive(&buffer, flags: flags) {
        case .closed:
            closeConnection(c, .connectionLost, "closed by peer", bye: false)
        case .failed(let why):
            closeConnection(c, .connectionLost, why, bye: false)
        case .nothing:
            break
        case .bytes(let n):
            c.lastHeard = MonotonicClock.nanos()
            do {
                for m in try c.decoder.feed(buffer[0..<n]) {
                    guard c.phase != .closed else { break }
                    handle(m, from: c)
                }
            } catch where error.reason == .versionMismatch && c.phase == .awaitingHello {
                decline(c, .versionMismatch, error.detail)   // a HELLO of another version: DECLINE in version 1's layout
            } catch {
                closeConnection(c, error.reason, error.detail, bye: true)
            }
        }
    }

    /// One datagram: delivered when its token names a connected peer, it comes from that
    /// peer's address, its counter is fresh (`ReplayWindow`), it authenticates under the
    /// peer's datagram key and holds one TOUCH or TILT; else dropped and counted.
    func datagram(token: UInt32, from: SocketAddress, body: ArraySlice<UInt8>) {
        guard let c = connections.first(where: { $0.localToken == token && $0.phase == .connected }),
              let m = c.openDatagram(token: token, from: from, body: body) else { return }
        onReceive(m, c.info)
    }

    /// Timers: broken streams, handshake and invitation deadlines, resends, heartbeats.
    /// Then watches for writability the streams that have unreliable sends queued, and
    /// forgets closed connections.
    func tick() {
        let now = MonotonicClock.nanos()
        // This program did not run for longer than the heartbeat timeout (stopped with
        // Ctrl-Z or SIGSTOP, or the machine slept): the silence was its own, not its peers'.
        // Each gets a fresh timeout; what they did meanwhile (a BYE, a closed stream) is
        // read next and says who ended what.
        if lastTick != 0, Double(now &- lastTick) > configuration.heartbeatTimeout * 1e9 {
            for c in connections where c.phase == .connected { c.lastHeard = now }
        }
        lastTick = now
        defer {
            connections.removeAll { $0.phase == .closed }
            for c in connections { if let h = c.handler { loop.setEvents(h, c.hasQueued ? [.readable, .writable] : .readable) } }
        }
        for c in connections where c.phase != .closed {
            if c.shared.withLock({ $0.broken }) {
                // What the peer sent before the stream broke is read first: a BYE that
                // came while this side was stopped (SIGSTOP, asleep) says who ended it and
                // why, and the send that failed afterwards must not hide it.
                read(c, flags: Int32(MSG_DONTWAIT))
                guard c.phase != .closed else { continue }
                closeConnection(c, .connectionLost, "sending failed or timed out", bye: false)
                continue
            }
            if c.phase != .connected {
                if c.phase == .awaitingDecision, now > c.handshakeDeadline {
                    decline(c, .declinedByPolicy, "no answer from the player within \(configuration.invitationTimeout) s")
                } else if now > c.handshakeDeadline {
                    let tries = c.handshakeSends > 1 ? " (\(String(describing: c.handshakeFrame?.type ?? .hello).uppercased()) sent \(c.handshakeSends) times)" : ""
                    closeConnection(c, .handshakeTimeout, "no handshake within \(c.handshakeTimeout) s\(tries)", bye: true)
                } else {
                    resendHandshakeIfDue(c, now: now)
                }
                continue
            }
            if Double(now - c.lastHeard) > configuration.heartbeatTimeout * 1e9 {
                closeConnection(c, .heartbeatTimeout, "nothing heard for \(configuration.heartbeatTimeout) s", bye: true)
                continue
            }
            if Double(now - c.lastPing) >= configuration.heartbeatInterval * 1e9 {
                c.lastPing = now
                c.pingSequence &+= 1
                _ = c.write(.ping(sequence: c.pingSequence, sent: now))
            }
        }
    }

    /// Closes every open connection with BYE (`detail` says why) and forgets them.
    func closeAll(_ detail: String) {
        for c in connections where c.phase != .closed { closeConnection(c, .normal, detail, bye: true) }
        connections.removeAll { $0.phase == .closed }
    }

    // MARK: - The handshake (I/O thread)

    private func handle(_ m: PeerMessage, from c: PeerConnection) {
        switch (c.phase, m) {
        case let (.connected, .sealed(payload)):
            guard let key = c.receiveStream else { return closeConnection(c, .outOfOrder, "SEALED frame before the keys", bye: true) }
            let inner: PeerMessage
            do { inner = try FrameCodec.open(sealed: payload, key: key, counter: c.receiveCounter) } catch {
                return closeConnection(c, error.reason, error.detail, bye: true)
            }
            c.receiveCounter += 1
            handleSealed(inner, from: c)
        case let (.awaitingHello, .hello(h)):
            answerHello(h, from: c)
        case let (.awaitingChallenge, .challenge(version, authRequired, nonce)):
            let me = PeerIdentity(instance: instance, udpPort: datagrams.port, udpToken: c.localToken, name: configuration.displayName)
            do {
                let state = try PeerHandshake.answer(version: version, authRequired: authRequired, serverNonce: nonce, key: configuration.key,
                                                     role: configuration.role, identity: me, nonce: randomBytes(PeerProtocol.nonceBytes))
                c.client = state
                c.nonce = nonce
                c.phase = .awaitingAccept
                sendHandshake(.hello(state.hello), on: c)
            } catch {
                closeConnection(c, error.reason, error.detail, bye: true)
            }
        case let (.awaitingAccept, .accept(a)):
            guard let client = c.client else { return closeConnection(c, .outOfOrder, "ACCEPT before HELLO", bye: true) }
            do {
                let id = try PeerHandshake.check(a, client: client)
                c.info = PeerInfo(id: PeerID(id.instance), name: id.name, address: c.remoteAddress)
                c.acceptFrame = m
                becomeConnected(c, keys: client.keys.side(asServer: false), udpPort: id.udpPort, token: id.udpToken)
                c.completion?.finish(.success(c.info))
            } catch {
                closeConnection(c, error.reason, error.detail, bye: true)
            }
        case let (.awaitingAccept, .decline(reason, detail)), let (.awaitingChallenge, .decline(reason, detail)):
            closeConnection(c, reason, detail, bye: false, byPeer: true)
        case let (.awaitingDecision, .hello(h)) where h == c.acceptedHello:
            break   // a resent HELLO while the player decides
        case let (.connected, .hello(h)) where !c.outgoing && h == c.acceptedHello:
            if let a = c.acceptFrame { _ = c.write(a) }   // our ACCEPT was lost: the same answer again
        case (.connected, .accept) where c.outgoing && m == c.acceptFrame:
            break   // an answer to a resent HELLO
        case let (.awaitingAccept, .challenge(_, _, nonce)) where c.outgoing && nonce == c.nonce,
             let (.connected, .challenge(_, _, nonce)) where c.outgoing && nonce == c.nonce:
            break   // a resent CHALLENGE: our HELLO (resent on its own timer) answers it
        case let (phase, .bye(reason, detail)) where phase != .connected:
            // A remote that holds a key refuses an instrument that asks for none (it
            // could not prove the key): the player is told, as of a key refused here, in
            // our words (the remote's are anyone's).
            if reason == .authenticationFailed && !c.outgoing {
                onAuthenticationFailure(c.remoteAddress, "it refused to play: it holds a shared key and this instrument asks for none (give play --listen the key with --key-file)")
            }
            closeConnection(c, reason, detail.isEmpty ? "peer said bye" : detail, bye: false, byPeer: true)
        default:
            let sealed = c.phase == .connected ? " (after the handshake every frame is sealed)" : ""
            closeConnection(c, .outOfOrder, "\(m.type) frame while \(c.phase)\(sealed)", bye: true)
        }
    }

    /// A frame that came sealed (it authenticated, in order).
    private func handleSealed(_ m: PeerMessage, from c: PeerConnection) {
        switch m {
        case .touch, .tilt, .text:
            onReceive(m, c.info)
        case let .ping(sequence, sent):
            let s = status()
            _ = c.write(.pong(sequence: sequence, echoed: sent, xruns: s.xruns, voices: s.voices))
        case let .pong(_, echoed, xruns, voices):
            let rtt = Double(MonotonicClock.nanos() &- echoed) / 1e9
            c.shared.withLock { $0.status.roundTrip = rtt; $0.status.remoteXruns = xruns; $0.status.remoteVoices = voices }
        case let .bye(reason, detail):
            closeConnection(c, reason, detail.isEmpty ? "peer said bye" : detail, bye: false, byPeer: true)
        default:
            closeConnection(c, .outOfOrder, "\(m.type) frame inside a sealed frame", bye: true)
        }
    }

    /// Sends a handshake frame and remembers it for resending.
    private func sendHandshake(_ m: PeerMessage, on c: PeerConnection) {
        c.handshakeFrame = m
        c.handshakeSends = 1
        c.lastHandshakeSend = MonotonicClock.nanos()
        _ = c.write(m)
    }

    private func resendHandshakeIfDue(_ c: PeerConnection, now: UInt64) {
        guard let m = c.handshakeFrame, c.phase == .awaitingHello || c.phase == .awaitingAccept,
              Double(now &- c.lastHandshakeSend) >= configuration.handshakeResendInterval * 1e9 else { return }
        c.lastHandshakeSend = now
        c.handshakeSends += 1
        _ = c.write(m)
    }

    func becomeConnected(_ c: PeerConnection, keys: SessionKeys.Side, udpPort: UInt16, token: UInt32) {
        c.phase = .connected
        c.lastHeard = MonotonicClock.nanos()
        c.receiveStream = keys.receiveStream
        c.receiveDatagrams = keys.receiveDatagrams
        c.shared.withLock { $0.sendStream = keys.sendStream; $0.sendDatagrams = keys.sendDatagrams }
        if udpPort != 0, datagrams.current != nil, let host = c.socket.remoteAddress() {
            c.shared.withLock { $0.udp = host.with(port: udpPort); $0.remoteToken = token }
        }
        connected.withLock { $0[c.info.id] = c }
        onStateChange(PeerStateChange(peer: c.info, state: .connected, reason: nil, detail: ""))
    }

    /// Closes `c` (once), with a BYE when `bye`: a connected session ended on purpose
    /// (reason normal) first writes its last state (`PeerConnection.finish`). `byPeer`:
    /// the peer's BYE or DECLINE ended it.
    func closeConnection(_ c: PeerConnection, _ reason: CloseReason, _ detail: String, bye: Bool, byPeer: Bool = false) {
        guard c.phase != .closed else { return }
        let wasConnected = c.phase == .connected, wasPending = c.phase == .awaitingDecision
        if bye, wasConnected, reason == .normal {
            c.finish(with: .bye(reason: reason, detail: detail))
        } else if bye {
            c.writeNow(.bye(reason: reason, detail: detail))
        }
        if let h = c.handler { loop.remove(h); c.handler = nil }
        c.shut()
        if wasPending { notePending() }
        if wasConnected { connected.withLock { if $0[c.info.id] === c { $0[c.info.id] = nil } } }
        if c.announced {
            onStateChange(PeerStateChange(peer: c.info, state: .disconnected, reason: reason, detail: detail, byPeer: byPeer, wasConnected: wasConnected))
        }
        c.completion?.finish(.failure(reason == .handshakeTimeout ? .timeout(detail) : .declined(reason, detail)))
    }
}
