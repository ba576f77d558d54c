import Glibc

/// TCP over IPv4. Addresses are `HOST[:PORT]` (see `IPEndpoint.parse`).
public struct TCPTransport: PeerTransport {
    public let name = "TCP"
    public let carriesDatagrams = true

    public init() {}

    public func listen(on address: String) throws -> (fd: Int32, bound: String) {
        let ep = try IPEndpoint.parse(address)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Sockets.fail("socket(AF_INET, SOCK_STREAM)") }
        Sockets.setInt(fd, SOL_SOCKET, SO_REUSEADDR, 1)
        do {
            try Sockets.bind(fd, ep)
            guard Glibc.listen(fd, 16) == 0 else { throw Sockets.fail("listen(\(ep))") }
        } catch { close(fd); throw error }
        return (fd, Sockets.localEndpoint(fd).description)
    }

    public func accept(_ listener: Int32) -> (fd: Int32, remote: String)? {
        var sa = sockaddr_in(), len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let fd = withUnsafeMutablePointer(to: &sa) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.accept(listener, $0, &len) }
        }
        guard fd >= 0 else { return nil }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        Sockets.setInt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, 1)
        return (fd, IPEndpoint(sa).description)
    }

    public func connect(to address: String, timeout: Double) throws -> Int32 {
        let ep = try IPEndpoint.parse(address)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw Sockets.fail("socket(AF_INET, SOCK_STREAM)") }
        var sa = ep.sockaddr
        let rc = withUnsafePointer(to: &sa) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if rc != 0 {
            guard errno == EINPROGRESS else { let e = Sockets.fail("connect(\(ep))"); close(fd); throw e }
            guard Sockets.wait(fd, events: Int16(POLLOUT), timeout: timeout) else {
                close(fd); throw PeerError.timeout("connect(\(ep)): no answer within \(timeout) s")
            }
            var err: Int32 = 0, len = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len)
            if err != 0 { errno = err; let e = Sockets.fail("connect(\(ep))"); close(fd); throw e }
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        Sockets.setInt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, 1)
        return fd
    }

    public func requiresKey(listeningOn bound: String) -> Bool {
        guard let ep = try? IPEndpoint.parse(bound) else { return true }
        return !ep.isLoopback
    }
}
