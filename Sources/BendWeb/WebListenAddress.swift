import Glibc

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
        var a = in_addr()
        guard inet_pton(AF_INET, host, &a) == 1 else {
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
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return host }
        defer { freeifaddrs(list) }
        var p = list
        while let ifa = p {
            defer { p = ifa.pointee.ifa_next }
            guard let sa = ifa.pointee.ifa_addr, sa.pointee.sa_family == sa_family_t(AF_INET),
                  ifa.pointee.ifa_flags & UInt32(IFF_LOOPBACK) == 0, ifa.pointee.ifa_flags & UInt32(IFF_UP) != 0 else { continue }
            var buf = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            let ok = sa.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { sin in
                var addr = sin.pointee.sin_addr
                return inet_ntop(AF_INET, &addr, &buf, socklen_t(buf.count)) != nil
            }
            if ok { return cText(buf) }
        }
        return host
    }
}

public struct WebAddressError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
