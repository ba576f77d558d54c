// SPDX-License-Identifier: GPL-3.0-or-later
import BendPeers
import BendSystem

/// `play --listen [ADDR][:PORT]`: the option's address.
enum PeerOptions {
    /// - Parameter listen: `[ADDR][:PORT]`; no ADDR → 127.0.0.1; a bare number is a port.
    /// - Throws: `AppError.usage` for a bad address.
    static func address(_ listen: String) throws -> SocketAddress {
        var spec = listen
        if !spec.isEmpty, spec.allSatisfy(\.isNumber) { spec = ":" + spec }
        do { return try PeerAddress.parse(spec) } catch { throw AppError.usage("play: --listen \(error)") }
    }
}
