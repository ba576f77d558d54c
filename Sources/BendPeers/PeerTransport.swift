// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem

/// A reliable byte-stream transport the session runs its frames over (TCP, RFCOMM).
/// Every method returns sockets (BendSystem's `Socket`) the session watches on its event
/// loop, reads and writes; streams are blocking (the session reads only when the loop
/// says readable).
/// - Thread: any (the session calls `accept` on its I/O thread, `connect` on the caller's).
public protocol PeerTransport: Sendable {
    /// For messages: "TCP", "Bluetooth RFCOMM".
    var name: String { get }
    /// Opens a listening socket on `address` (the transport's syntax).
    /// Returns the descriptor and the address actually bound (port filled in).
    /// - Throws: `PeerError` naming the failing call.
    func listen(on address: String) throws -> (socket: Socket, bound: String)
    /// Accepts one connection. Returns nil when none is pending.
    func accept(_ listener: Socket) -> (socket: Socket, remote: String)?
    /// Connects within `timeout` seconds.
    /// - Throws: `PeerError.timeout`, `.system`, `.address`, `.noBluetooth`.
    func connect(to address: String, timeout: Double) throws -> Socket
    /// True when connections from `remote` must prove the shared key.
    func requiresKey(listeningOn bound: String) -> Bool
    /// True when the session may send unreliable frames as UDP datagrams to the peer's
    /// IPv4 address beside the stream; false: they go on the stream (`BestEffortQueue`).
    var carriesDatagrams: Bool { get }
    /// The address a connected `socket` reached, for messages; `given` is what the
    /// caller asked for.
    func describe(_ socket: Socket, given: String) -> String
}

extension PeerTransport {
    public func describe(_ socket: Socket, given: String) -> String { given }
}
