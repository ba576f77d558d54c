// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// A socket descriptor (not owned: `close()` it once, as with swift-system's
/// `FileDescriptor`): TCP and UDP over IPv4 and IPv6, and any other family through the
/// raw `open(domain:type:protocol:)` and `connect(rawAddress:…)` (RFCOMM). Every socket
/// is close-on-exec; sends never raise SIGPIPE (MSG_NOSIGNAL). Failures throw
/// `SystemError` naming the call and the address, e.g. "bind(127.0.0.1:9000)" with
/// EADDRINUSE; EINTR is retried (`systemCall`).
public struct Socket: Sendable, Hashable, CustomStringConvertible {
    /// TCP or UDP.
    public enum Kind: Sendable {
        case stream, datagram
        var type: Int32 { Int32(self == .stream ? SOCK_STREAM.rawValue : SOCK_DGRAM.rawValue) }
    }

    public let fd: Int32

    /// Wraps an open socket descriptor (e.g. one a transport handed over).
    public init(fd: Int32) { self.fd = fd }

    public var description: String { "socket \(fd)" }

    // MARK: - Opening

    /// A new socket of `family` (close-on-exec).
    /// - Throws: `SystemError` naming `socket(AF_INET, SOCK_STREAM)` etc.
    public static func open(_ family: SocketAddress.Family, _ kind: Kind, nonBlocking: Bool = false) throws(SystemError) -> Socket {
        let name = "socket(\(family == .ipv4 ? "AF_INET" : "AF_INET6"), \(kind == .stream ? "SOCK_STREAM" : "SOCK_DGRAM"))"
        return try open(domain: family.domain, type: kind.type, protocol: 0, nonBlocking: nonBlocking, name: name)
    }

    /// A new socket of any domain (close-on-exec): AF_BLUETOOTH and the like.
    /// - Parameter name: the call's name for errors, e.g. "socket(AF_BLUETOOTH, RFCOMM)".
    public static func open(domain: Int32, type: Int32, protocol proto: Int32, nonBlocking: Bool = false,
                            name: @autoclosure () -> String = "socket") throws(SystemError) -> Socket {
        let flags = Int32(SOCK_CLOEXEC.rawValue) | (nonBlocking ? Int32(SOCK_NONBLOCK.rawValue) : 0)
        return Socket(fd: try systemCall(name()) { socket(domain, type | flags, proto) })
    }

    /// A TCP socket bound to `address` and listening (SO_REUSEADDR, so a restart does not
    /// wait for TIME_WAIT).
    /// - Throws: `SystemError` naming socket, bind(ADDRESS) or listen(ADDRESS).
    public static func listening(on address: SocketAddress, backlog: Int32 = 16) throws(SystemError) -> Socket {
        let s = try open(address.family, .stream)
        do {
            try s.setOption(SOL_SOCKET, SO_REUSEADDR, Int32(1))
            try s.bind(to: address)
            try s.listen(backlog: backlog, address)
        } catch {
            s.close()
            throw error
        }
        return s
    }

    /// A UDP socket bound to `address` (port 0: any free port).
    /// - Parameter reusePort: SO_REUSEADDR and SO_REUSEPORT, to share a port with other
    ///   listeners (discovery).
    /// - Throws: `SystemError` naming socket or bind(ADDRESS).
    public static func datagram(boundTo address: SocketAddress, reusePort: Bool = false) throws(SystemError) -> Socket {
        let s = try open(address.family, .datagram)
        do {
            if reusePort {
                try s.setOption(SOL_SOCKET, SO_REUSEADDR, Int32(1))
                try s.setOption(SOL_SOCKET, SO_REUSEPORT, Int32(1))
            }
            try s.bind(to: address)
        } catch {
            s.close()
            throw error
        }
        return s
    }

