// SPDX-License-Identifier: GPL-3.0-or-later
/// Who may play an instrument over Bluetooth (`play --bluetooth`): listed addresses
/// (`--allow`), everyone (`--accept-all`), otherwise the player answers at the pad.
/// Without a player to ask, an unlisted peer is declined with a reason that names the
/// options. Over Bluetooth no key proves who connects: this is the admission.
public struct BluetoothAdmission: Sendable, Equatable {
    /// Upper-case `XX:XX:XX:XX:XX:XX` addresses.
    public var allowed: Set<String> = []
    public var acceptAll = false
    /// Others wait for the player's answer at the pad (`.ask`) instead of being declined.
    public var askPlayer = false

    public init() {}

    /// Adds addresses from a comma-separated list (spaces around them are ignored).
    /// - Throws: `PeerError.address` naming the first entry that is not `XX:XX:XX:XX:XX:XX`;
    ///   nothing is added then.
    public mutating func allow(addresses list: String) throws(PeerError) {
        var add: [String] = []
        for raw in list.split(separator: ",", omittingEmptySubsequences: false) {
            let part = String(String(raw.drop(while: \.isWhitespace).reversed()).drop(while: \.isWhitespace).reversed())
            guard BluetoothAddress.looksLike(part), !part.contains("@") else {
                throw PeerError.address("'\(part)': expected Bluetooth addresses XX:XX:XX:XX:XX:XX separated by commas")
            }
            add.append(part.uppercased())
        }
        allowed.formUnion(add)
    }

    /// The decision for an invitation from `peer` (its address is the Bluetooth address).
    /// - Thread: the session's I/O thread (its `invitationPolicy`).
    public func decide(_ peer: PeerInfo) -> InvitationDecision {
        if acceptAll || allowed.contains(peer.address.uppercased()) { return .accept }
        if askPlayer { return .ask }
        return .decline("\(peer.address) is not allowed here (the instrument's player can add --allow \(peer.address) or --accept-all)")
    }
}
