import BendSystem
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
    private let configuration: PeerSession.Configuration
    private let instance: UInt64
    private let datagrams: PeerDatagrams
    private let loop: EventLoop

    /// The owner's handlers (`PeerSession`'s). Set before the I/O thread starts.
    var onStateChange: @Sendable (PeerStateChange) -> Void = { _ in }
    var onReceive: @Sendable (PeerMessage, PeerInfo) -> Void = { _, _ in }
    var invitationPolicy: @Sendable (PeerInfo) -> InvitationDecision = { _ in .accept }
    var status: @Sendable () -> (xruns: UInt32, voices: UInt16) = { (0, 0) }

    /// Every connection not yet pruned. I/O thread only.
    private var connections: [PeerConnection] = []
    /// Where streams are read into. I/O thread only.
    private var buffer = [UInt8](repeating: 0, count: 4096)
    /// The connected ones by peer, for senders on other threads.
    private let connected = Mutex<[PeerID: PeerConnection]>([:])
    /// Invitations waiting for the player (`InvitationDecision.ask`), for other threads.
    private let pending = Mutex<[PeerInfo]>([])

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
            if mode == .unreliable, datagrams.current != nil, let (ep, token) = c.shared.withLock({ s in s.udp.map { ($0, s.remoteToken) } }) {
                if datagrams.send(message, token: token, to: ep) { sent += 1 }
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
        switch c.receive(&buffer) {
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
            } catch {
                closeConnection(c, error.reason, error.detail, bye: true)
            }
        }
    }

    /// One datagram: delivered when its token names a connected peer, it comes from that
    /// peer's address and holds exactly one TOUCH or TILT; else counted as dropped.
    func datagram(token: UInt32, from: SocketAddress, body: ArraySlice<UInt8>) {
        guard let c = connections.first(where: { $0.localToken == token && $0.phase == .connected }) else { return }
        var d = FrameStreamDecoder()
        guard c.shared.withLock({ $0.udp?.ipBytes == from.ipBytes }),
              let ms = try? d.feed(body), ms.count == 1, d.pending == 0 else {
            c.shared.withLock { $0.status.droppedDatagrams += 1 }
            return
        }
        c.lastHeard = MonotonicClock.nanos()
        switch ms[0] {
        case .touch, .tilt: onReceive(ms[0], c.info)
        default: c.shared.withLock { $0.status.droppedDatagrams += 1 }
        }
    }

    /// Timers: broken streams, handshake and invitation deadlines, resends, heartbeats.
    /// Then watches for writability the streams that have unreliable sends queued, and
    /// forgets closed connections.
    func tick() {
        let now = MonotonicClock.nanos()
        defer {
            connections.removeAll { $0.phase == .closed }
            for c in connections { if let h = c.handler { loop.setEvents(h, c.hasQueued ? [.readable, .writable] : .readable) } }
        }
        for c in connections where c.phase != .closed {
            if c.shared.withLock({ $0.broken }) {
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
        case let (.awaitingHello, .hello(h)):
            answerHello(h, from: c)
        case let (.awaitingChallenge, .challenge(version, authRequired, nonce)):
            guard version == PeerProtocol.version else {
                return closeConnection(c, .versionMismatch, "server speaks version \(version), this is \(PeerProtocol.version)", bye: true)
            }
            let auth = authRequired ? (configuration.key?.authenticator(for: nonce) ?? []) : []
            c.phase = .awaitingAccept
            c.nonce = nonce
            sendHandshake(.hello(Hello(role: configuration.role, instance: instance, udpPort: datagrams.port, udpToken: c.localToken, name: configuration.displayName, auth: auth)), on: c)
        case let (.awaitingAccept, .accept(a)):
            c.info = PeerInfo(id: PeerID(a.instance), name: a.name, address: c.remoteAddress)
            becomeConnected(c, udpPort: a.udpPort, token: a.udpToken)
            c.completion?.finish(.success(c.info))
        case let (.awaitingAccept, .decline(reason, detail)), let (.awaitingChallenge, .decline(reason, detail)):
            closeConnection(c, reason, detail, bye: false)
        case (.connected, .touch), (.connected, .tilt), (.connected, .text):
            onReceive(m, c.info)
        case let (.connected, .ping(sequence, sent)):
            let s = status()
            _ = c.write(.pong(sequence: sequence, echoed: sent, xruns: s.xruns, voices: s.voices))
        case let (.connected, .pong(_, echoed, xruns, voices)):
            let rtt = Double(MonotonicClock.nanos() &- echoed) / 1e9
            c.shared.withLock { $0.status.roundTrip = rtt; $0.status.remoteXruns = xruns; $0.status.remoteVoices = voices }
        case let (.awaitingDecision, .hello(h)) where h == c.acceptedHello:
            break   // a resent HELLO while the player decides
        case let (.connected, .hello(h)) where !c.outgoing && h == c.acceptedHello:
            if let a = c.acceptFrame { _ = c.write(a) }   // our ACCEPT was lost: the same answer again
        case let (.connected, .accept(a)) where c.outgoing && PeerID(a.instance) == c.info.id:
            break   // an answer to a resent HELLO
        case let (.awaitingAccept, .challenge(_, _, nonce)) where c.outgoing && nonce == c.nonce,
             let (.connected, .challenge(_, _, nonce)) where c.outgoing && nonce == c.nonce:
            break   // a resent CHALLENGE: our HELLO (resent on its own timer) answers it
        case let (_, .bye(reason, detail)):
            closeConnection(c, reason, detail.isEmpty ? "peer said bye" : detail, bye: false)
        default:
            closeConnection(c, .outOfOrder, "\(m.type) frame while \(c.phase)", bye: true)
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

    private func becomeConnected(_ c: PeerConnection, udpPort: UInt16, token: UInt32) {
        c.phase = .connected
        c.lastHeard = MonotonicClock.nanos()
        if udpPort != 0, datagrams.current != nil, let host = c.socket.remoteAddress() {
            c.shared.withLock { $0.udp = host.with(port: udpPort); $0.remoteToken = token }
        }
        connected.withLock { $0[c.info.id] = c }
        onStateChange(PeerStateChange(peer: c.info, state: .connected, reason: nil, detail: ""))
    }

    private func closeConnection(_ c: PeerConnection, _ reason: CloseReason, _ detail: String, bye: Bool) {
        guard c.phase != .closed else { return }
        if bye { c.writeNow(.bye(reason: reason, detail: detail)) }
        let wasConnected = c.phase == .connected, wasPending = c.phase == .awaitingDecision
        if let h = c.handler { loop.remove(h); c.handler = nil }
        c.shut()
        if wasPending { notePending() }
        if wasConnected { connected.withLock { if $0[c.info.id] === c { $0[c.info.id] = nil } } }
        if c.announced {
            onStateChange(PeerStateChange(peer: c.info, state: .disconnected, reason: reason, detail: detail))
        }
        c.completion?.finish(.failure(reason == .handshakeTimeout ? .timeout(detail) : .declined(reason, detail)))
    }

    // MARK: - Invitations (I/O thread)

    /// The server's answer to a HELLO: version, key, room, then the policy.
    private func answerHello(_ h: Hello, from c: PeerConnection) {
        guard h.version == PeerProtocol.version else {
            return decline(c, .versionMismatch, "this instrument speaks version \(PeerProtocol.version), not \(h.version)")
        }
        if c.requireKey {
            guard !h.auth.isEmpty else { return decline(c, .authenticationFailed, "this instrument needs the shared key (--key-file)") }
            guard configuration.key?.verify(h.auth, for: c.nonce) == true else { return decline(c, .authenticationFailed, "wrong key") }
        }
        c.info = PeerInfo(id: PeerID(h.instance), name: h.name, address: c.remoteAddress)
        c.announced = true
        onStateChange(PeerStateChange(peer: c.info, state: .connecting, reason: nil, detail: "invitation from \(c.info)"))
        if let old = connections.first(where: { $0 !== c && $0.phase == .connected && $0.info.id == c.info.id }) {
            closeConnection(old, .replaced, "a new connection from the same peer", bye: true)
        }
        guard connected.withLock({ $0.count }) < configuration.maxPeers else {
            return decline(c, .tooManyPeers, "already \(configuration.maxPeers) peers")
        }
        c.acceptedHello = h
        switch invitationPolicy(c.info) {
        case .accept: admit(c)
        case .decline(let why): decline(c, .declinedByPolicy, why)
        case .ask: awaitAnswer(c)
        }
    }

    /// Sends ACCEPT for the HELLO in `c.acceptedHello` and connects.
    private func admit(_ c: PeerConnection) {
        guard let h = c.acceptedHello else { return }
        let accept = PeerMessage.accept(Accept(instance: instance, udpPort: datagrams.port, udpToken: c.localToken, name: configuration.displayName))
        c.acceptFrame = accept
        _ = c.write(accept)
        becomeConnected(c, udpPort: h.udpPort, token: h.udpToken)
    }

    private func decline(_ c: PeerConnection, _ r: CloseReason, _ d: String) {
        _ = c.write(.decline(reason: r, detail: d))
        closeConnection(c, r, d, bye: false)
    }

    private func awaitAnswer(_ c: PeerConnection) {
        c.phase = .awaitingDecision
        c.handshakeFrame = nil   // nothing to resend: the peer resends its HELLO
        c.handshakeDeadline = MonotonicClock.nanos() + UInt64(configuration.invitationTimeout * 1e9)
        notePending()
        onStateChange(PeerStateChange(peer: c.info, state: .connecting, reason: nil,
                                      detail: "invitation from \(c.info) awaits an answer"))
    }

    /// The player's answer (`PeerSession.answerInvitation`) to a waiting invitation.
    func answer(_ decision: InvitationDecision, to id: PeerID) {
        guard let c = connections.first(where: { $0.phase == .awaitingDecision && $0.info.id == id }) else { return }
        switch decision {
        case .ask: return
        case .decline(let why): decline(c, .declinedByPolicy, why)
        case .accept:
            if connected.withLock({ $0.count }) >= configuration.maxPeers {
                decline(c, .tooManyPeers, "already \(configuration.maxPeers) peers")
            } else {
                admit(c)
            }
        }
        notePending()
    }

    /// Refreshes the copy other threads read.
    private func notePending() {
        let list = connections.filter { $0.phase == .awaitingDecision }.map(\.info)
        pending.withLock { $0 = list }
    }
}
