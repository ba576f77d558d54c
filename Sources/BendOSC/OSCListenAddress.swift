// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem
import Glibc

/// Where the OSC receiver listens, and whom it hears: `[ADDR:]PORT` on loopback by
/// default; any other address (an interface's, or 0.0.0.0 / :: for all) needs an
/// allow-list of source addresses, since plain OSC has no authentication.
public struct OSCListenAddress: Sendable {
    /// The socket address to bind (IPv4 or IPv6).
    public let address: SocketAddress
    /// Source addresses allowed besides loopback (16-byte IPv6 form; IPv4 mapped, as
    /// `SocketAddress.ipBytes`).
    let allowed: [[UInt8]]
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
        do {
            address = try SocketAddress.resolve(host: host, port: UInt16(port), datagram: true)[0]
        } catch {
            let why = error.reason.split(separator: ":", maxSplits: 1).last.map { $0.drop(while: { $0 == " " }) } ?? ""
            throw Problem(description: "option '--osc': cannot use address '\(host)': \(why)")
        }
        var allowed: [[UInt8]] = []
        for entry in allow where !entry.isEmpty {
            guard let a = SocketAddress(numeric: entry, port: 0) else {
                throw Problem(description: "option '--osc-allow': '\(entry)' is not a numeric IPv4 or IPv6 address")
            }
            allowed.append(a.ipBytes)
        }
        self.allowed = allowed
        if !address.isLoopback && allowed.isEmpty {
            throw Problem(description: "option '--osc': \(host) is not a loopback address; OSC has no authentication, so a listener other interfaces can reach needs '--osc-allow ADDR[,ADDR…]' naming the senders to hear")
        }
    }

    /// True when the bound address is loopback (127.0.0.0/8 or ::1).
    public var isLoopback: Bool { address.isLoopback }

    /// True when datagrams from `sender` are heard: loopback always, others when allowed.
    func allows(_ sender: SocketAddress) -> Bool {
        sender.isLoopback || allowed.contains(sender.ipBytes)
    }
}
