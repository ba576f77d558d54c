// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem
import Glibc

/// The peer protocol's TCP/UDP addresses: `HOST[:PORT]`, `:PORT`, `[IPv6]:PORT`, or HOST
/// alone (port 47810): IPv4 (dotted), IPv6 (in brackets, or bare without a port), or a
/// name (resolved to IPv4 where it has an IPv4 address, else IPv6): a thin parser over
/// BendSystem's `SocketAddress` with the protocol's defaults.
public enum PeerAddress {
    /// - Parameters:
    ///   - defaultHost: used when HOST is empty (e.g. "127.0.0.1").
    ///   - defaultPort: used when PORT is missing.
    /// - Throws: `PeerError.address` saying what was expected.
    /// - Thread: any (a host name is resolved: it may block).
    public static func parse(_ text: String, defaultHost: String = "127.0.0.1",
                             defaultPort: UInt16 = PeerProtocol.defaultPort) throws(PeerError) -> SocketAddress {
        // HOST alone (no colon) is a host, not a port, as the protocol always wrote it.
        let spec = text.contains(":") || text.isEmpty ? text : "\(text):\(defaultPort)"
        let full = spec.isEmpty ? ":\(defaultPort)" : spec
        do {
            return try SocketAddress.parse(full, defaultHost: defaultHost, defaultPort: defaultPort, family: .ipv4)
        } catch {
            // An IPv6 address, or a name with IPv6 addresses only.
            if let v6 = try? SocketAddress.parse(full, defaultHost: defaultHost, defaultPort: defaultPort, family: .ipv6) { return v6 }
            throw PeerError.address("'\(text)': \(error.reason)")
        }
    }
}

extension PeerError {
    /// A failed connect: `.timeout` when nothing answered within `timeout` seconds, else `.system`.
    static func connecting(_ e: SystemError, timeout: Double) -> PeerError {
        e.code == ETIMEDOUT ? .timeout("\(e.call): no answer within \(timeout) s") : .system(e)
    }
}
