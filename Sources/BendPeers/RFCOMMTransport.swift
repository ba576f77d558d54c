// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem
import CBluetooth
import Glibc

/// Bluetooth RFCOMM sockets (the one part of BlueZ's libbluetooth still used: D-Bus has
/// no equivalent for the socket itself). Addresses are `XX:XX:XX:XX:XX:XX[@CHANNEL]` for
/// `connect` (`remote`), `CHANNEL` (1…30, default 7) for `listen` (a bare RFCOMM
/// listener; `play --bluetooth` lets bluetoothd listen instead: `BluetoothProfileTransport`).
/// There is no UDP here: an unreliable send goes on the stream.
///
/// RW-44: `connect()` may return before the link carries data, and a powered-off peer is
/// reported only after the link supervision timeout (~17–20 s); the session's handshake
/// timeout and 1 s heartbeat cover both.
public struct RFCOMMTransport: PeerTransport {
    public let name = "Bluetooth RFCOMM"
    public let carriesDatagrams = false
    public static let defaultChannel: UInt8 = 7

    public init() {}

    /// Why RFCOMM sockets cannot be made here (the kernel has no AF_BLUETOOTH: `socket`
    /// fails with EAFNOSUPPORT), or nil. Whether an adapter is ready is bluetoothd's to
    /// say (`BluetoothAddress.unavailableReason`).
    /// - Thread: any.
    public static func unavailableReason() -> String? {
        do {
            try Socket.open(domain: AF_BLUETOOTH, type: Int32(SOCK_STREAM.rawValue), protocol: BTPROTO_RFCOMM, name: "socket(AF_BLUETOOTH, RFCOMM)").close()
        } catch {
            if error.code == EAFNOSUPPORT { return "Bluetooth: this kernel has no Bluetooth support: socket(AF_BLUETOOTH): \(String(cString: strerror(error.code)))" }
            return "Bluetooth: \(error.description)"
        }
        return nil
    }

    public func listen(on address: String) throws -> (socket: Socket, bound: String) {
        if let why = Self.unavailableReason() { throw PeerError.noBluetooth(why) }
        guard let channel = address.isEmpty ? Self.defaultChannel : UInt8(address), (1...30).contains(channel) else {
            throw PeerError.address("RFCOMM channel '\(address)': expected 1…30")
        }
        do {
            let s = try Socket.open(domain: AF_BLUETOOTH, type: Int32(SOCK_STREAM.rawValue), protocol: BTPROTO_RFCOMM, name: "socket(AF_BLUETOOTH, RFCOMM)")
            var sa = sockaddr_rc()
            sa.rc_family = sa_family_t(AF_BLUETOOTH)
            sa.rc_bdaddr = bendsynth_bdaddr_any()
            sa.rc_channel = channel
            do {
                _ = try withUnsafePointer(to: &sa) { (p: UnsafePointer<sockaddr_rc>) throws(SystemError) in
                    try systemCall("bind/listen(RFCOMM channel \(channel))") {
                        bind(s.fd, UnsafeRawPointer(p).assumingMemoryBound(to: sockaddr.self), socklen_t(MemoryLayout<sockaddr_rc>.size))
                    }
                }
                try systemCall("bind/listen(RFCOMM channel \(channel))") { Glibc.listen(s.fd, 8) }
            } catch {
                s.close()
                throw error
            }
            return (s, "channel \(channel)")
        } catch let e as SystemError {
            throw PeerError.system(e)
        }
    }

    public func accept(_ listener: Socket) -> (socket: Socket, remote: String)? {
        guard let (s, sa, _) = try? listener.acceptRaw(sockaddr_rc()) else { return nil }
        return (s, Self.string(sa.rc_bdaddr))
    }

    public func connect(to address: String, timeout: Double) throws -> Socket {
        let parts = address.split(separator: "@", maxSplits: 1).map(String.init)
        guard let host = parts.first, BluetoothAddress.looksLike(host) else {
            throw PeerError.address("'\(address)': expected a Bluetooth address XX:XX:XX:XX:XX:XX[@CHANNEL]")
        }
        let channel = parts.count > 1 ? UInt8(parts[1]) : Self.defaultChannel
        guard let channel, (1...30).contains(channel) else { throw PeerError.address("'\(address)': channel expected 1…30") }
        if let why = Self.unavailableReason() { throw PeerError.noBluetooth(why) }
        let s: Socket
        do {
            s = try Socket.open(domain: AF_BLUETOOTH, type: Int32(SOCK_STREAM.rawValue), protocol: BTPROTO_RFCOMM, nonBlocking: true,
                                name: "socket(AF_BLUETOOTH, RFCOMM)")
        } catch {
            throw PeerError.system(error)
        }
        var sa = sockaddr_rc()
        sa.rc_family = sa_family_t(AF_BLUETOOTH)
        _ = str2ba(host, &sa.rc_bdaddr)
        sa.rc_channel = channel
        do {
            try s.connect(to: sa, name: "connect(\(address))", timeout: timeout, inProgress: [EINPROGRESS, EAGAIN])
        } catch {
            s.close()
            throw PeerError.connecting(error, timeout: timeout)
        }
        return s
    }

    /// Bluetooth pairing is the link's authentication; invitations over RFCOMM are
    /// meant to be accepted by the player (`invitationPolicy`), not by key.
    public func requiresKey(listeningOn bound: String) -> Bool { false }

    static func string(_ a: bdaddr_t) -> String {
        var b = [CChar](repeating: 0, count: 18)
        var a = a
        _ = ba2str(&a, &b)
        return String(decoding: b.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
