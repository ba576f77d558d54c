// SPDX-License-Identifier: GPL-3.0-or-later
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
/// (`PeerDiscovery`). The session owns the I/O thread — an `EventLoop` that watches every
/// socket and runs the timers; other threads reach it with `execute` — and the listener.
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
        /// The shared key. Listening, it is demanded from every client (on loopback too;
        /// off loopback a listener must have one). Connecting, this side proves it and
        /// plays only an instrument that proves it too (docs/PROTOCOL.md, "Handshake").
        public var key: SharedKey?

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
    /// A client that did not prove the key (declined already): its address and what was
    /// wrong ("wrong key", "this instrument needs the shared key (--key-file)").
    /// - Thread: called on the I/O thread.
    public var onAuthenticationFailure: @Sendable (_ address: String, _ detail: String) -> Void {
        get { links.onAuthenticationFailure } set { links.onAuthenticationFailure = newValue }
    }
    /// This instrument's figures for PONG. - Thread: called on the I/O thread.
    public var status: @Sendable () -> (xruns: UInt32, voices: UInt16) {
        get { links.status } set { links.status = newValue }
    }

    private let links: PeerLinks
    private let datagrams = PeerDatagrams()
    private let discovery = PeerDiscovery()
    /// The I/O thread: every stream, the listener, the datagram socket, discovery and the
    /// timers are watched here, one at a time.
    private let loop: EventLoop
    /// What the session itself has on the loop (the links and discovery keep their own).
    private struct Watched {
        var started = false
        var listener: (socket: Socket, handler: EventLoop.Handler)?
        var datagrams: EventLoop.Handler?
        var timer: EventLoop.Timer?
    }
    /// Under this lock: starting the loop, opening the UDP socket, adding the listener,
    /// handing a connection or discovery to the loop; `stop` takes it before it stops
    /// the loop, so none of these is half done then.
    private let watched = Mutex(Watched())
    private let stopping = Atomic<Bool>(false)

    /// How often the links' timers (heartbeats, handshake deadlines) are looked at, in ns.
    static let tickInterval: UInt64 = 50_000_000

    /// - Throws: `PeerError.system` when the I/O thread's loop cannot be made (no file
    ///   descriptors left).
    public init(configuration: Configuration, transport: PeerTransport = TCPTransport()) throws(PeerError) {
        self.configuration = configuration
        self.transport = transport
        let instance = randomBytes(8).reduce(0) { $0 << 8 | UInt64($1) } | 1
        self.instance = instance
        do { loop = try EventLoop(name: "bendsynth peers") } catch { throw .system(error) }
        self.links = PeerLinks(configuration: configuration, instance: instance, datagrams: datagrams, loop: loop)
    }

    deinit { stop() }

    /// Starts accepting connections on `address` (transport syntax; TCP: `HOST[:PORT]`,
    /// port 0 picks one). Returns the bound address.
    /// Every client must prove the key when one is configured (on loopback too).
    /// - Throws: `PeerError.system` (bind/listen), `.address`, `.key` when the address
    ///   is not loopback and no key is configured.
    /// - Thread: setup, once.
    @discardableResult
    public func listen(on address: String) throws -> String {
        let (socket, bound) = try transport.listen(on: address)
        let requireKey = configuration.key != nil || transport.requiresKey(listeningOn: bound)
        if requireKey && configuration.key == nil {
            socket.close()
            throw PeerError.key("listening on \(bound) (not loopback) needs a shared key")
        }
        do {
            do { try socket.setNonBlocking(true) } catch { throw PeerError.system(error) }   // an accept never blocks the loop
            try start { w throws(PeerError) in
                if transport.carriesDatagrams, let ep = try? PeerAddress.parse(bound) { try openDatagrams(ep.with(port: 0), &w) }
                let handler = loop.add(fd: socket.fd, events: .readable) { [self] _ in
                    while let (s, remote) = transport.accept(socket) { links.accepted(s, remote: remote, requireKey: requireKey) }
                }
                w.listener = (socket, handler)
            }
        } catch {
            socket.close()
            throw error
        }
        return bound
    }

    /// Connects to a listening session and runs the handshake.
    /// - Returns: the peer, once ACCEPT arrived.
    /// - Throws: `PeerError.declined` (with the server's reason), `.timeout`, `.system`.
    /// - Thread: any but the I/O thread (it blocks up to `timeout` seconds).
    public func connect(to address: String, timeout: Double = 3) throws -> PeerInfo {
        guard !stopping.load(ordering: .relaxed) else { throw PeerError.stopped }
        try start { w throws(PeerError) in
            // IPv6 with IPv4-mapped addresses (datagrams to and from either family); IPv4
            // alone where the kernel has no IPv6.
            if transport.carriesDatagrams, (try? openDatagrams(SocketAddress(ipv6: [UInt8](repeating: 0, count: 16), port: 0), &w)) == nil {
                try openDatagrams(SocketAddress(ipv4: 0, port: 0), &w)
            }
        }
        let socket = try transport.connect(to: address, timeout: timeout)
        // The address reached, as numbers (":PORT" or a host name say less).
        let c = PeerConnection(socket: socket, outgoing: true, remote: transport.describe(socket, given: address), handshakeTimeout: timeout)
        let completion: ConnectCompletion
        do { completion = try ConnectCompletion() } catch { socket.close(); throw PeerError.system(error) }
        c.completion = completion
        // Under the lock `stop` passes before it stops the loop: this work runs (and a
        // stop closes the connection: "session stopped"), or `.stopped` is thrown here.
        do { try start { _ in loop.execute { [links] in links.adopt(c) } } } catch { socket.close(); throw error }
        return try completion.wait().get()
    }

    /// Connects as `connect(to:timeout:)` does, on the session's own I/O loop, for a
    /// client that connects again after a drop (`RemoteLink`): the transport's connect
    /// (one attempt, up to `timeout` seconds, on the loop: the session has no other link
    /// then), then the handshake; `done` is called once, on the loop, with the peer once
    /// ACCEPT arrived or why not. The session must have connected (or listened) before.
    /// - Thread: any (the work runs on the loop).
    public func connect(to address: String, timeout: Double, then done: @escaping @Sendable (Result<PeerInfo, PeerError>) -> Void) {
        guard !stopping.load(ordering: .relaxed) else { return done(.failure(.stopped)) }
        loop.execute { [self] in
            let socket: Socket
            do { socket = try transport.connect(to: address, timeout: timeout) } catch {
                return done(.failure(error as? PeerError ?? .system(SystemError(call: "connect(\(address))", code: EIO))))
            }
            let c = PeerConnection(socket: socket, outgoing: true, remote: transport.describe(socket, given: address), handshakeTimeout: timeout)
            c.completion = ConnectCompletion(then: done)
            links.adopt(c)
        }
    }

    /// Runs `body` on the session's I/O loop `delay` nanoseconds from now (a client's
    /// wait before it connects again). - Thread: any.
    @discardableResult
    public func schedule(after delay: UInt64, _ body: @escaping @Sendable () -> Void) -> EventLoop.Timer {
        loop.schedule(after: delay, body)
    }

    /// Cancels a `schedule`d body that has not run. - Thread: any.
    public func cancel(_ timer: EventLoop.Timer) { loop.cancel(timer) }

    /// Sends `message` to connected peers. Returns how many it was handed to.
    /// A peer whose stream fails is closed by the I/O thread (`connectionLost`).
    /// - Thread: any.
    @discardableResult
    public func send(_ message: PeerMessage, to selection: PeerSelection = .all, mode: SendMode = .reliable) -> Int {
        links.send(message, to: selection, mode: mode)
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

    /// The UDP port datagrams to this session go to, 0 without one (tests). - Thread: any.
    var datagramPort: UInt16 { datagrams.port }

    /// Sends BYE to every peer and closes them; each gets a `.disconnected` event.
    /// - Thread: any.
    public func disconnectFromAllPeers() { loop.execute { [links] in links.closeAll("hung up") } }

    /// Answers an invitation that is waiting for the player (`.ask`): `.accept` admits the
    /// peer (if there is still room), `.decline(reason)` declines it with that reason.
    /// Does nothing when no invitation from `id` waits (answered, timed out, gone).
    /// `.ask` is treated as no answer.
    /// - Thread: any.
    public func answerInvitation(from id: PeerID, _ decision: InvitationDecision) {
        loop.execute { [links] in links.answer(decision, to: id) }
    }

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
        let socket = try openAnnouncementListener(port: port)
        let changes = links   // discovery's changes reach the owner in order with the links'
        do {
            try start { _ in
                if !discovery.start(socket, expiry: expiry, on: loop, report: { for c in $0 { changes.onStateChange(c) } }) { socket.close() }
            }
        } catch {
            socket.close()
            throw error
        }
    }

    /// The instruments heard now (after `browse`).
    /// - Thread: any.
    public var availableInstruments: [PeerAnnouncement] { discovery.available }

    /// Closes every peer (BYE), the listener and the I/O thread; waits for it.
    /// - Thread: any but the I/O thread.
    public func stop() {
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let w = watched.withLock { $0 }   // after any `start` section that began before
        loop.stop()   // wakes the loop, runs the work queued before, joins its thread
        if let t = w.timer { loop.cancel(t) }
        links.closeAll("session stopped")
        if let l = w.listener { loop.remove(l.handler); l.socket.close() }
        if let h = w.datagrams { loop.remove(h) }
        datagrams.close()
        discovery.stop(on: loop)
    }

    // MARK: - Setting up the loop

    /// Under the setup lock: runs `body` (which adds what it watches), then starts the
    /// loop with the links' timer, once.
    /// - Throws: `PeerError.stopped` after `stop`, `.system` when the thread cannot start.
    private func start(_ body: (inout Watched) throws(PeerError) -> Void) throws(PeerError) {
        try watched.withLock { (w: inout Watched) throws(PeerError) in
            guard !stopping.load(ordering: .acquiring) else { throw PeerError.stopped }
            try body(&w)
            guard !w.started else { return }
            w.timer = loop.schedule(after: Self.tickInterval, repeating: Self.tickInterval) { [links] in links.tick() }
            do throws(SystemError) { try loop.start() } catch { throw PeerError.system(error) }
            w.started = true
        }
    }

    /// Opens the UDP socket on `address` (once) and reads it on the loop: each time it is
    /// readable, its datagrams are read as the loop's next work, after the streams found
    /// ready in the same turn (a reliable DOWN read then comes before the unreliable
    /// moves that follow it).
    private func openDatagrams(_ address: SocketAddress, _ w: inout Watched) throws(PeerError) {
        guard let socket = try datagrams.open(address) else { return }
        let datagrams = self.datagrams, links = self.links
        w.datagrams = loop.add(fd: socket.fd, events: .readable) { [loop] _ in
            loop.execute {
                var buffer = [UInt8](repeating: 0, count: 4096)
                datagrams.receive(&buffer) { links.datagram(token: $0, from: $1, body: $2) }
            }
        }
    }
}