    /// A TCP connection to `address` within `timeout` seconds (a non-blocking connect,
    /// then SO_ERROR); the socket is blocking again when returned.
    /// - Throws: `SystemError` naming connect(ADDRESS): ECONNREFUSED, ENETUNREACH, …,
    ///   ETIMEDOUT when nothing answered in time.
    public static func connected(to address: SocketAddress, timeout: Double) throws(SystemError) -> Socket {
        let s = try open(address.family, .stream, nonBlocking: true)
        do {
            try address.withSockaddr { (sa, len) throws(SystemError) in
                try s.connect(rawAddress: sa, length: len, name: "connect(\(address))", timeout: timeout)
            }
        } catch {
            s.close()
            throw error
        }
        return s
    }

    // MARK: - Setting up

    public func bind(to address: SocketAddress) throws(SystemError) {
        try address.withSockaddr { (sa, len) throws(SystemError) in
            _ = try systemCall("bind(\(address))") { Glibc.bind(fd, sa, len) }
        }
    }

    /// - Parameter address: for the error message only.
    public func listen(backlog: Int32 = 16, _ address: SocketAddress? = nil) throws(SystemError) {
        try systemCall("listen(\(address.map { "\($0)" } ?? "fd \(fd)"))") { Glibc.listen(fd, backlog) }
    }

    /// Connects the (non-blocking) socket to a kernel address of any family within
    /// `timeout` seconds, waiting for POLLOUT and reading SO_ERROR; then makes it
    /// blocking. Does not close the socket on failure.
    /// - Parameters:
    ///   - name: for errors, e.g. "connect(AA:BB:…@7)".
    ///   - inProgress: errno values that mean "wait for it" (RFCOMM also says EAGAIN).
    /// - Throws: `SystemError(call: name, …)`; ETIMEDOUT when nothing answered in time.
    public func connect(rawAddress: UnsafePointer<sockaddr>, length: socklen_t, name: @autoclosure () -> String,
                        timeout: Double, inProgress: [Int32] = [EINPROGRESS]) throws(SystemError) {
        if Glibc.connect(fd, rawAddress, length) != 0 {
            var code = errno
            if code == EINTR { code = EINPROGRESS }  // the connect goes on in the background
            guard inProgress.contains(code) || code == EINPROGRESS else { throw SystemError(call: name(), code: code) }
            let ready = try IOWait.wait(fd: fd, for: .writable, timeout: timeout)
            if ready.isEmpty { throw SystemError(call: name(), code: ETIMEDOUT) }
            let pending: Int32 = try option(SOL_SOCKET, SO_ERROR)
            if pending != 0 { throw SystemError(call: name(), code: pending) }
        }
        try setNonBlocking(false)
    }

    /// Connects to a kernel address of any type (`sockaddr_rc`, …): see
    /// `connect(rawAddress:length:name:timeout:inProgress:)`.
    public func connect<Address>(to address: Address, name: @autoclosure () -> String, timeout: Double,
                                 inProgress: [Int32] = [EINPROGRESS]) throws(SystemError) {
        var a = address
        try withUnsafePointer(to: &a) { (p: UnsafePointer<Address>) throws(SystemError) in
            try connect(rawAddress: UnsafeRawPointer(p).assumingMemoryBound(to: sockaddr.self),
                        length: socklen_t(MemoryLayout<Address>.size), name: name(), timeout: timeout, inProgress: inProgress)
        }
    }

    /// Accepts one pending connection (close-on-exec) with its IP address; nil when none
    /// is pending on a non-blocking listener (EAGAIN) or the peer gave up first
    /// (ECONNABORTED).
    /// - Throws: `SystemError` naming accept (EMFILE: no descriptors left).
    public func accept() throws(SystemError) -> (socket: Socket, from: SocketAddress?)? {
        guard let (s, storage, len) = try acceptRaw(sockaddr_storage()) else { return nil }
        return (s, SocketAddress(storage: storage, length: len))
    }

