import CBluetooth  // for Glibc's socket names in this module: see Sources/CBluetooth/shim.h
import Glibc
import Synchronization

/// A bendsynth peer session: listens for and/or makes connections over a transport,
/// runs the handshake (docs/PROTOCOL.md), heartbeats, and hands received messages and
/// state changes to its owner — all on one I/O thread, so events arrive in order.
///
/// Set the handlers before `listen`/`connect`. Call `stop()` when done.
public final class PeerSession: @unchecked Sendable {
    public struct Configuration: Sendable {
        /// Service name (for discovery), "bendsynth".
        public var service = PeerProtocol.service
        /// Name shown to the other side, at most 64 UTF-8 bytes.
        public var displayName: String
        public var role: PeerRole
        /// Most connected peers at once; more are declined (`tooManyPeers`).
        public var maxPeers = 8
        /// Seconds between PINGs.
        public var heartbeatInterval = 0.25
        /// Seconds without any frame after which a peer is disconnected (`heartbeatTimeout`).
        public var heartbeatTimeout = 1.0
        /// Seconds a connection may take to finish its handshake.
        public var handshakeTimeout = 3.0
        /// Seconds the player has to answer an invitation (`InvitationDecision.ask`);
        /// then it is declined. The inviting side should wait as long (its connect timeout).
        public var invitationTimeout = 30.0
        /// Seconds after which an unanswered CHALLENGE or HELLO is sent again (RW-44:
        /// the first bytes on a fresh RFCOMM link can be lost).
        public var handshakeResendInterval = 1.0
        /// The shared key: proves it when connecting, demands it when listening on a
        /// non-loopback address.
        public var key: SharedKey?
        /// Demand the key even on loopback (tests).
        public var alwaysRequireKey = false

        public init(displayName: String, role: PeerRole) { self.displayName = displayName; self.role = role }
    }

    public let configuration: Configuration
    public let transport: PeerTransport
    /// This session's stable instance id (sent in HELLO/ACCEPT).
    public let instance: UInt64

    /// State changes, in order. - Thread: called on the I/O thread.
    public var onStateChange: @Sendable (PeerStateChange) -> Void = { _ in }
    /// TOUCH, TILT and TEXT from a connected peer. - Thread: called on the I/O thread.
    public var onReceive: @Sendable (PeerMessage, PeerInfo) -> Void = { _, _ in }
    /// Decides invitations that passed the version and key checks. - Thread: I/O thread.
    public var invitationPolicy: @Sendable (PeerInfo) -> InvitationDecision = { _ in .accept }
    /// This instrument's figures for PONG. - Thread: called on the I/O thread.
    public var status: @Sendable () -> (xruns: UInt32, voices: UInt16) = { (0, 0) }

    private var listener: Int32 = -1
    var requireKey = false
    var udp: Int32 = -1
    var udpPort: UInt16 = 0
    /// Self-pipe: other threads write a byte to wake the poll loop.
    private let wake: Int32
    private let wakeWriter: Int32
    private var thread: pthread_t?
    let stopping = Atomic<Bool>(false)
    let commands = Mutex<[Command]>([])
    /// Serialises opening the UDP socket and starting the I/O thread.
    let setup = Mutex(())
    /// Discovery (`browse`): the announcement socket, what it heard, a copy for other threads.
    var browser: Int32 = -1
    var tracker = AnnouncementTracker()
    let heardInstruments = Mutex<[PeerAnnouncement]>([])
    /// Invitations waiting for the player (`InvitationDecision.ask`), for other threads.
    let pending = Mutex<[PeerInfo]>([])
    var connections: [PeerConnection] = []
    let connected = Mutex<[PeerID: PeerConnection]>([:])
    enum Command { case adopt(PeerConnection), disconnectAll, answer(PeerID, InvitationDecision), browse(Int32, Double) }

