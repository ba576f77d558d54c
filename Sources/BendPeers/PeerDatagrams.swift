// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem
import CBluetooth  // for Glibc's socket names in this module: see Sources/CBluetooth/shim.h
import Glibc
import Synchronization

/// The session's UDP side: unreliable sends go as datagrams of one sealed frame each,
/// behind the receiver's token (docs/PROTOCOL.md, "Datagrams"). Owns the socket; sealing
/// (`PeerConnection.datagram`) and which connection a datagram belongs to
/// (`PeerLinks.datagram`) are the links' business.
/// - Thread: `open` at setup (under the session's setup lock), `send` from any thread,
///   `receive` on the session's I/O thread, `close` once that thread ended.
final class PeerDatagrams: @unchecked Sendable {
    /// The socket, nil until opened and after `close`.
    private let socket = Mutex<Socket?>(nil)
    /// The bound port (host order), 0 until opened.
    private let boundPort = Atomic<UInt16>(0)

    /// The open socket, nil when there is none. - Thread: any.
    var current: Socket? { socket.withLock { $0 } }
    /// The port peers send to, 0 when there is no socket (HELLO/ACCEPT carry it). - Thread: any.
    var port: UInt16 { boundPort.load(ordering: .acquiring) }

    /// Opens the socket on `address` (port 0: any free one), once; later calls return nil.
    /// - Returns: the new socket, for the caller to watch.
    /// - Throws: `PeerError.system` naming the failing call.
    func open(_ address: SocketAddress) throws(PeerError) -> Socket? {
        guard current == nil else { return nil }
        let s: Socket
        do {
            s = try Socket.datagram(boundTo: address)
            boundPort.store(try s.localAddress().port, ordering: .releasing)
        } catch {
            throw PeerError.system(error)
        }
        socket.withLock { $0 = s }
        return s
    }

    /// Sends `datagram` to `address`, without blocking.
    /// - Returns: false when there is no socket or the datagram did not go whole.
    func send(_ datagram: [UInt8], to address: SocketAddress) -> Bool {
        guard let s = current else { return false }
        let n = try? datagram.withUnsafeBytes { b in try s.send(b, to: address, flags: Int32(MSG_DONTWAIT)) }
        return n == datagram.count
    }

    /// Reads every pending datagram: `deliver` gets each one's token, sender and what
    /// follows the token (counter and sealed body). Datagrams shorter than a token, or from a sender
    /// that is not IP, are skipped.
    func receive(_ buffer: inout [UInt8], _ deliver: (_ token: UInt32, _ from: SocketAddress, _ body: ArraySlice<UInt8>) -> Void) {
        guard let s = current else { return }
        while true {
            // Nothing pending, or an error (ICMP noise): the loop calls again when readable.
            guard let (n, from) = try? buffer.withUnsafeMutableBytes({ b in try s.receiveFrom(into: b, flags: Int32(MSG_DONTWAIT)) }) else { return }
            guard n >= 4, let from else { continue }
            let token = buffer[0..<4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            deliver(token, from, buffer[4..<n])
        }
    }

    /// Closes the socket (once); its loop handler must be removed first.
    func close() {
        socket.withLock { s in s?.close(); s = nil }
    }
}
