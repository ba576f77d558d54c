// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem

/// `play --web [ADDR][:PORT]`: where the web controller listens. No ADDR: loopback
/// (127.0.0.1) only, like `--listen`; `0.0.0.0`: every interface. IPv4 only (for now).
public struct WebListenAddress: Sendable, Equatable {
    public static let defaultPort: UInt16 = 47880
    /// Numeric IPv4 address.
    public var host: String
    /// 0: any free port (the one bound is printed).
    public var port: UInt16

    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// Parses `[ADDR][:PORT]`. - Throws: `WebTokenError`-like text naming the part at fault.
    public init(_ text: String) throws(WebAddressError) {
        var host = text, port = WebListenAddress.defaultPort
        if let colon = text.lastIndex(of: ":") {
            host = String(text[..<colon])
            let p = String(text[text.index(after: colon)...])
            guard let n = UInt16(p) else {
                throw WebAddressError("'\(text)': port '\(p)' is not a number in 0…65535")
            }
            port = n
        }
        if host.isEmpty { host = "127.0.0.1" }
        if host.contains(":") || host.hasPrefix("[") {
            throw WebAddressError("'\(text)': IPv6 is not supported by the web controller yet; give an IPv4 address")
        }
        guard SocketAddress(numeric: host, port: port)?.family == .ipv4 else {
            throw WebAddressError("'\(text)': '\(host)' is not a numeric IPv4 address")
        }
        self.host = host
        self.port = port
    }

    /// True for 127.0.0.0/8: only this machine can connect.
    public var isLoopback: Bool { host.hasPrefix("127.") }

    /// The address a phone should use in the URL: the host itself, or for 0.0.0.0 this
    /// machine's first non-loopback IPv4 address (getifaddrs).
    public var reachableHost: String {
        guard host == "0.0.0.0" else { return host }
        return SocketAddress.interfaceAddresses().first { $0.family == .ipv4 && !$0.isLoopback }?.host ?? host
    }
}

public struct WebAddressError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
