import BendSystem
import Glibc

/// Where the OSC receiver listens, and whom it hears: `[ADDR:]PORT` on loopback by
/// default; any other address (an interface's, or 0.0.0.0 / :: for all) needs an
/// allow-list of source addresses, since plain OSC has no authentication.
public struct OSCListenAddress: Sendable {
    /// The socket address to bind (IPv4 or IPv6), as bytes of a `sockaddr_storage`.
    var storage = sockaddr_storage()
    var length: socklen_t = 0
    /// Source addresses allowed besides loopback (16-byte IPv6 form; IPv4 mapped).
    var allowed: [[UInt8]] = []
    /// The text given, for messages.
    public let text: String

    /// Why the listen address or the allow-list cannot be used (bad usage: exit 2).
    public struct Problem: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// - Parameters:
    ///   - spec: `PORT`, `ADDR:PORT` or `[IPv6]:PORT`; ADDR numeric or a host name.
    ///   - allow: numeric source addresses for a non-loopback listener.
    /// - Throws: `Problem` naming the option and what was expected.
    /// - Thread: setup.
    public init(_ spec: String, allow: [String]) throws(Problem) {
        text = spec
        var host = "127.0.0.1", portText = spec
        if spec.hasPrefix("["), let close = spec.firstIndex(of: "]") {
            host = String(spec[spec.index(after: spec.startIndex)..<close])
            portText = String(spec[close...].dropFirst())
            guard portText.hasPrefix(":") else { throw Problem(description: "option '--osc': expected [IPv6]:PORT, got '\(spec)'") }
            portText.removeFirst()
        } else if let colon = spec.lastIndex(of: ":") {
            guard spec.firstIndex(of: ":") == colon else {
                throw Problem(description: "option '--osc': an IPv6 address goes in brackets, [ADDR]:PORT; got '\(spec)'")
            }
            host = String(spec[..<colon])
            portText = String(spec[spec.index(after: colon)...])
        }
        guard let port = Int(portText), (0...65_535).contains(port) else {
            throw Problem(description: "option '--osc': expected [ADDR:]PORT with PORT in 0…65535, got '\(spec)'")
        }
        var hints = addrinfo()
        hints.ai_flags = AI_PASSIVE
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &result)
        guard rc == 0, let first = result else {
            throw Problem(description: "option '--osc': cannot use address '\(host)': \(String(cString: gai_strerror(rc)))")
        }
        defer { freeaddrinfo(result) }
        withUnsafeMutableBytes(of: &storage) { dst in
            dst.copyMemory(from: UnsafeRawBufferPointer(start: first.pointee.ai_addr, count: Int(first.pointee.ai_addrlen)))
        }
        length = first.pointee.ai_addrlen
        for entry in allow where !entry.isEmpty {
            guard let bytes = Self.ipBytes(entry) else {
                throw Problem(description: "option '--osc-allow': '\(entry)' is not a numeric IPv4 or IPv6 address")
            }
            allowed.append(bytes)
        }
        if !isLoopback && allowed.isEmpty {
            throw Problem(description: "option '--osc': \(host) is not a loopback address; OSC has no authentication, so a listener other interfaces can reach needs '--osc-allow ADDR[,ADDR…]' naming the senders to hear")
        }
    }

    /// True when the bound address is loopback (127.0.0.0/8 or ::1).
    public var isLoopback: Bool { Self.isLoopback(Self.ipBytes(of: storage)) }

    /// True when datagrams from `address` are heard: loopback always, others when allowed.
    func allows(_ address: sockaddr_storage) -> Bool {
        let ip = Self.ipBytes(of: address)
        return Self.isLoopback(ip) || allowed.contains(ip)
    }

    /// 16-byte IPv6 form of a numeric address (IPv4 as ::ffff:a.b.c.d).
    static func ipBytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr(), v6 = in6_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return mapped(v4) }
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: v6) { Array($0) } }
        return nil
    }

    static func ipBytes(of s: sockaddr_storage) -> [UInt8] {
        let family = s.ss_family
        return withUnsafeBytes(of: s) { raw in
            if family == sa_family_t(AF_INET) {
                return mapped(raw.load(as: sockaddr_in.self).sin_addr)
            }
            return withUnsafeBytes(of: raw.load(as: sockaddr_in6.self).sin6_addr) { Array($0) }
        }
    }

    static func mapped(_ a: in_addr) -> [UInt8] {
        [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff] + withUnsafeBytes(of: a.s_addr) { Array($0) }
    }

    static func isLoopback(_ ip: [UInt8]) -> Bool {
        let v4Mapped = ip.prefix(12).elementsEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff])
        return (v4Mapped && ip[12] == 127) || ip == [UInt8](repeating: 0, count: 15) + [1]
    }

    /// The IP address alone of a socket address ("[ip]" for IPv6).
    static func host(of s: sockaddr_storage) -> String {
        let d = describe(s)
        return String(d[..<d.lastIndex(of: ":")!])
    }

    /// "ip:port" ("[ip]:port" for IPv6) of a socket address: a sender's name.
    static func describe(_ s: sockaddr_storage) -> String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        func text() -> String { String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) }
        if s.ss_family == sa_family_t(AF_INET) {
            var a = withUnsafeBytes(of: s) { $0.load(as: sockaddr_in.self) }
            inet_ntop(AF_INET, &a.sin_addr, &buffer, socklen_t(buffer.count))
            return "\(text()):\(UInt16(bigEndian: a.sin_port))"
        }
        var a = withUnsafeBytes(of: s) { $0.load(as: sockaddr_in6.self) }
        inet_ntop(AF_INET6, &a.sin6_addr, &buffer, socklen_t(buffer.count))
        return "[\(text())]:\(UInt16(bigEndian: a.sin6_port))"
    }
}
