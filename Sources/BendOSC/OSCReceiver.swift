// SPDX-License-Identifier: GPL-3.0-or-later
import BendControl
import BendSystem
import Glibc
import Synchronization

/// Receives OSC over UDP (or TCP, OSC 1.0 stream framing: a 4-byte big-endian size
/// before each packet, as liblo sends) on its own event loop ("bendsynth osc"), whose
/// thread owns the `OSCInterpreter` and so is the control port's single producer.
/// Senders other than loopback and the allow-list are dropped before their bytes are
/// parsed. Each UDP sender host (IP address) is one touch namespace, each TCP connection
/// another. Replies (`/bendsynth/voices`) go back from the listening socket.
///
/// TCP: at most `maxConnections` connections, `maxConnectionsPerHost` from one host. A
/// connection that sends nothing for `idleTimeout` (default 60 s) and holds no touch is
/// closed; when the table is full, a new connection replaces the one idle longest that
/// holds no touch — so idle connections never keep a sender out. Refusals are logged at
/// most once a second (per host for the per-host limit), with a count.
public final class OSCReceiver: @unchecked Sendable {
    public let address: OSCListenAddress
    public let tcp: Bool
    private let socket: Socket
    private let loop: EventLoop
    private let interpreter: OSCInterpreter
    private let log: @Sendable (String) -> Void
    /// Datagrams or frames dropped because their sender is not allowed.
    private let refusedCount = Atomic<Int>(0)
    private let touchCount = Atomic<Int>(0)
    /// Loop thread only: senders already warned about, TCP connections by descriptor,
    /// the receive buffer.
    private var warnedRefused: Set<String> = []
    private var connections: [Int32: Connection] = [:]
    private let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 8)
    private let started = Atomic<Bool>(false)
    /// The listening socket's handler and the expiry timer, removed by `stop` (they hold
    /// the receiver).
    private let watched = Mutex<(EventLoop.Handler?, EventLoop.Timer?)>((nil, nil))

    /// Largest number of TCP connections at once, and from one host.
    public static let maxConnections = 16
    public static let maxConnectionsPerHost = 4
    /// Seconds without a byte after which a TCP connection holding no touch is closed.
    public static let defaultIdleTimeout = 60.0
    /// This receiver's idle timeout, seconds (0: never).
    public let idleTimeout: Double
    /// How often silent senders are looked for (`OSCInterpreter.expire`), in nanoseconds.
    static let expiryCheck: UInt64 = 50_000_000

    private struct Connection {
        var socket: Socket
        var handler: EventLoop.Handler
        var sender: String
        /// The sender's host (its IP address), for the per-host limit.
        var host: String
        /// Monotonic ns of the last bytes received (or of the accept).
        var lastHeard: UInt64
        var buffer: [UInt8] = []
    }

    /// Opens and binds the socket and starts the loop's thread (idle until `start`).
    /// - Throws: `SystemError` naming the failing call (e.g. `bind(127.0.0.1:9000)` with
    ///   EADDRINUSE, `pthread_create(bendsynth osc)`). - Thread: setup.
    /// - Parameters:
    ///   - timeout, restTimeout: silence that ends a TUIO / a change-only sender's touches
    ///     (`OSCInterpreter`), seconds; 0: never.
    ///   - idleTimeout: silence that closes a TCP connection holding no touch, seconds; 0: never.
    ///   - emit: the control port's `send` (called on the receive thread).
    ///   - voices: voices sounding, for `/bendsynth/voices` replies (any thread).
    ///   - panic: the instrument's panic, for `/bendsynth/panic` (the receive thread).
    public init(address: OSCListenAddress, tcp: Bool, timeout: Double, restTimeout: Double = OSCInterpreter.defaultRestTimeout,
                idleTimeout: Double = OSCReceiver.defaultIdleTimeout,
                emit: @escaping @Sendable (ControlEvent) -> Void, log: @escaping @Sendable (String) -> Void,
                voices: @escaping @Sendable () -> Int, panic: @escaping @Sendable (String) -> Void = { _ in }) throws {
        self.address = address
        self.tcp = tcp
        self.log = log
        self.idleTimeout = idleTimeout
        interpreter = OSCInterpreter(timeout: timeout, restTimeout: restTimeout, emit: emit, log: log, voices: voices)
        interpreter.panic = panic
        let s = try Socket.open(address.address.family, tcp ? .stream : .datagram)
        do {
            if tcp { try s.setOption(SOL_SOCKET, SO_REUSEADDR, Int32(1)) }
            try s.bind(to: address.address)
            if tcp {
                try s.listen(backlog: 8, address.address)
                try s.setNonBlocking(true)   // an accept never blocks the loop
            }
            loop = try EventLoop(name: "bendsynth osc")
            try loop.start()
        } catch {
            s.close()
            throw error
        }
        socket = s
    }

    deinit {
        loop.stop()
        socket.close()
        chunk.deallocate()
    }

    /// The bound address, "ip:port" (the real port when 0 was asked). - Thread: any.
    public var boundDescription: String { (try? socket.localAddress().description) ?? address.text }

    /// Packets dropped because their sender is neither loopback nor allowed. - Thread: any.
    public var refused: Int { refusedCount.load(ordering: .relaxed) }
    /// Touches held by OSC senders now. - Thread: any.
    public var activeTouches: Int { touchCount.load(ordering: .relaxed) }

    /// Starts receiving on the loop's thread. - Thread: setup, once.
    public func start() {
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let handler = loop.add(fd: socket.fd, events: .readable) { [self] _ in
            if tcp { acceptAll() } else { receiveAll() }
            tick()
        }
        // Silence, held-back moves, log counts and idle connections: looked at every 50 ms.
        let timer = loop.schedule(after: Self.expiryCheck, repeating: Self.expiryCheck) { [self] in tick() }
        watched.withLock { $0 = (handler, timer) }
    }

    /// Stops the loop (wakes and joins it); every OSC touch has ended when this returns.
    /// - Thread: setup (the thread that started it).
    public func stop() {
        guard !loop.hasEnded else { return }
        loop.execute { [self] in
            for c in connections.values { close(c) }
            interpreter.endAll()
            touchCount.store(0, ordering: .relaxed)
        }
        loop.stop()
        let (handler, timer) = watched.withLock { w in defer { w = (nil, nil) }; return w }
        if let handler { loop.remove(handler) }
        if let timer { loop.cancel(timer) }
    }

    /// Handles one packet received now from `sender`; sends replies through `reply`.
    private func deliver(_ bytes: UnsafeRawBufferPointer, from sender: String, reply: ([UInt8]) -> Void) {
        for r in interpreter.handle(datagram: bytes, from: sender, now: MonotonicClock.nanos()) { reply(r) }
        touchCount.store(interpreter.activeTouches, ordering: .relaxed)
    }

    private func refuse(_ from: SocketAddress?) {
        refusedCount.add(1, ordering: .relaxed)
        let host = from?.bracketedHost ?? "?"
        if warnedRefused.count < 64, warnedRefused.insert(host).inserted {
            log("osc: ignoring \(host): not in --osc-allow (logged once per address)")
        }
    }

    private func tick() {
        let now = MonotonicClock.nanos()
        interpreter.expire(now: now)
        if idleTimeout > 0 {
            let limit = UInt64(idleTimeout * 1e9)
            for c in connections.values where now >= c.lastHeard && now - c.lastHeard >= limit && interpreter.activeTouches(of: c.sender) == 0 {
                interpreter.limited.line("idle", now: now, "osc: closing \(c.sender): nothing for \(idleTimeout) s and no touch held")
                close(c)
                interpreter.endSender(c.sender)
            }
        }
        touchCount.store(interpreter.activeTouches, ordering: .relaxed)
    }

    /// UDP: every pending datagram. - Thread: the loop.
    private func receiveAll() {
        // nil: drained (EAGAIN); an error (ICMP noise) too, retried when readable again.
        while let (n, sender) = try? socket.receiveFrom(into: chunk, flags: Int32(MSG_DONTWAIT)) {
            guard let from = sender, address.allows(from) else { refuse(sender); continue }
            // The host is the namespace: one-shot senders (oscsend) use a new port
            // each time, and a release must find the touch its sender started.
            deliver(UnsafeRawBufferPointer(rebasing: chunk[0..<n]), from: from.bracketedHost) { r in
                _ = try? r.withUnsafeBytes { try socket.send($0, to: from, flags: Int32(MSG_DONTWAIT)) }
            }
        }
    }

    /// TCP: every pending connection, each read on the loop. - Thread: the loop.
    private func acceptAll() {
        while case let (c, from)? = try? socket.accept() {
            guard let from, address.allows(from) else { refuse(from); c.close(); continue }
            let host = from.bracketedHost
            let now = MonotonicClock.nanos()
            // Over a limit (of the host, of all), the connection idle longest with no touch
            // makes room; when every one holds touches, the new one is refused.
            if connections.values.filter({ $0.host == host }).count >= Self.maxConnectionsPerHost && !makeRoom(among: { $0.host == host }) {
                interpreter.limited.line("connections:\(host)", now: now,
                                         "osc: \(host) has \(Self.maxConnectionsPerHost) TCP connections holding touches; closing its new one from \(from)")
                c.close()
                continue
            }
            if connections.count >= Self.maxConnections && !makeRoom(among: { _ in true }) {
                interpreter.limited.line("connections", now: now,
                                         "osc: \(Self.maxConnections) TCP connections hold touches; closing the new one from \(from)")
                c.close()
                continue
            }
            let fd = c.fd
            let handler = loop.add(fd: fd, events: .readable) { [self] _ in read(fd) }
            connections[fd] = Connection(socket: c, handler: handler, sender: from.description, host: host, lastHeard: now)
        }
    }

    /// Closes the connection idle longest that holds no touch among those `which` takes.
    /// - Returns: false when there is none.
    private func makeRoom(among which: (Connection) -> Bool) -> Bool {
        let idle = connections.values.filter { which($0) && interpreter.activeTouches(of: $0.sender) == 0 }
        guard let oldest = idle.min(by: { $0.lastHeard < $1.lastHeard }) else { return false }
        interpreter.limited.line("replaced", now: MonotonicClock.nanos(),
                                 "osc: closing \(oldest.sender), idle with no touch, to make room for a new TCP connection")
        close(oldest)
        interpreter.endSender(oldest.sender)
        return true
    }

    /// One read of a TCP connection: frames handled, or the connection closed (end of
    /// stream, an error, a frame too large). - Thread: the loop.
    private func read(_ fd: Int32) {
        guard var c = connections[fd] else { return }
        let n: Int?
        do { n = try c.socket.receive(into: chunk) } catch { n = 0 }
        guard let n else { return }   // nothing after all
        if n > 0 {
            c.lastHeard = MonotonicClock.nanos()
            c.buffer += UnsafeRawBufferPointer(rebasing: chunk[0..<n])
            let ok = drainFrames(&c)
            connections[fd] = c
            if ok { return }
        }
        close(c)
        interpreter.endSender(c.sender)  // a source that disappears ends its touches
        touchCount.store(interpreter.activeTouches, ordering: .relaxed)
    }

    private func close(_ c: Connection) {
        loop.remove(c.handler)
        c.socket.close()
        connections[c.socket.fd] = nil
    }

    /// Handles every whole frame in the connection's buffer; false when the stream is
    /// broken (a frame larger than a packet may be) and the connection must close.
    private func drainFrames(_ c: inout Connection) -> Bool {
        var offset = 0
        defer { c.buffer.removeFirst(offset) }
        while c.buffer.count - offset >= 4 {
            let size = c.buffer[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
            guard size <= OSCPacket.maxSize else {
                // A client reconnecting to do it again gets a line a second (and a count).
                interpreter.limited.line("frame:\(c.host)", now: MonotonicClock.nanos(),
                                         "osc: \(c.sender) sent a TCP frame of \(size) bytes (more than \(OSCPacket.maxSize)); closing the connection")
                return false
            }
            guard c.buffer.count - offset - 4 >= size else { break }
            let socket = c.socket
            c.buffer.withUnsafeBytes { b in
                deliver(UnsafeRawBufferPointer(rebasing: b[(offset + 4)..<(offset + 4 + size)]), from: c.sender) { r in
                    let n = UInt32(r.count)
                    let framed = [UInt8(n >> 24), UInt8(truncatingIfNeeded: n >> 16), UInt8(truncatingIfNeeded: n >> 8), UInt8(truncatingIfNeeded: n)] + r
                    _ = try? framed.withUnsafeBytes { try socket.send($0, flags: Int32(MSG_DONTWAIT)) }
                }
            }
            offset += 4 + size
        }
        return true
    }
}
