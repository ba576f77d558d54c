import BendSystem
import BendSystem
import CBluetooth  // for Glibc's socket names in this module: see Sources/CBluetooth/shim.h
import Glibc
import Synchronization

/// A bendsynth peer session: listens for and/or makes connections over a transport,
/// runs the handshake (docs/PROTOCOL.md), heartbeats, and hands received messages and
/// state changes to its owner — all on one I/O thread, so events arrive in order.
///
/// Three parts with their own state: the links to peers (`PeerLinks`: connections,
/// handshake, invitations, heartbeats), the UDP side (`PeerDatagrams`) and discovery
/// (`PeerDiscovery`). The session owns the I/O thread, the listener and the mailbox
/// other threads use to reach it.
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
    public var onStateChange: @Sendable (PeerStateChange) -> Void {
        get { links.onStateChange } set { links.onStateChange = newValue }
    }
    /// TOUCH, TILT and TEXT from a connected peer. - Thread: called on the I/O thread.
    public var onReceive: @Sendable (PeerMessage, PeerInfo) -> Void {
        get { links.onReceive } set { links.onReceive = newValue }
    }
    /// Decides invitations that passed the version and key checks. - Thread: I/O thread.
    public var invitationPolicy: @Sendable (PeerInfo) -> InvitationDecision {
        get { links.invitationPolicy } set { links.invitationPolicy = newValue }
    }
    /// This instrument's figures for PONG. - Thread: called on the I/O thread.
    public var status: @Sendable () -> (xruns: UInt32, voices: UInt16) {
        get { links.status } set { links.status = newValue }
    }

    private let links: PeerLinks
    private let datagrams = PeerDatagrams()
    private let discovery = PeerDiscovery()
    /// The listening socket (−1: none) and whether its peers must prove the key. Set at
    /// setup before the I/O thread starts, closed after it ended.
    private var listener: Int32 = -1
    private var requireKey = false
    /// Self-pipe: other threads write a byte to wake the poll loop.
    private let wake: Int32
    private let wakeWriter: Int32
    private var thread: pthread_t?
    private let stopping = Atomic<Bool>(false)
    /// Work for the I/O thread from other threads.
    private enum Command { case adopt(PeerConnection), disconnectAll, answer(PeerID, InvitationDecision), browse(Int32, Double) }
    private let commands = Mutex<[Command]>([])
    /// Serialises opening the UDP socket and starting the I/O thread.
    private let setup = Mutex(())

    public init(configuration: Configuration, transport: PeerTransport = TCPTransport()) {
        self.configuration = configuration
        self.transport = transport
        let instance = randomBytes(8).reduce(0) { $0 << 8 | UInt64($1) } | 1
        self.instance = instance
        self.links = PeerLinks(configuration: configuration, instance: instance, datagrams: datagrams)
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
        let requireKey = configuration.alwaysRequireKey || transport.requiresKey(listeningOn: bound)
        if requireKey && configuration.key == nil {
            close(fd)
            throw PeerError.key("listening on \(bound) (not loopback) needs a shared key")
        }
        try setup.withLock { _ in
            listener = fd
            self.requireKey = requireKey
            if transport.carriesDatagrams, let ep = try? IPEndpoint.parse(bound) { try datagrams.open(IPEndpoint(address: ep.address, port: 0)) }
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
            if transport.carriesDatagrams { try datagrams.open(IPEndpoint(address: 0, port: 0)) }
            try startThread()
        }
        let fd = try transport.connect(to: address, timeout: timeout)
        let c = PeerConnection(fd: fd, outgoing: true, remote: address, handshakeTimeout: timeout)
        let completion = ConnectCompletion()
        c.completion = completion
        post(.adopt(c))
        return try completion.wait().get()
    }

    /// Sends `message` to connected peers. Returns how many it was handed to.
    /// A peer whose stream fails is closed by the I/O thread (`connectionLost`).
    /// - Thread: any.
    @discardableResult
    public func send(_ message: PeerMessage, to selection: PeerSelection = .all, mode: SendMode = .reliable) -> Int {
        links.send(message, to: selection, mode: mode, wake: poke)
    }

    /// The peers connected now.
    /// - Thread: any.
    public var connectedPeers: [PeerInfo] { links.connectedPeers }

    /// Round trip and the remote's status, while `id` is connected.
    /// - Thread: any.
    public func linkStatus(of id: PeerID) -> PeerLinkStatus? {
        links.connection(id)?.shared.withLock { s in
            var status = s.status
            status.replacedUnreliable = s.queue.replaced
            status.droppedUnreliable = s.queue.dropped
            return status
        }
    }

    /// The connection to `id` while it is connected (tests). - Thread: any.
    func connection(_ id: PeerID) -> PeerConnection? { links.connection(id) }

    /// Sends BYE to every peer and closes them; each gets a `.disconnected` event.
    /// - Thread: any.
    public func disconnectFromAllPeers() { post(.disconnectAll) }

    /// Answers an invitation that is waiting for the player (`.ask`): `.accept` admits the
    /// peer (if there is still room), `.decline(reason)` declines it with that reason.
    /// Does nothing when no invitation from `id` waits (answered, timed out, gone).
    /// `.ask` is treated as no answer.
    /// - Thread: any.
    public func answerInvitation(from id: PeerID, _ decision: InvitationDecision) { post(.answer(id, decision)) }

    /// The invitations waiting for the player's answer now.
    /// - Thread: any.
    public var pendingInvitations: [PeerInfo] { links.pendingInvitations }

    /// Starts hearing instruments' UDP announcements on `port`: each newly heard one
    /// reaches `onStateChange` as `.available`, each silent for `expiry` seconds as
    /// `.unavailable`, in order with the session's other events (same I/O thread).
    /// - Throws: `PeerError.system` when the port cannot be bound.
    /// - Thread: setup, once.
    public func browse(port: UInt16 = PeerAnnouncement.port, expiry: Double = 3.5) throws {
        guard !stopping.load(ordering: .relaxed) else { throw PeerError.stopped }
        let fd = try openAnnouncementListener(port: port)
        do { try setup.withLock { _ in try startThread() } } catch { close(fd); throw error }
        post(.browse(fd, expiry))   // the I/O thread hands it to discovery
    }

    /// The instruments heard now (after `browse`).
    /// - Thread: any.
    public var availableInstruments: [PeerAnnouncement] { discovery.available }

    /// Closes every peer (BYE), the listener and the I/O thread; waits for it.
    /// - Thread: any but the I/O thread.
    public func stop() {
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        poke()
        if let t = thread { pthread_join(t, nil); thread = nil }
        links.closeAll("session stopped")
        if listener >= 0 { close(listener); listener = -1 }
        datagrams.close()
        discovery.close()
        for case let .browse(fd, _) in takeCommands() { close(fd) }
    }

    // MARK: - I/O thread

    private func post(_ command: Command) {
        commands.withLock { $0.append(command) }
        poke()
    }

    private func takeCommands() -> [Command] { commands.withLock { q in defer { q.removeAll() }; return q } }

    private func poke() { var one: UInt8 = 1; _ = Glibc.write(wakeWriter, &one, 1) }

    private func startThread() throws {
        guard thread == nil else { return }
        let box = Unmanaged.passRetained(self)
        var t = pthread_t()
        let rc = pthread_create(&t, nil, { arg in
            let s = Unmanaged<PeerSession>.fromOpaque(arg!).takeRetainedValue()
            s.run()
            return nil
        }, box.toOpaque())
        guard rc == 0 else { box.release(); throw Sockets.fail("pthread_create(peer session)", code: rc) }
        thread = t
    }

    private func run() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !stopping.load(ordering: .relaxed) {
            var fds = [pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
            if listener >= 0 { fds.append(pollfd(fd: listener, events: Int16(POLLIN), revents: 0)) }
            let udp = datagrams.descriptor
            if udp >= 0 { fds.append(pollfd(fd: udp, events: Int16(POLLIN), revents: 0)) }
            let browser = discovery.descriptor   // a `.browse` command below takes effect next round
            if browser >= 0 { fds.append(pollfd(fd: browser, events: Int16(POLLIN), revents: 0)) }
            let open = links.open
            for c in open { fds.append(pollfd(fd: c.fd, events: Int16(POLLIN) | (c.hasQueued ? Int16(POLLOUT) : 0), revents: 0)) }
            let rc = poll(&fds, nfds_t(fds.count), 50)
            if rc < 0 && errno != EINTR { break }
            if stopping.load(ordering: .relaxed) { break }
            var i = 0
            if fds[i].revents != 0 { var v = [UInt8](repeating: 0, count: 64); while read(wake, &v, 64) > 0 {} }
            for command in takeCommands() {
                switch command {
                case .adopt(let c): links.adopt(c)
                case .disconnectAll: links.closeAll("disconnected by this side")
                case let .answer(id, decision): links.answer(decision, to: id)
                case let .browse(fd, expiry): if !discovery.adopt(fd, expiry: expiry) { close(fd) }
                }
            }
            i += 1
            if listener >= 0 {
                if fds[i].revents != 0, let (fd, remote) = transport.accept(listener) {
                    links.accepted(fd: fd, remote: remote, requireKey: requireKey)
                }
                i += 1
            }
            // Datagrams after the streams: a reliable down read in the same round comes
            // before the unreliable moves that follow it.
            var datagramsReady = false
            if udp >= 0 { datagramsReady = fds[i].revents != 0; i += 1 }
            var announcementsReady = false
            if browser >= 0 { announcementsReady = fds[i].revents != 0; i += 1 }
            for c in open {
                let revents = fds[i].revents
                i += 1
                links.service(c, readable: revents & ~Int16(POLLOUT) != 0, writable: revents & Int16(POLLOUT) != 0, &buffer)
            }
            if datagramsReady { datagrams.receive(&buffer) { links.datagram(token: $0, from: $1, body: $2) } }
            for change in discovery.service(readable: announcementsReady, &buffer) { links.onStateChange(change) }
            links.tick()
        }
    }
}
