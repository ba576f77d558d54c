// SPDX-License-Identifier: GPL-3.0-or-later
import BendPeers

/// `play --allow ADDR[,ADDR…]`: the option's side of `BluetoothAdmission`.
extension BluetoothAdmission {
    /// Adds `--allow ADDR[,ADDR…]`.
    /// - Throws: `AppError.usage` naming the address that is not `XX:XX:XX:XX:XX:XX`.
    mutating func allow(_ list: String) throws {
        do { try allow(addresses: list) } catch { throw AppError.usage("play: --allow \(error)") }
    }
}