    /// `accept()` for a socket of another family: the peer's kernel address as `Address`
    /// (`sockaddr_rc`, …).
    public func acceptRaw<Address>(_ empty: Address) throws(SystemError) -> (socket: Socket, address: Address, length: socklen_t)? {
        var sa = empty
        var len = socklen_t(MemoryLayout<Address>.size)
        let result = withUnsafeMutablePointer(to: &sa) { p in
            Result { () throws(SystemError) -> Int32 in
                try systemCall("accept(fd \(fd))") {
                    Glibc.accept(fd, UnsafeMutableRawPointer(p).assumingMemoryBound(to: sockaddr.self), &len)
                }
            }
        }
        switch result {
        case .success(let c):
            _ = fcntl(c, F_SETFD, FD_CLOEXEC)  // accept4 is GNU-only to Swift: see Sources/CSystem/shim.h
            return (Socket(fd: c), sa, len)
        case .failure(let e) where e.code == EAGAIN || e.code == EWOULDBLOCK || e.code == ECONNABORTED:
            return nil
        case .failure(let e):
            throw e
        }
    }

    // MARK: - Options

    /// setsockopt with a value of any plain type (Int32, timeval, ip_mreq, in_addr, …).
    /// - Throws: `SystemError` naming setsockopt(LEVEL, NAME).
    public func setOption<Value: BitwiseCopyable>(_ level: Int32, _ name: Int32, _ value: Value) throws(SystemError) {
        var v = value
        try systemCall("setsockopt(fd \(fd), \(level), \(name))") {
            setsockopt(fd, level, name, &v, socklen_t(MemoryLayout<Value>.size))
        }
    }

    /// getsockopt of an Int32 option (SO_ERROR, SO_TYPE, …).
    public func option(_ level: Int32, _ name: Int32) throws(SystemError) -> Int32 {
        var v: Int32 = 0
        var len = socklen_t(MemoryLayout<Int32>.size)
        try systemCall("getsockopt(fd \(fd), \(level), \(name))") { getsockopt(fd, level, name, &v, &len) }
        return v
    }

    /// TCP_NODELAY: small writes go out at once (touch events).
    public func setNoDelay() throws(SystemError) { try setOption(Int32(IPPROTO_TCP), TCP_NODELAY, Int32(1)) }

