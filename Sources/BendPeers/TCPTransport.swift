// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem
import CBluetooth  // for Glibc's socket names in this module: see Sources/CBluetooth/shim.h
import Glibc

/// TCP over IPv4 or IPv6. Addresses are `HOST[:PORT]`, `[IPv6]:PORT` (see `PeerAddress.parse`).
public struct TCPTransport: PeerTransport {
    public let name = "TCP"
    public let carriesDatagrams = true

    public init() {}

    public func listen(on address: String) throws -> (socket: Socket, bound: String) {
        let ep = try PeerAddress.parse(address)
        let s: Socket
        do { s = try Socket.listening(on: ep) } catch { throw PeerError.system(error) }
        do { return (s, try s.localAddress().description) } catch { s.close(); throw PeerError.system(error) }
    }

    public func accept(_ listener: Socket) -> (socket: Socket, remote: String)? {
        guard let (s, from) = try? listener.accept() else { return nil }
        try? s.setNoDelay()
        return (s, from?.description ?? "?")
    }

    public func connect(to address: String, timeout: Double) throws -> Socket {
        let ep = try PeerAddress.parse(address)
        let s: Socket
        do { s = try Socket.connected(to: ep, timeout: timeout) } catch { throw PeerError.connecting(error, timeout: timeout) }
        try? s.setNoDelay()
        return s
    }

    /// The peer's numeric address, e.g. `10.0.0.2:47810` or `[::1]:47810`.
    public func describe(_ socket: Socket, given: String) -> String {
        socket.remoteAddress()?.description ?? given
    }

    public func requiresKey(listeningOn bound: String) -> Bool {
        guard let ep = try? PeerAddress.parse(bound) else { return true }
        return !ep.isLoopback
    }
}
