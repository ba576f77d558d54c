import CBluetooth  // for Glibc's socket names in this module: see Sources/CBluetooth/shim.h
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
        guard let (fd, sa) = Sockets.accept(listener, sockaddr_in()) else { return nil }
        Sockets.setInt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, 1)
        return (fd, IPEndpoint(sa).description)
    }

    public func connect(to address: String, timeout: Double) throws -> Int32 {
        let ep = try IPEndpoint.parse(address)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw Sockets.fail("socket(AF_INET, SOCK_STREAM)") }
        try Sockets.connect(fd, to: ep.sockaddr, ep.description, timeout: timeout)
        Sockets.setInt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, 1)
        return fd
    }

    public func requiresKey(listeningOn bound: String) -> Bool {
        guard let ep = try? IPEndpoint.parse(bound) else { return true }
        return !ep.isLoopback
    }
}