    /// SO_SNDTIMEO on a blocking socket, so a stuck peer cannot block a sender forever.
    public func setSendTimeout(seconds: Double) throws(SystemError) {
        let tv = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - Double(Int(seconds))) * 1e6))
        try setOption(SOL_SOCKET, SO_SNDTIMEO, tv)
    }

    /// O_NONBLOCK on or off.
    public func setNonBlocking(_ on: Bool) throws(SystemError) {
        let flags = try systemCall("fcntl(fd \(fd), F_GETFL)") { fcntl(fd, F_GETFL) }
        let wanted = on ? flags | O_NONBLOCK : flags & ~O_NONBLOCK
        if wanted != flags { try systemCall("fcntl(fd \(fd), F_SETFL)") { fcntl(fd, F_SETFL, wanted) } }
    }

    /// The address the socket is bound to (the real port when 0 was asked).
    /// - Throws: `SystemError` naming getsockname; EAFNOSUPPORT for a non-IP socket.
    public func localAddress() throws(SystemError) -> SocketAddress {
        var s = sockaddr_storage()
        var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
        try withUnsafeMutablePointer(to: &s) { (p: UnsafeMutablePointer<sockaddr_storage>) throws(SystemError) in
            _ = try systemCall("getsockname(fd \(fd))") { getsockname(fd, UnsafeMutableRawPointer(p).assumingMemoryBound(to: sockaddr.self), &len) }
        }
        guard let a = SocketAddress(storage: s, length: len) else { throw SystemError(call: "getsockname(fd \(fd))", code: EAFNOSUPPORT) }
        return a
    }

    /// The connected peer's IP address (getpeername); nil when not connected or not IP.
    public func remoteAddress() -> SocketAddress? {
        var s = sockaddr_storage()
        var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let rc = withUnsafeMutablePointer(to: &s) { p in
            getpeername(fd, UnsafeMutableRawPointer(p).assumingMemoryBound(to: sockaddr.self), &len)
        }
        return rc == 0 ? SocketAddress(storage: s, length: len) : nil
    }

    // MARK: - Data

    /// Sends what the kernel takes now (MSG_NOSIGNAL, plus `flags`).
    /// - Returns: bytes sent; nil when a non-blocking socket (or MSG_DONTWAIT) would block.
    /// - Throws: `SystemError` naming send (EPIPE, ECONNRESET, …).
    public func send(_ bytes: UnsafeRawBufferPointer, flags: Int32 = 0) throws(SystemError) -> Int? {
        try wouldBlockIsNil { () throws(SystemError) in
            try systemCall("send(fd \(fd))") { Glibc.send(fd, bytes.baseAddress, bytes.count, flags | Int32(MSG_NOSIGNAL)) }
        }
    }

    /// Sends all of `bytes` on a blocking socket (a send timeout, if set, throws EAGAIN).
    /// - Throws: `SystemError` naming send.
    public func sendAll(_ bytes: UnsafeRawBufferPointer) throws(SystemError) {
        var offset = 0
        while offset < bytes.count {
            let rest = UnsafeRawBufferPointer(rebasing: bytes[offset...])
            offset += try systemCall("send(fd \(fd))") { Glibc.send(fd, rest.baseAddress, rest.count, Int32(MSG_NOSIGNAL)) }
        }
    }

    /// Sends one datagram to `address`.
    /// - Returns: bytes sent; nil when it would block.
    /// - Throws: `SystemError` naming sendto(ADDRESS) (ENETUNREACH, EACCES for broadcast, …).
    public func send(_ bytes: UnsafeRawBufferPointer, to address: SocketAddress, flags: Int32 = 0) throws(SystemError) -> Int? {
        try wouldBlockIsNil { () throws(SystemError) in
            try address.withSockaddr { (sa, len) throws(SystemError) in
                try systemCall("sendto(\(address))") { sendto(fd, bytes.baseAddress, bytes.count, flags | Int32(MSG_NOSIGNAL), sa, len) }
            }
        }
    }

    /// Reads what is there into `buffer`.
    /// - Returns: bytes read, 0 at end of stream; nil when it would block.
    /// - Throws: `SystemError` naming recv (ECONNRESET, …).
    public func receive(into buffer: UnsafeMutableRawBufferPointer, flags: Int32 = 0) throws(SystemError) -> Int? {
        try wouldBlockIsNil { () throws(SystemError) in
            try systemCall("recv(fd \(fd))") { recv(fd, buffer.baseAddress, buffer.count, flags) }
        }
    }

    /// Reads one datagram into `buffer` with its sender.
    /// - Returns: bytes read and sender (nil when not IP); nil when none is pending.
    /// - Throws: `SystemError` naming recvfrom (ECONNREFUSED after an ICMP error, …).
    public func receiveFrom(into buffer: UnsafeMutableRawBufferPointer, flags: Int32 = 0) throws(SystemError) -> (count: Int, from: SocketAddress?)? {
        var s = sockaddr_storage()
        var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let n = try withUnsafeMutablePointer(to: &s) { (p: UnsafeMutablePointer<sockaddr_storage>) throws(SystemError) -> Int? in
            try wouldBlockIsNil { () throws(SystemError) in
                try systemCall("recvfrom(fd \(fd))") {
                    recvfrom(fd, buffer.baseAddress, buffer.count, flags, UnsafeMutableRawPointer(p).assumingMemoryBound(to: sockaddr.self), &len)
                }
            }
        }
        return n.map { ($0, SocketAddress(storage: s, length: len)) }
    }

    /// Closes the descriptor (once; never retried: Linux frees it even on EINTR).
    public func close() { _ = Glibc.close(fd) }

    private func wouldBlockIsNil(_ body: () throws(SystemError) -> Int) throws(SystemError) -> Int? {
        do {
            return try body()
        } catch where error.code == EAGAIN || error.code == EWOULDBLOCK {
            return nil
        }
    }
}
