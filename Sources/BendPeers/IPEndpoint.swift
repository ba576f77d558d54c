import BendSystem
import CBluetooth  // for Glibc's socket names in this module: see Sources/CBluetooth/shim.h
import Glibc

/// An IPv4 address and port (IPv6 is not supported yet).
public struct IPEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// Address in network byte order, as in `in_addr.s_addr`.
    public var address: UInt32
    /// Port in host byte order.
    public var port: UInt16

    public init(address: UInt32, port: UInt16) { self.address = address; self.port = port }

    init(_ sa: sockaddr_in) { address = sa.sin_addr.s_addr; port = UInt16(bigEndian: sa.sin_port) }

    var sockaddr: sockaddr_in {
        var sa = sockaddr_in()
        sa.sin_family = sa_family_t(AF_INET)
        sa.sin_port = port.bigEndian
        sa.sin_addr.s_addr = address
        return sa
    }

    /// True for 127.0.0.0/8.
    public var isLoopback: Bool { UInt32(bigEndian: address) >> 24 == 127 }

    public var host: String {
        let a = UInt32(bigEndian: address)
        return "\(a >> 24).\(a >> 16 & 255).\(a >> 8 & 255).\(a & 255)"
    }

    public var description: String { "\(host):\(port)" }

    /// Parses `HOST[:PORT]`, `:PORT` or `PORT`-less forms; HOST is a dotted IPv4
    /// address or a name resolved with getaddrinfo (IPv4 only).
    /// - Parameters:
    ///   - defaultHost: used when HOST is empty (e.g. "127.0.0.1").
    ///   - defaultPort: used when PORT is missing.
    /// - Throws: `PeerError.address` saying what was expected.
    public static func parse(_ text: String, defaultHost: String = "127.0.0.1", defaultPort: UInt16 = PeerProtocol.defaultPort) throws -> IPEndpoint {
        var host = text, port = defaultPort
        if let colon = text.lastIndex(of: ":") {
            host = String(text[..<colon])
            let p = String(text[text.index(after: colon)...])
            guard let n = UInt16(p) else {
                throw PeerError.address("'\(text)': port '\(p)' is not a number 0…65535 (0: any free port)")
            }
            port = n
        }
        if host.isEmpty { host = defaultHost }
        var addr = in_addr()
        if inet_pton(AF_INET, host, &addr) == 1 { return IPEndpoint(address: addr.s_addr, port: port) }
        var hints = addrinfo()
        hints.ai_family = AF_INET
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var res: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, nil, &hints, &res)
        guard rc == 0, let first = res, let sa = first.pointee.ai_addr else {
            throw PeerError.address("'\(text)': cannot resolve host '\(host)': \(String(cString: gai_strerror(rc)))")
        }
        defer { freeaddrinfo(res) }
        let sin = UnsafeRawPointer(sa).load(as: sockaddr_in.self)
        return IPEndpoint(address: sin.sin_addr.s_addr, port: port)
    }
}

/// Small socket helpers; every failure names the call and the endpoint.
enum Sockets {
    static func fail(_ call: String, code: Int32 = errno) -> PeerError { PeerError.system(SystemError(call: call, code: code)) }

    static func bind(_ fd: Int32, _ ep: IPEndpoint) throws {
        var sa = ep.sockaddr
        let rc = withUnsafePointer(to: &sa) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else { throw fail("bind(\(ep))") }
    }

    static func localEndpoint(_ fd: Int32) -> IPEndpoint {
        var sa = sockaddr_in(), len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &sa) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        return IPEndpoint(sa)
    }

    /// The connected peer's address (getpeername), nil when it is not IPv4.
    static func remoteEndpoint(_ fd: Int32) -> IPEndpoint? {
        var sa = sockaddr_in(), len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let rc = withUnsafeMutablePointer(to: &sa) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &len) } }
        return rc == 0 && sa.sin_family == sa_family_t(AF_INET) ? IPEndpoint(sa) : nil
    }

    static func setInt(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: Int32) {
        var v = value
        setsockopt(fd, level, name, &v, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Send timeout on a blocking socket, so a stuck peer cannot block a sender forever.
    static func setSendTimeout(_ fd: Int32, seconds: Double) {
        var tv = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - Double(Int(seconds))) * 1e6))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Writes all of `bytes` (blocking socket, MSG_NOSIGNAL). False on any failure.
    static func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var off = 0
        while off < bytes.count {
            let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + off, bytes.count - off, Int32(MSG_NOSIGNAL)) }
            if n < 0 { if errno == EINTR { continue }; return false }
            off += n
        }
        return true
    }

    /// Connects the non-blocking `fd` to `address` (a `sockaddr_in`, `sockaddr_rc`, …)
    /// within `timeout` seconds, then makes it blocking. On failure closes `fd` and throws
    /// a `PeerError` naming `what`. `errno` values in `inProgress` mean "wait for it".
    static func connect<Address>(_ fd: Int32, to address: Address, _ what: String, timeout: Double,
                                 inProgress: [Int32] = [EINPROGRESS]) throws {
        var sa = address
        let rc = withUnsafePointer(to: &sa) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<Address>.size)) }
        }
        if rc != 0 {
            guard inProgress.contains(errno) else { let e = fail("connect(\(what))"); close(fd); throw e }
            guard wait(fd, events: Int16(POLLOUT), timeout: timeout) else {
                close(fd); throw PeerError.timeout("connect(\(what)): no answer within \(timeout) s")
            }
            var err: Int32 = 0, len = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len)
            if err != 0 { errno = err; let e = fail("connect(\(what))"); close(fd); throw e }
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
    }

    /// Accepts one connection on `listener` (close-on-exec) with the peer's `Address`;
    /// nil when none is pending.
    static func accept<Address>(_ listener: Int32, _ empty: Address) -> (fd: Int32, address: Address)? {
        var sa = empty, len = socklen_t(MemoryLayout<Address>.size)
        let fd = withUnsafeMutablePointer(to: &sa) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.accept(listener, $0, &len) }
        }
        guard fd >= 0 else { return nil }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        return (fd, sa)
    }

    /// poll() one fd for `events` up to `timeout` seconds; true when ready.
    static func wait(_ fd: Int32, events: Int16, timeout: Double) -> Bool {
        let deadline = Double(MonotonicClock.nanos()) + timeout * 1e9
        while true {
            var p = pollfd(fd: fd, events: events, revents: 0)
            let left = max(0, Int32((deadline - Double(MonotonicClock.nanos())) / 1e6))
            let rc = poll(&p, 1, left)
            if rc > 0 { return true }
            if rc == 0 { return false }
            if errno != EINTR { return false }
        }
    }
}
