// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem

/// `play --bluetooth`'s transport: `listen` registers the BlueZ profile
/// (`BluetoothProfile`); its "listener" is the profile's doorbell, and `accept` takes the
/// RFCOMM connections bluetoothd handed over. Outgoing connections are plain RFCOMM
/// sockets (`RFCOMMTransport`).
public struct BluetoothProfileTransport: PeerTransport {
    public let name = "Bluetooth RFCOMM"
    public let carriesDatagrams = false
    public let profile: BluetoothProfile

    public init(profile: BluetoothProfile) { self.profile = profile }

    /// - Throws: `PeerError.noBluetooth` with the reason (one line).
    public func listen(on address: String) throws -> (socket: Socket, bound: String) {
        do { return (try profile.register(), "channel \(profile.channel)") } catch { throw PeerError.noBluetooth(error.description) }
    }

    public func accept(_ listener: Socket) -> (socket: Socket, remote: String)? { profile.accept(listener) }

    public func connect(to address: String, timeout: Double) throws -> Socket {
        try RFCOMMTransport().connect(to: address, timeout: timeout)
    }

    /// Over Bluetooth, pairing and the admission decide, not the key.
    public func requiresKey(listeningOn bound: String) -> Bool { false }
}