    public init(configuration: Configuration, transport: PeerTransport = TCPTransport()) {
        self.configuration = configuration
        self.transport = transport
        self.instance = randomBytes(8).reduce(0) { $0 << 8 | UInt64($1) } | 1
        var p: [Int32] = [-1, -1]
        if pipe(&p) != 0 { fatalError("pipe: \(String(cString: strerror(errno)))") }
        for fd in p { _ = fcntl(fd, F_SETFL, O_NONBLOCK); _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        self.wake = p[0]
        self.wakeWriter = p[1]
    }

    deinit { stop(); close(wake); close(wakeWriter) }

    /// Starts accepting connections on `address` (transport syntax; TCP: `HOST[:PORT]`,
    /// port 0 picks one). Returns the bound address.
    /// - Throws: `PeerError.system` (bind/listen), `.address`, `.key` when the address
    ///   is not loopback and no key is configured.
    /// - Thread: setup, once.
    @discardableResult
    public func listen(on address: String) throws -> String {
        let (fd, bound) = try transport.listen(on: address)
        requireKey = configuration.alwaysRequireKey || transport.requiresKey(listeningOn: bound)
        if requireKey && configuration.key == nil {
            close(fd)
            throw PeerError.key("listening on \(bound) (not loopback) needs a shared key")
        }
        try setup.withLock { _ in
            listener = fd
            if transport.carriesDatagrams, udp < 0, let ep = try? IPEndpoint.parse(bound) { try openUDP(IPEndpoint(address: ep.address, port: 0)) }
            try startThread()
        }
        return bound
    }

    /// Connects to a listening session and runs the handshake.
    /// - Returns: the peer, once ACCEPT arrived.
    /// - Throws: `PeerError.declined` (with the server's reason), `.timeout`, `.system`.
    /// - Thread: any but the I/O thread (it blocks up to `timeout` seconds).
    public func connect(to address: String, timeout: Double = 3) throws -> PeerInfo {
        guard !stopping.load(ordering: .relaxed) else { throw PeerError.stopped }
        try setup.withLock { _ in
            if transport.carriesDatagrams && udp < 0 { try openUDP(IPEndpoint(address: 0, port: 0)) }
            try startThread()
        }
        let fd = try transport.connect(to: address, timeout: timeout)
        let c = PeerConnection(fd: fd, outgoing: true, remote: address, handshakeTimeout: timeout)
        let completion = ConnectCompletion()
        c.completion = completion
        commands.withLock { $0.append(.adopt(c)) }
        poke()
        return try completion.wait().get()
    }

    /// Sends `message` to connected peers. Returns how many it was handed to.
    /// A peer whose stream fails is closed by the I/O thread (`connectionLost`).
    /// - Thread: any.
    @discardableResult
    public func send(_ message: PeerMessage, to selection: PeerSelection = .all, mode: SendMode = .reliable) -> Int {
        let targets: [PeerConnection] = connected.withLock { peers in
            switch selection {
            case .all: Array(peers.values)
            case .peers(let ids): ids.compactMap { peers[$0] }
            }
        }
        var sent = 0
        for c in targets {
            if mode == .unreliable, udp >= 0, let (ep, token) = c.shared.withLock({ s in s.udp.map { ($0, s.remoteToken) } }) {
                let frame = FrameCodec.encode(message)
                let datagram = [UInt8(token >> 24), UInt8(token >> 16 & 255), UInt8(token >> 8 & 255), UInt8(token & 255)] + frame
                var sa = ep.sockaddr
                let n = withUnsafePointer(to: &sa) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        sendto(udp, datagram, datagram.count, Int32(MSG_DONTWAIT), $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                }
                if n == datagram.count { sent += 1 }
            } else if mode == .unreliable {
                if c.enqueueUnreliable(message) { sent += 1 }
                poke()
            } else if c.write(message) {
                sent += 1
            } else {
                poke()
            }
        }
        return sent
    }

    /// The peers connected now.
    /// - Thread: any.
    public var connectedPeers: [PeerInfo] { connected.withLock { $0.values.map(\.info) } }

    /// Round trip and the remote's status, while `id` is connected.
    /// - Thread: any.
    public func linkStatus(of id: PeerID) -> PeerLinkStatus? {
        connected.withLock { $0[id] }?.shared.withLock { s in
            var status = s.status
            status.replacedUnreliable = s.queue.replaced
            status.droppedUnreliable = s.queue.dropped
            return status
        }
    }

    /// Sends BYE to every peer and closes them; each gets a `.disconnected` event.
    /// - Thread: any.
    public func disconnectFromAllPeers() {
        commands.withLock { $0.append(.disconnectAll) }
        poke()
    }

    /// Closes every peer (BYE), the listener and the I/O thread; waits for it.
    /// - Thread: any but the I/O thread.
    public func stop() {
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        poke()
        if let t = thread { pthread_join(t, nil); thread = nil }
        for c in connections where c.phase != .closed { closeConnection(c, .normal, "session stopped", bye: true) }
        connections.removeAll()
        if listener >= 0 { close(listener); listener = -1 }
        if udp >= 0 { close(udp); udp = -1 }
        if browser >= 0 { close(browser); browser = -1 }
        for case let .browse(fd, _) in commands.withLock({ q -> [Command] in defer { q.removeAll() }; return q }) { close(fd) }
    }

    // MARK: - I/O thread

    func poke() { var one: UInt8 = 1; _ = Glibc.write(wakeWriter, &one, 1) }

    func startThread() throws {
        guard thread == nil else { return }
        let box = Unmanaged.passRetained(self)
        var t = pthread_t()
        let rc = pthread_create(&t, nil, { arg in
            let s = Unmanaged<PeerSession>.fromOpaque(arg!).takeRetainedValue()
            s.run()
            return nil
        }, box.toOpaque())
        guard rc == 0 else { box.release(); errno = rc; throw Sockets.fail("pthread_create(peer session)") }
        thread = t
    }

    private func run() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !stopping.load(ordering: .relaxed) {
            var fds = [pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
            if listener >= 0 { fds.append(pollfd(fd: listener, events: Int16(POLLIN), revents: 0)) }
            if udp >= 0 { fds.append(pollfd(fd: udp, events: Int16(POLLIN), revents: 0)) }
            let browsing = browser >= 0   // a `.browse` command below takes effect next round
            if browsing { fds.append(pollfd(fd: browser, events: Int16(POLLIN), revents: 0)) }
            let open = connections.filter { $0.phase != .closed }
            for c in open { fds.append(pollfd(fd: c.fd, events: Int16(POLLIN) | (c.hasQueued ? Int16(POLLOUT) : 0), revents: 0)) }
            let rc = poll(&fds, nfds_t(fds.count), 50)
            if rc < 0 && errno != EINTR { break }
            if stopping.load(ordering: .relaxed) { break }
            var i = 0
            if fds[i].revents != 0 { var v = [UInt8](repeating: 0, count: 64); while read(wake, &v, 64) > 0 {} }
            for cmd in commands.withLock({ q -> [Command] in defer { q.removeAll() }; return q }) {
                switch cmd {
                case .adopt(let c):
                    connections.append(c)
                    c.announced = true
                    onStateChange(PeerStateChange(peer: c.info, state: .connecting, reason: nil, detail: "connecting to \(c.remoteAddress)"))
                case .disconnectAll:
                    for c in connections where c.phase != .closed { closeConnection(c, .normal, "disconnected by this side", bye: true) }
                case let .answer(id, decision):
                    applyAnswer(decision, to: id)
                case let .browse(fd, expiry):
                    if browser >= 0 { close(fd) } else { browser = fd; tracker.expiry = expiry }
                }
            }
            i += 1
            if listener >= 0 {
                if fds[i].revents != 0, let (fd, remote) = transport.accept(listener) {
                    let c = PeerConnection(fd: fd, outgoing: false, remote: remote, handshakeTimeout: configuration.handshakeTimeout)
                    c.nonce = randomBytes(PeerProtocol.nonceBytes)
                    connections.append(c)
                    sendHandshake(.challenge(version: PeerProtocol.version, authRequired: requireKey, nonce: c.nonce), on: c)
                }
                i += 1
            }
            // Datagrams after the streams: a reliable down read in the same round comes
            // before the unreliable moves that follow it.
            var datagramsReady = false
            if udp >= 0 {
                datagramsReady = fds[i].revents != 0
                i += 1
            }
            var announcementsReady = false
            if browsing {
                announcementsReady = fds[i].revents != 0
                i += 1
            }
            for c in open {
                defer { i += 1 }
                if fds[i].revents & Int16(POLLOUT) != 0, c.phase != .closed { c.flushQueue() }
                guard fds[i].revents & ~Int16(POLLOUT) != 0, c.phase != .closed else { continue }
                let n = buffer.withUnsafeMutableBytes { recv(c.fd, $0.baseAddress, $0.count, 0) }
                if n == 0 { closeConnection(c, .connectionLost, "closed by peer", bye: false); continue }
                if n < 0 {
                    if errno == EINTR || errno == EAGAIN { continue }
                    closeConnection(c, .connectionLost, String(cString: strerror(errno)), bye: false)
                    continue
                }
                c.lastHeard = MonotonicNanos.now()
                do {
                    for m in try c.decoder.feed(buffer[0..<n]) {
                        guard c.phase != .closed else { break }
                        handle(m, from: c)
                    }
                } catch {
                    closeConnection(c, error.reason, error.detail, bye: true)
                }
            }
            if datagramsReady { readDatagrams(&buffer) }
            serviceBrowser(readable: announcementsReady, &buffer)
            tick()
            connections.removeAll { $0.phase == .closed }
        }
    }

    private func tick() {
        let now = MonotonicNanos.now()
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

    func handle(_ m: PeerMessage, from c: PeerConnection) {
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
            sendHandshake(.hello(Hello(role: configuration.role, instance: instance, udpPort: udpPort, udpToken: c.localToken, name: configuration.displayName, auth: auth)), on: c)
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
            let rtt = Double(MonotonicNanos.now() &- echoed) / 1e9
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

    func becomeConnected(_ c: PeerConnection, udpPort: UInt16, token: UInt32) {
        c.phase = .connected
        c.lastHeard = MonotonicNanos.now()
        if udpPort != 0, udp >= 0, let host = Sockets.remoteEndpoint(c.fd) {
            c.shared.withLock { $0.udp = IPEndpoint(address: host.address, port: udpPort); $0.remoteToken = token }
        }
        connected.withLock { $0[c.info.id] = c }
        onStateChange(PeerStateChange(peer: c.info, state: .connected, reason: nil, detail: ""))
    }

    func closeConnection(_ c: PeerConnection, _ reason: CloseReason, _ detail: String, bye: Bool) {
        guard c.phase != .closed else { return }
        if bye { c.writeNow(.bye(reason: reason, detail: detail)) }
        let wasConnected = c.phase == .connected, wasPending = c.phase == .awaitingDecision
        c.shut()
        if wasPending { notePending() }
        if wasConnected { connected.withLock { if $0[c.info.id] === c { $0[c.info.id] = nil } } }
        if c.announced {
            onStateChange(PeerStateChange(peer: c.info, state: .disconnected, reason: reason, detail: detail))
        }
        c.completion?.finish(.failure(reason == .handshakeTimeout ? .timeout(detail) : .declined(reason, detail)))
    }
}
