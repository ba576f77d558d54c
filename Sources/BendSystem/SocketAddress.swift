// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// An IPv4 or IPv6 address and port, as the kernel takes it (`sockaddr_in` or
/// `sockaddr_in6` in a `sockaddr_storage`).
///
/// Text forms: `HOST:PORT`, `[IPv6]:PORT`, `[IPv6]`, a bare IPv6 address, `:PORT`,
/// `PORT` (digits alone: a port) and `HOST`; HOST is numeric or a name resolved with
/// getaddrinfo. `description` gives `1.2.3.4:5` or `[::1]:5`.
public struct SocketAddress: Sendable, Hashable, CustomStringConvertible {
    public enum Family: Sendable, Hashable {
        case ipv4, ipv6
        var domain: Int32 { self == .ipv4 ? AF_INET : AF_INET6 }
    }

    /// Why a text address cannot be used: what was given and what was expected.
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        /// The text given.
        public var text: String
        /// What is wrong, e.g. "port '99999' is not a number 0…65535 (0: any free port)".
        public var reason: String
        public var description: String { "'\(text)': \(reason)" }
    }

    private var storage = sockaddr_storage()
    /// Bytes of `storage` in use: `sockaddr_in` or `sockaddr_in6`.
    public private(set) var length: socklen_t

    // MARK: - Making one

    /// An IPv4 address.
    /// - Parameters:
    ///   - ipv4: address in network byte order, as in `in_addr.s_addr` (0: any).
    ///   - port: host byte order.
    public init(ipv4: UInt32, port: UInt16) {
        var sa = sockaddr_in()
        sa.sin_family = sa_family_t(AF_INET)
        sa.sin_port = port.bigEndian
        sa.sin_addr.s_addr = ipv4
        length = socklen_t(MemoryLayout<sockaddr_in>.size)
        withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: sa, as: sockaddr_in.self) }
    }

    /// An IPv6 address from its 16 bytes (network order); port in host byte order.
    public init(ipv6 bytes: [UInt8], port: UInt16, scope: UInt32 = 0) {
        precondition(bytes.count == 16, "an IPv6 address has 16 bytes")
        var sa = sockaddr_in6()
        sa.sin6_family = sa_family_t(AF_INET6)
        sa.sin6_port = port.bigEndian
        sa.sin6_scope_id = scope
        withUnsafeMutableBytes(of: &sa.sin6_addr) { $0.copyBytes(from: bytes) }
        length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: sa, as: sockaddr_in6.self) }
    }

    /// The address the kernel filled in (recvfrom, accept, getsockname); nil when it is
    /// neither IPv4 nor IPv6 (a Unix or Bluetooth socket).
    public init?(storage: sockaddr_storage, length: socklen_t) {
        let family = Int32(storage.ss_family)
        guard family == AF_INET || family == AF_INET6 else { return nil }
        self.storage = storage
        self.length = family == AF_INET ? socklen_t(MemoryLayout<sockaddr_in>.size) : socklen_t(MemoryLayout<sockaddr_in6>.size)
    }

    /// The numeric address `host` (v4 or v6, no brackets) and `port`; nil when `host`
    /// is not a numeric address.
    public init?(numeric host: String, port: UInt16) {
        var v4 = in_addr(), v6 = in6_addr()
        if inet_pton(AF_INET, host, &v4) == 1 {
            self.init(ipv4: v4.s_addr, port: port)
        } else if inet_pton(AF_INET6, host, &v6) == 1 {
            self.init(ipv6: withUnsafeBytes(of: v6) { Array($0) }, port: port)
        } else {
            return nil
        }
    }

    /// Every address `host` resolves to (getaddrinfo; numeric addresses without a lookup).
    /// - Parameters:
    ///   - family: only this family, or either (nil).
    ///   - datagram: for UDP (only changes which duplicates getaddrinfo lists).
    /// - Throws: `ParseError` with getaddrinfo's reason.
    public static func resolve(host: String, port: UInt16, family: Family? = nil, datagram: Bool = false) throws(ParseError) -> [SocketAddress] {
        if let a = SocketAddress(numeric: host, port: port), family == nil || a.family == family { return [a] }
        var hints = addrinfo()
        hints.ai_family = family?.domain ?? AF_UNSPEC
        hints.ai_socktype = Int32(datagram ? SOCK_DGRAM.rawValue : SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &result)
        guard rc == 0, let first = result else {
            throw ParseError(text: host, reason: "cannot resolve host '\(host)': \(String(cString: gai_strerror(rc)))")
        }
        defer { freeaddrinfo(result) }
        var found: [SocketAddress] = []
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let e = entry {
            if let sa = e.pointee.ai_addr {
                var s = sockaddr_storage()
                withUnsafeMutableBytes(of: &s) { $0.copyMemory(from: UnsafeRawBufferPointer(start: sa, count: Int(e.pointee.ai_addrlen))) }
                if let a = SocketAddress(storage: s, length: e.pointee.ai_addrlen), !found.contains(a) { found.append(a) }
            }
            entry = e.pointee.ai_next
        }
        guard !found.isEmpty else { throw ParseError(text: host, reason: "cannot resolve host '\(host)': no address") }
        return found
    }

    /// Parses a text address (see the type's forms) and resolves it (the first address).
    /// - Parameters:
    ///   - defaultHost: when HOST is empty or missing (e.g. "127.0.0.1").
    ///   - defaultPort: when PORT is missing; nil makes it required.
    ///   - family: only this family (e.g. `.ipv4` for an IPv4-only protocol), or either.
    /// - Throws: `ParseError` saying what was expected.
    /// - Thread: setup (a name lookup may block).
    public static func parse(_ text: String, defaultHost: String = "127.0.0.1", defaultPort: UInt16? = nil,
                             family: Family? = nil, datagram: Bool = false) throws(ParseError) -> SocketAddress {
        let (host, portText) = try split(text)
        var port: UInt16
        if let portText {
            guard let n = UInt16(portText) else {
                throw ParseError(text: text, reason: "port '\(portText)' is not a number 0…65535 (0: any free port)")
            }
            port = n
        } else if let defaultPort {
            port = defaultPort
        } else {
            throw ParseError(text: text, reason: "expected [HOST:]PORT or [IPv6]:PORT; no port given")
        }
        let name = host.isEmpty ? defaultHost : host
        do {
            return try resolve(host: name, port: port, family: family, datagram: datagram)[0]
        } catch {
            throw ParseError(text: text, reason: error.reason)
        }
    }

    /// HOST and PORT of a text address, before resolving.
    static func split(_ text: String) throws(ParseError) -> (host: String, port: String?) {
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else {
                throw ParseError(text: text, reason: "expected [IPv6]:PORT; no ']'")
            }
            let host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            if rest.isEmpty { return (host, nil) }
            guard rest.hasPrefix(":") else { throw ParseError(text: text, reason: "expected [IPv6]:PORT") }
            return (host, String(rest.dropFirst()))
        }
        guard let colon = text.lastIndex(of: ":") else {
            return !text.isEmpty && text.allSatisfy(\.isASCII) && text.allSatisfy(\.isNumber) ? ("", text) : (text, nil)
        }
        if text.firstIndex(of: ":") != colon {
            // Several colons: a bare IPv6 address (no port), or a mistake.
            if SocketAddress(numeric: text, port: 0) != nil { return (text, nil) }
            throw ParseError(text: text, reason: "an IPv6 address goes in brackets, [ADDR]:PORT")
        }
        return (String(text[..<colon]), String(text[text.index(after: colon)...]))
    }

    // MARK: - Reading one

    public var family: Family { Int32(storage.ss_family) == AF_INET ? .ipv4 : .ipv6 }

    /// Port in host byte order.
    public var port: UInt16 {
        get {
            withUnsafeBytes(of: storage) { raw in
                family == .ipv4 ? UInt16(bigEndian: raw.load(as: sockaddr_in.self).sin_port)
                                : UInt16(bigEndian: raw.load(as: sockaddr_in6.self).sin6_port)
            }
        }
        set {
            let f = family
            withUnsafeMutableBytes(of: &storage) { raw in
                if f == .ipv4 {
                    var sa = raw.load(as: sockaddr_in.self); sa.sin_port = newValue.bigEndian; raw.storeBytes(of: sa, as: sockaddr_in.self)
                } else {
                    var sa = raw.load(as: sockaddr_in6.self); sa.sin6_port = newValue.bigEndian; raw.storeBytes(of: sa, as: sockaddr_in6.self)
                }
            }
        }
    }

    /// The IPv4 address in network byte order; nil for IPv6.
    public var ipv4: UInt32? {
        family == .ipv4 ? withUnsafeBytes(of: storage) { $0.load(as: sockaddr_in.self).sin_addr.s_addr } : nil
    }

    /// The address in 16-byte IPv6 form (IPv4 as ::ffff:a.b.c.d): the same bytes for the
    /// same host whichever family it arrived by, e.g. to compare with an allow-list.
    public var ipBytes: [UInt8] {
        withUnsafeBytes(of: storage) { raw in
            if family == .ipv4 {
                return [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff] + withUnsafeBytes(of: raw.load(as: sockaddr_in.self).sin_addr.s_addr) { Array($0) }
            }
            return withUnsafeBytes(of: raw.load(as: sockaddr_in6.self).sin6_addr) { Array($0) }
        }
    }

    /// The same address with another port.
    public func with(port: UInt16) -> SocketAddress { var a = self; a.port = port; return a }

    /// True for 127.0.0.0/8, ::1 and ::ffff:127.0.0.0/104.
    public var isLoopback: Bool {
        let ip = ipBytes
        let v4Mapped = ip.prefix(12).elementsEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff])
        return (v4Mapped && ip[12] == 127) || ip == [UInt8](repeating: 0, count: 15) + [1]
    }

    /// True for 0.0.0.0 and :: (every interface).
    public var isAny: Bool {
        family == .ipv4 ? ipv4 == 0 : ipBytes.allSatisfy { $0 == 0 }
    }

    /// The numeric address alone, "1.2.3.4" or "::1" (no brackets).
    public var host: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        withUnsafeBytes(of: storage) { raw in
            if family == .ipv4 {
                var a = raw.load(as: sockaddr_in.self).sin_addr
                _ = inet_ntop(AF_INET, &a, &buffer, socklen_t(buffer.count))
            } else {
                var a = raw.load(as: sockaddr_in6.self).sin6_addr
                _ = inet_ntop(AF_INET6, &a, &buffer, socklen_t(buffer.count))
            }
        }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The address as it is written before ":PORT": "1.2.3.4" or "[::1]".
    public var bracketedHost: String { family == .ipv4 ? host : "[\(host)]" }

    /// "1.2.3.4:5" or "[::1]:5".
    public var description: String { "\(bracketedHost):\(port)" }

    /// Calls `body` with the kernel's form of the address.
    public func withSockaddr<R, E: Error>(_ body: (UnsafePointer<sockaddr>, socklen_t) throws(E) -> R) throws(E) -> R {
        var s = storage
        return try withUnsafePointer(to: &s) { (p: UnsafePointer<sockaddr_storage>) throws(E) -> R in
            try body(UnsafeRawPointer(p).assumingMemoryBound(to: sockaddr.self), length)
        }
    }

    public static func == (a: SocketAddress, b: SocketAddress) -> Bool {
        a.length == b.length && a.withBytes { x in b.withBytes { y in x.elementsEqual(y) } }
    }

    public func hash(into hasher: inout Hasher) { withBytes { hasher.combine(bytes: $0) } }

    private func withBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        withUnsafeBytes(of: storage) { body(UnsafeRawBufferPointer(rebasing: $0[0..<Int(length)])) }
    }
}

extension SocketAddress {
    /// The IPv4 and IPv6 addresses of this machine's interfaces that are up (getifaddrs),
    /// in the system's order, port 0; empty when they cannot be listed.
    /// - Thread: any.
    public static func interfaceAddresses() -> [SocketAddress] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return [] }
        defer { freeifaddrs(list) }
        var found: [SocketAddress] = []
        var p = list
        while let ifa = p {
            defer { p = ifa.pointee.ifa_next }
            guard let sa = ifa.pointee.ifa_addr, ifa.pointee.ifa_flags & UInt32(IFF_UP) != 0 else { continue }
            let size = Int32(sa.pointee.sa_family) == AF_INET ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size
            var storage = sockaddr_storage()
            withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: UnsafeRawBufferPointer(start: sa, count: size)) }
            if let a = SocketAddress(storage: storage, length: socklen_t(size)) { found.append(a) }
        }
        return found
    }
}
