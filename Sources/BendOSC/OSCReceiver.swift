import BendControl
import BendSystem
import Foundation
import Glibc
import Synchronization

/// Receives OSC over UDP (or TCP, OSC 1.0 stream framing: a 4-byte big-endian size
/// before each packet, as liblo sends) on one thread, which owns the `OSCInterpreter`
/// and so is the control port's single producer. Senders other than loopback and the
/// allow-list are dropped before their bytes are parsed. Each UDP sender host (IP
/// address) is one touch namespace, each TCP connection another. Replies (`/bendsynth/voices`)
/// go back from the listening socket.
public final class OSCReceiver: @unchecked Sendable {
    public let address: OSCListenAddress
    public let tcp: Bool
    private let fd: Int32
    private let stopFlag = Atomic<Bool>(false)
    private let done = DispatchSemaphore(value: 0)
    private var thread: Thread?
    private let interpreter: OSCInterpreter
    private let log: @Sendable (String) -> Void
    /// Datagrams or frames dropped because their sender is not allowed.
    private let refusedCount = Atomic<Int>(0)
    private let touchCount = Atomic<Int>(0)
    private var warnedRefused: Set<String> = []

    /// Largest number of TCP connections at once.
    public static let maxConnections = 16

    /// Opens and binds the socket. - Throws: `SystemError` naming the failing call
    /// (e.g. `bind(127.0.0.1:9000)` with EADDRINUSE). - Thread: setup.
    /// - Parameters:
    ///   - emit: the control port's `send` (called on the receive thread).
    ///   - voices: voices sounding, for `/bendsynth/voices` replies (any thread).
    public init(address: OSCListenAddress, tcp: Bool, timeout: Double,
                emit: @escaping @Sendable (ControlEvent) -> Void, log: @escaping @Sendable (String) -> Void,
                voices: @escaping @Sendable () -> Int) throws {
        self.address = address
        self.tcp = tcp
        self.log = log
        interpreter = OSCInterpreter(timeout: timeout, emit: emit, log: log, voices: voices)
        let family = Int32(address.storage.ss_family)
        let type = Int32(tcp ? SOCK_STREAM.rawValue : SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        fd = try retryingOnInterrupt("socket", { socket(family, type, 0) })
        do {
            var one: Int32 = 1
            if tcp { setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size)) }
            var storage = address.storage
            let rc = withUnsafePointer(to: &storage) { p in
                p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, address.length) }
            }
            if rc != 0 { throw SystemError(call: "bind(\(OSCListenAddress.describe(address.storage)))") }
            if tcp { try retryingOnInterrupt("listen", { listen(fd, 8) }) }
        } catch {
            close(fd)
            throw error
        }
    }

    deinit { close(fd) }

    /// The bound address, "ip:port" (the real port when 0 was asked). - Thread: any.
    public var boundDescription: String {
        var s = sockaddr_storage()
        var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &s) { p in p.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        return OSCListenAddress.describe(s)
    }

    /// Packets dropped because their sender is neither loopback nor allowed. - Thread: any.
    public var refused: Int { refusedCount.load(ordering: .relaxed) }
    /// Touches held by OSC senders now. - Thread: any.
    public var activeTouches: Int { touchCount.load(ordering: .relaxed) }

    /// Starts the receive thread. - Thread: setup.
    public func start() {
        let t = Thread { [self] in
            if tcp { runTCP() } else { runUDP() }
            interpreter.endAll()
            touchCount.store(0, ordering: .relaxed)
            done.signal()
        }
        t.name = "bendsynth osc"
        thread = t
        t.start()
    }

    /// Stops the thread and waits for it; every OSC touch has ended when this returns.
    /// - Thread: setup (the thread that started it).
    public func stop() {
        guard thread != nil else { return }
        stopFlag.store(true, ordering: .relaxed)
        done.wait()
        thread = nil
    }

    /// Handles one packet received now from `sender`; sends replies through `reply`.
    private func deliver(_ bytes: UnsafeRawBufferPointer, from sender: String, reply: ([UInt8]) -> Void) {
        for r in interpreter.handle(datagram: bytes, from: sender, now: MonotonicClock.nanos()) { reply(r) }
        touchCount.store(interpreter.activeTouches, ordering: .relaxed)
    }

    private func refuse(_ from: sockaddr_storage) {
        refusedCount.add(1, ordering: .relaxed)
        let host = OSCListenAddress.host(of: from)
        if warnedRefused.count < 64, warnedRefused.insert(host).inserted {
            log("osc: ignoring \(host): not in --osc-allow (logged once per address)")
        }
    }

    private func tick() {
        interpreter.expire(now: MonotonicClock.nanos())
        touchCount.store(interpreter.activeTouches, ordering: .relaxed)
    }

    private func runUDP() {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 8)
        defer { buffer.deallocate() }
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while !stopFlag.load(ordering: .relaxed) {
            if poll(&pfd, 1, 50) > 0 {
                while true {
                    var from = sockaddr_storage()
                    var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
                    let n = withUnsafeMutablePointer(to: &from) { p in
                        p.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                            recvfrom(fd, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT), $0, &len)
                        }
                    }
                    if n < 0 { break }  // EAGAIN: drained (other errors: ICMP noise, retried at the next poll)
                    guard address.allows(from) else { refuse(from); continue }
                    // The host is the namespace: one-shot senders (oscsend) use a new port
                    // each time, and a release must find the touch its sender started.
                    let sender = OSCListenAddress.host(of: from)
                    deliver(UnsafeRawBufferPointer(rebasing: buffer[0..<n]), from: sender) { r in
                        _ = r.withUnsafeBytes { b in
                            withUnsafePointer(to: &from) { p in
                                p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(fd, b.baseAddress, b.count, Int32(MSG_DONTWAIT), $0, len) }
                            }
                        }
                    }
                }
            }
            tick()
        }
    }

    private struct Connection {
        var fd: Int32
        var sender: String
        var buffer: [UInt8] = []
    }

    private func runTCP() {
        var connections: [Connection] = []
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 8)
        defer {
            chunk.deallocate()
            for c in connections { close(c.fd) }
        }
        while !stopFlag.load(ordering: .relaxed) {
            var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)] + connections.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
            if poll(&fds, nfds_t(fds.count), 50) > 0 {
                var closed: [Int] = []
                for (i, p) in fds.enumerated().dropFirst() where p.revents != 0 {
                    let n = read(p.fd, chunk.baseAddress, chunk.count)
                    if n <= 0 { closed.append(i - 1); continue }
                    connections[i - 1].buffer += UnsafeRawBufferPointer(rebasing: chunk[0..<n])
                    if !drainFrames(&connections[i - 1]) { closed.append(i - 1) }
                }
                for i in closed.reversed() {
                    let c = connections.remove(at: i)
                    close(c.fd)
                    interpreter.endSender(c.sender)  // a source that disappears ends its touches
                    touchCount.store(interpreter.activeTouches, ordering: .relaxed)
                }
                if fds[0].revents != 0 { accept(into: &connections) }
            }
            tick()
        }
    }

    private func accept(into connections: inout [Connection]) {
        var from = sockaddr_storage()
        var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let c = withUnsafeMutablePointer(to: &from) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.accept(fd, $0, &len) }
        }
        guard c >= 0 else { return }
        _ = fcntl(c, F_SETFD, FD_CLOEXEC)
        guard address.allows(from) else { refuse(from); close(c); return }
        guard connections.count < Self.maxConnections else {
            log("osc: more than \(Self.maxConnections) TCP connections; closing the new one from \(OSCListenAddress.describe(from))")
            close(c)
            return
        }
        connections.append(Connection(fd: c, sender: OSCListenAddress.describe(from)))
    }

    /// Handles every whole frame in the connection's buffer; false when the stream is
    /// broken (a frame larger than a packet may be) and the connection must close.
    private func drainFrames(_ c: inout Connection) -> Bool {
        var offset = 0
        defer { c.buffer.removeFirst(offset) }
        while c.buffer.count - offset >= 4 {
            let size = c.buffer[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
            guard size <= OSCPacket.maxSize else {
                log("osc: \(c.sender) sent a TCP frame of \(size) bytes (more than \(OSCPacket.maxSize)); closing the connection")
                return false
            }
            guard c.buffer.count - offset - 4 >= size else { break }
            let fdCopy = c.fd
            c.buffer.withUnsafeBytes { b in
                deliver(UnsafeRawBufferPointer(rebasing: b[(offset + 4)..<(offset + 4 + size)]), from: c.sender) { r in
                    let n = UInt32(r.count)
                    let framed = [UInt8(n >> 24), UInt8(truncatingIfNeeded: n >> 16), UInt8(truncatingIfNeeded: n >> 8), UInt8(truncatingIfNeeded: n)] + r
                    _ = framed.withUnsafeBytes { send(fdCopy, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
                }
            }
            offset += 4 + size
        }
        return true
    }
}
